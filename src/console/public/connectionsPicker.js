// The connections picker of the approval sheets and the create-token form: "All connections", or a
// checklist of them.

import { allOrSomeFieldset, wireAllOrSome } from './allOrSome.js';
import { reconcile } from './reconcile.js';
import { $, $$, h, uid } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';

/** Fills a checklist with one checkbox per connection, keeping the boxes the user already ticked. */
export function syncConnectionList(list, connections, idPrefix) {
  reconcile(
    list,
    connections,
    (c) => c.id,
    (c) => {
      const id = uid(idPrefix);
      return h(
        'div',
        { class: 'check' },
        h('input', { type: 'checkbox', id, value: c.id, 'data-connection-choice': c.id }),
        h('label', { for: id }, h('span', { 'data-connection-name': '' }), ' ', h('span', { class: 'muted id-hint' })),
      );
    },
    (el, c) => {
      $('[data-connection-name]', el).replaceChildren(...visibleNodes(c.name ?? c.id));
      $('.id-hint', el).replaceChildren(...(c.name && c.name !== c.id ? ['(', ...visibleNodes(c.id), ')'] : []));
    },
  );
  if (connections.length === 0) {
    if (!$('[data-no-connections]', list.parentElement)) {
      list.after(h('p', { class: 'hint', 'data-no-connections': '' }, 'There are no connections yet.'));
    }
  } else {
    $('[data-no-connections]', list.parentElement)?.remove();
  }
}

/** Wires the "All connections" box to reveal the per-connection list. */
export function wireConnectionsPicker(picker) {
  wireAllOrSome(picker, { all: '[data-all-connections]', list: '[data-connection-list]' });
}

/** `"all"`, the ticked ids, or null when nothing at all is chosen. */
export function readConnectionsPicker(picker) {
  if ($('[data-all-connections]', picker).checked) return 'all';
  const ids = $$('[data-connection-list] input:checked', picker).map((input) => input.value);
  return ids.length > 0 ? ids : null;
}

export function createConnectionsPicker(idPrefix) {
  return allOrSomeFieldset(idPrefix, {
    legend: 'Connections',
    allLabel: 'All connections',
    attrs: { picker: 'data-connections-picker', all: 'data-all-connections', list: 'data-connection-list' },
  });
}
