// 5b. Custom tools: the tools tools.json defines, and each definition it refused with its line and reason.

import { setEmpty } from './feedback.js';
import { reconcile } from './reconcile.js';
import { $, h } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';
import { state } from './state.js';

export function renderCustomTools() {
  const { file, names, refusals } = state.customTools;
  $('[data-custom-tools-file]').replaceChildren(...visibleNodes(file || 'tools.json'));
  reconcile(
    $('[data-list="custom-tools"]'),
    names,
    (name) => name,
    (name) => h('li', { 'data-custom-tool': name }, h('code', {}, visibleNodes(name))),
    () => {},
  );
  setEmpty('custom-tools', names.length === 0);
  $('[data-custom-tool-refusals]').hidden = refusals.length === 0;
  reconcile(
    $('[data-list="custom-tool-refusals"]'),
    refusals,
    (r) => `${r.line}:${r.reason}`,
    () => h('li', { 'data-refusal': '' }),
    (item, r) => item.replaceChildren(h('span', { 'data-refusal-place': '' }, 'line ', String(r.line)), ': ', ...visibleNodes(r.reason)),
  );
}
