// "All of them, or only these": the fieldset the connections picker and the tools picker share, a box
// for all and, once it is unticked, a checklist. Each picker names its own data attributes.

import { $, h, uid } from './shared/dom.js';

/** The fieldset, `all` ticked and the checklist hidden; `attrs` names the data attributes of the fieldset, the box and the list. */
export function allOrSomeFieldset(idPrefix, { legend, allLabel, attrs, hidden = false }) {
  const allId = uid(`${idPrefix}-all`);
  return h(
    'fieldset',
    { class: 'connections-picker', [attrs.picker]: '', hidden },
    h('legend', {}, legend),
    h(
      'div',
      { class: 'check' },
      h('input', { type: 'checkbox', id: allId, checked: true, [attrs.all]: '' }),
      h('label', { for: allId }, allLabel),
    ),
    h('div', { class: 'check-list', [attrs.list]: '', hidden: true }),
  );
}

/** Unticking the box for all reveals the checklist (and focuses its first box); ticking it hides it. */
export function wireAllOrSome(picker, { all: allSelector, list: listSelector }) {
  const all = $(allSelector, picker);
  const list = $(listSelector, picker);
  all.addEventListener('change', () => {
    list.hidden = all.checked;
    if (!all.checked) $('input', list)?.focus();
  });
}
