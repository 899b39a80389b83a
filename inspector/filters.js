// The filters: which machines are shown, and whose actors (a principal, none, or all).

import { machineOrder } from './machines.js';
import { visibleText } from '/core/visibleText.js';
import { $, h, uid } from '/shared/dom.js';

const ALL = '__all__';
const NONE = '__none__';

const dom = {
  machineFilters: $('[data-machine-filters]'),
  principalFilter: $('[data-filter-principal]'),
};

/** Principals seen: id → name. */
const principals = new Map();

/** Machines switched off, and the principal shown (ALL, NONE or a principal id). */
const filters = { off: new Set(), principal: ALL };
let onChange = () => {};

/** Sets what runs when the user changes a filter, and starts listening for that. */
export function wireFilters(listener) {
  onChange = listener;
  dom.principalFilter.addEventListener('change', () => {
    filters.principal = dom.principalFilter.value;
    onChange();
  });
}

export const isMachineOff = (machine) => filters.off.has(machine);

export function notePrincipal(principal) {
  if (!principal || typeof principal.id !== 'string') return;
  const name = typeof principal.name === 'string' && principal.name ? principal.name : principal.id;
  if (principals.get(principal.id) === name) return;
  principals.set(principal.id, name);
  renderPrincipalFilter();
}

export function renderMachineFilters() {
  const list = dom.machineFilters;
  for (const machine of machineOrder) {
    if (list.querySelector(`[data-filter-machine="${CSS.escape(machine)}"]`)) continue;
    const id = uid('filter-machine');
    const input = h('input', { type: 'checkbox', id, 'data-filter-machine': machine, value: machine });
    input.checked = !filters.off.has(machine);
    input.addEventListener('change', () => {
      if (input.checked) filters.off.delete(machine);
      else filters.off.add(machine);
      onChange();
    });
    list.append(h('div', { class: 'check' }, input, h('label', { for: id, text: machine })));
  }
  // Keep the checkboxes in machineOrder.
  for (const machine of machineOrder) {
    const box = list.querySelector(`[data-filter-machine="${CSS.escape(machine)}"]`);
    if (box) list.append(box.parentElement);
  }
}

function renderPrincipalFilter() {
  const select = dom.principalFilter;
  const chosen = select.value;
  const sorted = [...principals.entries()].sort((a, b) => a[1].localeCompare(b[1]) || a[0].localeCompare(b[0]));
  const counts = new Map();
  for (const [, name] of sorted) counts.set(name, (counts.get(name) ?? 0) + 1);
  select.replaceChildren(
    h('option', { value: ALL, text: 'All principals' }),
    h('option', { value: NONE, text: 'No principal' }),
    ...sorted.map(([id, name]) => h('option', { value: id, 'data-principal-id': id, text: visibleText(counts.get(name) > 1 || name === id ? `${name} (${id})` : name) })),
  );
  select.value = [...select.options].some((o) => o.value === chosen) ? chosen : ALL;
}

function principalMatches(principalId) {
  if (filters.principal === ALL) return true;
  if (filters.principal === NONE) return principalId === '';
  return principalId === filters.principal;
}

export function applyCardFilter(actor) {
  actor.el.hidden = !principalMatches(actor.principal?.id ?? '');
}

export function logRowVisible(row) {
  if (row.dataset.type === 'live') return true;
  const machine = row.dataset.machine ?? '';
  return !filters.off.has(machine) && principalMatches(row.dataset.principalId ?? '');
}
