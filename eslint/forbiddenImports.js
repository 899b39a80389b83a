import path from 'node:path';

/**
 * What the lower layers may not import, beyond the direction `sluice/layers` checks. See
 * docs/design.md, "Layers and the request path".
 */

const root = path.resolve(import.meta.dirname, '..');

/**
 * `src/<layer>` of a file, or undefined outside `src/`.
 * @param {string} file
 */
function layerOf(file) {
  const [top, layer, ...rest] = path.relative(root, file).split(path.sep);
  return top === 'src' && rest.length > 0 ? layer : undefined;
}

/** Node built-ins that reach files, sockets, processes or threads. */
const IO_BUILTINS = new Set([
  'fs',
  'fs/promises',
  'net',
  'tls',
  'dgram',
  'dns',
  'dns/promises',
  'http',
  'https',
  'http2',
  'child_process',
  'cluster',
  'worker_threads',
  'readline',
  'os',
]);

/** The database and SSH drivers. */
const DRIVERS = ['pg', 'pg-cursor', 'pg-protocol', 'mysql2', 'better-sqlite3', 'ssh2', 'duckdb'];

/**
 * Why `specifier` does I/O, or undefined when it does none.
 * @param {string} specifier
 */
function ioOf(specifier) {
  const builtin = specifier.replace(/^node:/, '');
  if (IO_BUILTINS.has(builtin)) return `node:${builtin} does I/O`;
  const name = specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
  if (DRIVERS.includes(name) || name.startsWith('@duckdb/')) return `${name} is a driver`;
  return undefined;
}

/**
 * The listeners that call `check(node, specifier)` for every module a file names: imports,
 * re-exports and `import()`.
 * @param {(node: import('estree').Node, specifier: string) => void} check
 * @returns {import('eslint').Rule.RuleListener}
 */
function eachImport(check) {
  /** @param {import('estree').Node | null | undefined} node */
  const run = (node) => {
    if (node?.type === 'Literal' && typeof node.value === 'string') check(node, node.value);
  };
  return {
    ImportDeclaration: (node) => run(node.source),
    ExportNamedDeclaration: (node) => run(node.source),
    ExportAllDeclaration: (node) => run(node.source),
    ImportExpression: (node) => run(node.source),
  };
}

/** @type {import('eslint').Rule.RuleModule} */
const sqlWithoutIo = {
  meta: {
    type: 'problem',
    docs: { description: 'src/sql is SQL text only: no node built-in that does I/O, no driver' },
    schema: [],
  },
  create(context) {
    if (layerOf(context.filename) !== 'sql') return {};
    return eachImport((node, specifier) => {
      const io = ioOf(specifier);
      if (io) context.report({ node, message: `src/sql does no I/O: ${io} ('${specifier}'); the engines in src/db run SQL` });
    });
  },
};

export default { rules: { 'sql-without-io': sqlWithoutIo } };
