// The tools picker of the approval sheets: every tool the level allows, or only some custom tools
// (tools.json). Shown only while custom tools are defined.

import { allOrSomeFieldset, wireAllOrSome } from './allOrSome.js';
import { reconcile } from './reconcile.js';
import { $, $$, h, uid } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';

export function createToolsPicker(idPrefix) {
  const picker = allOrSomeFieldset(`${idPrefix}-tools`, {
    legend: 'Tools',
    allLabel: 'Every tool its level allows',
    attrs: { picker: 'data-tools-picker', all: 'data-all-tools', list: 'data-tool-list' },
    hidden: true,
  });
  wireAllOrSome(picker, { all: '[data-all-tools]', list: '[data-tool-list]' });
  return picker;
}

/** One checkbox per custom tool, keeping those already ticked; the picker hidden when there are none. */
export function syncToolList(picker, names, idPrefix) {
  picker.hidden = names.length === 0;
  reconcile(
    $('[data-tool-list]', picker),
    names,
    (name) => name,
    (name) => {
      const id = uid(idPrefix);
      return h(
        'div',
        { class: 'check' },
        h('input', { type: 'checkbox', id, value: name, 'data-tool-choice': name }),
        h('label', { for: id }, h('code', {}, visibleNodes(name))),
      );
    },
    () => {},
  );
}

/** undefined (every tool the level allows), the ticked names, or null when none is ticked. */
export function readToolsPicker(picker) {
  if (picker.hidden || $('[data-all-tools]', picker).checked) return undefined;
  const names = $$('[data-tool-list] input:checked', picker).map((input) => input.value);
  return names.length > 0 ? names : null;
}

/** Sets the picker to what was granted. */
export function showToolsGrant(picker, tools) {
  $('[data-all-tools]', picker).checked = !tools;
  $('[data-tool-list]', picker).hidden = !tools;
  for (const box of $$('[data-tool-list] input', picker)) box.checked = Boolean(tools?.includes(box.value));
}
