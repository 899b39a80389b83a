// One section per machine, and in it one card per actor: its state, principal, age and statechart.

import { renderMachineFilters } from './filters.js';
import { duration } from './format.js';
import { definitionsLoaded, layoutFor, machineOrder } from './machines.js';
import { renderChart } from './statechart.js';
import { topState } from './xstateNames.js';
import { appNow } from '/shared/clock.js';
import { $, h, uid } from '/shared/dom.js';
import { visibleNodes } from '/shared/visible.js';

const dom = {
  sections: $('[data-machine-sections]'),
};
/** @type {Map<string, {el: HTMLElement, cards: HTMLElement, count: HTMLElement, empty: HTMLElement}>} */
export const sections = new Map();

export function ensureMachine(machine) {
  if (!machineOrder.includes(machine)) {
    machineOrder.push(machine);
    renderMachineFilters();
  }
  return ensureSection(machine);
}

export function ensureSection(machine) {
  let section = sections.get(machine);
  if (section) return section;
  const titleId = uid('machine');
  const count = h('span', { class: 'count', 'data-machine-count': '' });
  const cards = h('div', { class: 'cards', 'data-cards': '' });
  const empty = h('p', { class: 'section-empty', text: 'None live.' });
  const el = h('section', { class: 'machine', 'data-machine-section': machine, 'aria-labelledby': titleId },
    h('h3', { id: titleId }, h('span', { class: 'machine-name', text: machine }), ' ', count),
    empty,
    cards,
  );
  section = { el, cards, count, empty };
  sections.set(machine, section);
  placeSections();
  return section;
}

/** Sections follow machineOrder. */
export function placeSections() {
  for (const machine of machineOrder) {
    const section = sections.get(machine);
    if (section) dom.sections.append(section.el);
  }
}

export function createCard(actor) {
  const titleId = uid('actor');
  const stateDd = h('dd', { 'data-field': 'state' });
  const principalDd = h('dd', { 'data-field': 'principal' });
  const principalRow = h('div', { 'data-row': 'principal', hidden: true }, h('dt', { text: 'Principal' }), principalDd);
  const ageDd = h('dd', { 'data-field': 'age' });
  const badge = h('span', { class: 'badge', 'data-badge': '', hidden: true });
  const chart = h('div', { class: 'chart-wrap', 'data-chart-wrap': '' });
  const el = h('article', {
    class: 'card actor',
    'data-actor-id': actor.id,
    'data-machine': actor.machine,
    'aria-labelledby': titleId,
  },
    h('div', { class: 'actor-head' },
      h('h4', { id: titleId, class: 'actor-id' }, h('code', { text: actor.id })),
      badge,
    ),
    h('dl', { class: 'actor-meta' },
      h('div', { 'data-row': 'state' }, h('dt', { text: 'State' }), stateDd),
      principalRow,
      h('div', { 'data-row': 'age' }, h('dt', { text: 'Age' }), ageDd),
    ),
    chart,
  );
  actor.el = el;
  actor.refs = { stateDd, principalDd, principalRow, ageDd, badge, chart, chartApi: null };
  attachChart(actor);
  updateCard(actor);
}

export function attachChart(actor) {
  if (actor.refs.chartApi) return;
  const layout = layoutFor(actor.machine);
  actor.refs.chart.replaceChildren();
  if (!layout) {
    if (definitionsLoaded) actor.refs.chart.append(h('p', { class: 'muted small', text: 'No statechart for this machine.' }));
    return;
  }
  const api = renderChart(layout, actor.machine);
  actor.refs.chart.append(api.svg);
  actor.refs.chartApi = api;
  api.setCurrent(actor.state);
}

export function updateCard(actor) {
  const { el, refs } = actor;
  el.dataset.status = actor.status;
  el.dataset.principalId = actor.principal?.id ?? '';
  if (actor.parentId) el.dataset.parentId = actor.parentId;
  const top = topState(actor.state);
  refs.stateDd.textContent = top;
  refs.stateDd.dataset.value = actor.state;
  refs.stateDd.title = actor.state !== top ? `State value: ${actor.state}` : '';
  if (actor.principal) {
    refs.principalDd.replaceChildren(...visibleNodes(actor.principal.name || actor.principal.id));
    refs.principalDd.title = `Token ${actor.principal.id}`;
    refs.principalRow.hidden = false;
  } else {
    refs.principalRow.hidden = true;
  }
  const badgeText = actor.status === 'active' ? '' : actor.status;
  refs.badge.textContent = badgeText;
  refs.badge.hidden = badgeText === '';
  refs.badge.dataset.kind = actor.status;
  refs.chartApi?.setCurrent(actor.state);
  updateAge(actor);
}

export function updateAge(actor) {
  const end = actor.stoppedAt ?? appNow();
  actor.refs.ageDd.textContent = duration(end - actor.at);
}
