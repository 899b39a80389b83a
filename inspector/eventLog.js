// The event log: one row per frame, newest last, kept scrolled to the bottom unless the user scrolled up.

import { logRowVisible } from './filters.js';
import { plural, timeOfDay } from './format.js';
import { eventLabel } from './xstateNames.js';
import { appNow, timeElement } from '/shared/clock.js';
import { $, h } from '/shared/dom.js';

const MAX_LOG = 500;

const dom = {
  log: $('[data-log]'),
  logScroll: $('[data-log-scroll]'),
  logCount: $('[data-log-count]'),
  logClear: $('[data-log-clear]'),
  logJump: $('[data-log-jump]'),
};

/** Principal ids by actor id, kept past an actor's removal so that its log lines can be filtered. */
const principalOfActor = new Map();
let logStick = true;

export function rememberPrincipal(actorId, principalId) {
  principalOfActor.set(actorId, principalId);
}

export function log(entry) {
  const at = Number.isFinite(entry.at) ? entry.at : appNow();
  const principalId = entry.actorId ? principalOfActor.get(entry.actorId) ?? '' : '';
  let eventCell;
  let change;
  if (entry.type === 'transition') {
    const label = eventLabel(entry.event);
    eventCell = h('span', { class: 'event-name', title: label !== entry.event ? entry.event : null, text: label });
    change = h('span', { class: 'change' },
      h('span', { class: 'from', text: entry.from }),
      h('span', { class: 'arrow', 'aria-label': 'to', text: ' → ' }),
      h('span', { class: 'to', text: entry.to }),
      entry.status === 'done' || entry.status === 'error' ? h('span', { class: 'badge', 'data-kind': entry.status, text: entry.status }) : null,
    );
  } else if (entry.type === 'actor') {
    eventCell = h('span', { class: 'event-kind', text: 'started' });
    change = h('span', { class: 'change' }, h('span', { class: 'arrow', 'aria-label': 'in', text: '→ ' }), h('span', { class: 'to', text: entry.to }));
  } else if (entry.type === 'stopped') {
    eventCell = h('span', { class: 'event-kind', text: 'stopped' });
    change = h('span', { class: 'change muted', text: entry.to ? `in ${entry.to}` : '' });
  } else {
    eventCell = h('span', { class: 'event-kind', text: entry.event });
    change = h('span', { class: 'change muted', text: entry.detail ?? '' });
  }
  const actorCell = entry.actorId ? h('code', { class: 'actor-ref', text: entry.actorId }) : h('span', { class: 'muted', text: '—' });
  const row = h('tr', {
    'data-log-entry': '',
    'data-type': entry.type,
    'data-actor-id': entry.actorId || null,
    'data-machine': entry.machine || null,
    'data-principal-id': principalId,
  },
    h('td', { class: 'time' }, timeElement(at, timeOfDay(at))),
    h('td', {}, actorCell),
    h('td', { class: 'event' }, eventCell),
    h('td', {}, change),
  );
  row.hidden = !logRowVisible(row);
  dom.log.append(row);
  while (dom.log.childElementCount > MAX_LOG) dom.log.firstElementChild.remove();
  dom.logCount.textContent = plural(dom.log.childElementCount, 'entry', 'entries');
  scheduleLogScroll();
}

let scrollPending = false;
function scheduleLogScroll() {
  if (scrollPending) return;
  scrollPending = true;
  window.requestAnimationFrame(() => {
    scrollPending = false;
    if (logStick) dom.logScroll.scrollTop = dom.logScroll.scrollHeight;
    else dom.logJump.hidden = false;
  });
}

function atBottom() {
  const el = dom.logScroll;
  return el.scrollHeight - el.scrollTop - el.clientHeight <= 8;
}

/** Shows or hides each row again after a filter changed. */
export function refilterLog() {
  for (const row of dom.log.children) row.hidden = !logRowVisible(row);
}

/** Scrolls to the newest row, unless the user scrolled up. */
export function followLog() {
  if (logStick) dom.logScroll.scrollTop = dom.logScroll.scrollHeight;
}

export function wireEventLog() {
  dom.logScroll.addEventListener('scroll', () => {
    logStick = atBottom();
    if (logStick) dom.logJump.hidden = true;
  }, { passive: true });

  dom.logJump.addEventListener('click', () => {
    logStick = true;
    dom.logJump.hidden = true;
    dom.logScroll.scrollTop = dom.logScroll.scrollHeight;
    dom.logScroll.focus();
  });

  dom.logClear.addEventListener('click', () => {
    dom.log.replaceChildren();
    dom.logCount.textContent = plural(0, 'entry', 'entries');
    logStick = true;
    dom.logJump.hidden = true;
  });
}
