import path from 'node:path';
import { eachImport } from './eachImport.js';

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

const CORE_ERRORS = path.join(root, 'src', 'core', 'errors');

/** What builds a wire error: the two error classes and the helpers that make one. */
const WIRE_ERRORS = ['ToolError', 'ProtocolError', 'invalidParams', 'headerMismatch'];

/** @type {import('eslint').Rule.RuleModule} */
const driverFailuresOnly = {
  meta: {
    type: 'problem',
    docs: { description: 'src/db and src/sql report failures (DriverFailure, SqlRefusal), never wire errors' },
    schema: [],
  },
  create(context) {
    const layer = layerOf(context.filename);
    if (layer !== 'db' && layer !== 'sql') return {};
    return eachImport((node, specifier, names) => {
      if (!specifier.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), specifier).replace(/\.[jt]s$/, '');
      if (target !== CORE_ERRORS) return;
      const taken = names === 'all' ? WIRE_ERRORS : names.filter((name) => WIRE_ERRORS.includes(name));
      if (taken.length === 0) return;
      const failure = layer === 'db' ? 'a DriverFailure (db/driverFailure.ts)' : 'a SqlRefusal (sql/sqlRefusal.ts)';
      context.report({
        node,
        message: `src/${layer} may not import ${taken.join(', ')}: it throws ${failure}, and capabilities/dbErrors.ts makes the wire error`,
      });
    });
  },
};

export default { rules: { 'sql-without-io': sqlWithoutIo, 'driver-failures-only': driverFailuresOnly } };
