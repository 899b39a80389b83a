// The status line (connection and live actors) and each section's counts.

import { actors } from './actors.js';
import { sections } from './cards.js';
import { isMachineOff } from './filters.js';
import { plural } from './format.js';
import { machineOrder } from './machines.js';
import { $ } from '/shared/dom.js';

const STATUS_DEBOUNCE_MS = 800;

const dom = {
  status: $('[data-live-status]'),
  statusText: $('[data-status-text]'),
  statusCounts: $('[data-status-counts]'),
  emptyActors: $('[data-empty-actors]'),
};

let connection = 'connecting';
export let everConnected = false;
let statusTimer = 0;

export function markConnected() {
  everConnected = true;
}

export function refreshCounts(now = false) {
  let live = 0;
  let shown = 0;
  for (const machine of machineOrder) {
    const section = sections.get(machine);
    if (!section) continue;
    let sectionLive = 0;
    let sectionStopped = 0;
    let sectionShown = 0;
    for (const actor of actors.values()) {
      if (actor.machine !== machine) continue;
      if (actor.status === 'stopped') sectionStopped += 1;
      else sectionLive += 1;
      if (!actor.el.hidden) sectionShown += 1;
    }
    const hiddenByPrincipal = sectionLive + sectionStopped - sectionShown;
    const parts = [`${sectionLive} live`];
    if (sectionStopped) parts.push(`${sectionStopped} stopped`);
    if (hiddenByPrincipal) parts.push(`${hiddenByPrincipal} filtered out`);
    section.count.textContent = parts.join(', ');
    section.count.dataset.live = String(sectionLive);
    section.el.dataset.live = String(sectionLive);
    section.el.hidden = isMachineOff(machine);
    section.empty.hidden = sectionShown > 0;
    section.empty.textContent = sectionLive + sectionStopped > 0 ? 'All filtered out.' : 'None live.';
    section.el.classList.toggle('is-empty', sectionShown === 0);
    live += sectionLive;
    if (!isMachineOff(machine)) shown += sectionShown;
  }
  dom.emptyActors.hidden = live > 0 || actors.size > 0;
  dom.emptyActors.textContent = connection === 'connected' ? 'No live actors.' : 'No live actors yet.';
  dom.statusCounts.dataset.liveCount = String(live);
  dom.statusCounts.dataset.shownCount = String(shown);
  // The status line is a live region: count changes are batched so that it is not read out per frame.
  clearTimeout(statusTimer);
  if (now) renderStatus();
  else statusTimer = setTimeout(renderStatus, STATUS_DEBOUNCE_MS);
}

const STATUS_TEXT = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  disconnected: 'Disconnected, retrying…',
};

export function renderStatus() {
  clearTimeout(statusTimer);
  dom.status.dataset.state = connection;
  dom.statusText.textContent = STATUS_TEXT[connection] ?? connection;
  const live = Number(dom.statusCounts.dataset.liveCount ?? 0);
  if (connection === 'connected' || everConnected) {
    const prefix = connection === 'connected' ? '' : 'last seen ';
    dom.statusCounts.textContent = ` · ${prefix}${plural(live, 'live actor')}`;
  } else {
    dom.statusCounts.textContent = '';
  }
}

export function setConnection(next) {
  if (connection === next) return;
  connection = next;
  renderStatus();
}
