import path from 'node:path';
import { eachImport } from './eachImport.js';

/**
 * The layers of `src/`, bottom first. A file may import from its own layer and from layers before it
 * in this list, never from one after it. `machines/` import only `xstate` and each other, and only
 * `src/runtime` imports them. See docs/design.md, "Layers".
 */
export const LAYERS = [
  'core',
  'platform',
  'protocol',
  'sql',
  'db',
  'activity',
  'auth',
  'pairing',
  'runtime',
  'capabilities',
  'http',
  'control',
  'console',
  'bridge',
  'app',
  'cli',
];

const root = path.resolve(import.meta.dirname, '..');

/**
 * `{ kind: 'layer', name }` for a file in `src/<layer>/`, `{ kind: 'machines' }` for `machines/`.
 * @param {string} file
 * @returns {{ kind: 'layer', name: string } | { kind: 'machines' } | undefined}
 */
function placeOf(file) {
  const [top, layer, ...rest] = path.relative(root, file).split(path.sep);
  if (top === 'machines') return { kind: 'machines' };
  if (top === 'src' && layer !== undefined && rest.length > 0) return { kind: 'layer', name: layer };
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'src/ layers import only downward; machines/ import only xstate and each other' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = placeOf(file);
    if (!from) return {};
    /** @param {import('estree').Node} node @param {string} specifier */
    const check = (node, specifier) => {
      if (from.kind === 'machines') {
        if (specifier === 'xstate' || (specifier.startsWith('./') && !specifier.includes('/', 2))) return;
        context.report({ node, message: `machines/ import only xstate and each other, not '${specifier}' (effects come in through .provide())` });
        return;
      }
      if (!specifier.startsWith('.')) return;
      const to = placeOf(path.resolve(path.dirname(file), specifier));
      if (!to) return;
      if (to.kind === 'machines') {
        if (from.name !== 'runtime') context.report({ node, message: `only src/runtime imports machines/; src/${from.name} goes through the runtime` });
        return;
      }
      const fromIndex = LAYERS.indexOf(from.name);
      const toIndex = LAYERS.indexOf(to.name);
      if (fromIndex === -1) context.report({ node, message: `src/${from.name} is not a layer: add it to eslint/layers.js and docs/design.md` });
      else if (toIndex > fromIndex) {
        context.report({ node, message: `src/${from.name} may not import src/${to.name}: layers look down only (${LAYERS.join(' → ')})` });
      }
    };
    return eachImport(check);
  },
};

export default { rules: { layers: layersRule } };
