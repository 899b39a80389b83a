import path from 'node:path';
import { eachImport } from './eachImport.js';
import { ENGINE_NAMES } from '../src/core/shared/engineNames.js';

/**
 * `sluice/engine-modules`: an engine is one folder, `src/db/engines/<engine>/`, and the rest of Sluice
 * reaches it only through `src/db/engines/registry.ts` (see docs/design.md, "Adding an engine").
 * - An engine's folder is imported only from inside itself and from `src/db/engines/*` (the registry,
 *   the EngineModule type and the helpers every engine shares).
 * - An engine's name is compared against (`=== 'postgres'`, `case 'mysql':`) only inside its own
 *   folder, `src/db/engines/*`, and the places in `NAMES_ALLOWED` below, each with its reason.
 */

const ENGINES = Object.keys(ENGINE_NAMES);
const root = path.resolve(import.meta.dirname, '..');
const ENGINES_DIR = 'src/db/engines';

/** Files (or folders, ending in `/`) where an engine's name may be compared, and why. */
export const NAMES_ALLOWED = {
  'src/sql/': 'the SQL layer lexes and classifies each dialect; it sits below db and cannot ask the registry',
  'src/db/connections/savedConnections.ts':
    'the saved-connection file names the engine of each connection, and is read below the registry (its engines read it)',
};

/**
 * The engine whose folder holds `file`, `''` for a file directly in src/db/engines, else undefined.
 * @param {string} file
 */
function engineFolderOf(file) {
  const relative = path.relative(root, file).split(path.sep).join('/');
  if (!relative.startsWith(`${ENGINES_DIR}/`)) return undefined;
  const [first, ...rest] = relative.slice(ENGINES_DIR.length + 1).split('/');
  return rest.length === 0 ? '' : first;
}

/** @param {string} file */
const allowedByList = (file) => {
  const relative = path.relative(root, file).split(path.sep).join('/');
  return Object.keys(NAMES_ALLOWED).some((place) => (place.endsWith('/') ? relative.startsWith(place) : relative === place));
};

/** @param {string} file */
const inSrc = (file) => path.relative(root, file).split(path.sep)[0] === 'src';

/** @type {import('eslint').Rule.RuleModule} */
const engineModulesRule = {
  meta: {
    type: 'problem',
    docs: { description: "an engine's folder and name are used only in that folder and the engine registry" },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    if (!inSrc(file)) return {};
    const here = engineFolderOf(file);
    /** @param {import('estree').Node} node @param {string} specifier */
    const checkImport = (node, specifier) => {
      if (!specifier.startsWith('.')) return;
      const engine = engineFolderOf(path.resolve(path.dirname(file), specifier));
      if (!engine || here === '' || here === engine) return;
      context.report({ node, message: `src/db/engines/${engine}/ is imported only by its own folder and the registry: ask engineModule('${engine}') in src/db/engines/registry.ts` });
    };
    /** @param {import('estree').Node} node */
    const engineNamed = (node) => node.type === 'Literal' && typeof node.value === 'string' && ENGINES.includes(node.value) ? node.value : undefined;
    /** @param {import('estree').Node} node @param {string | undefined} name */
    const checkName = (node, name) => {
      if (name === undefined || here === '' || here === name || allowedByList(file)) return;
      context.report({ node, message: `'${name}' is compared against outside src/db/engines/${name}/: ask the engine module (engineModule(engine).<capability>) instead of testing the engine's name` });
    };
    return {
      ...eachImport(checkImport),
      BinaryExpression: (node) => {
        if (!['===', '!==', '==', '!='].includes(node.operator)) return;
        checkName(node, engineNamed(node.left) ?? engineNamed(node.right));
      },
      SwitchCase: (node) => node.test && checkName(node.test, engineNamed(node.test)),
    };
  },
};

export default { rules: { 'engine-modules': engineModulesRule } };
