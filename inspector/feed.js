// Loading: the machine definitions (again while that fails), and the event stream of frames.

import { actors } from './actors.js';
import { attachChart, ensureSection, placeSections } from './cards.js';
import { renderMachineFilters } from './filters.js';
import { onFrame } from './frames.js';
import { addDefinitions, definitionsLoaded, machineOrder, markDefinitionsLoaded } from './machines.js';
import { everConnected, refreshCounts, setConnection } from './status.js';
import { $ } from '/shared/dom.js';
import { sessionStream } from '/shared/serverEvents.js';
import { currentSession, sessionHeaders, sessionRefused } from '/shared/session.js';

const MACHINES_URL = '/api/inspector/machines';
const EVENTS_URL = '/api/inspector/events';
const FRAME_TYPES = ['live', 'actor', 'transition', 'stopped'];

const dom = {
  loadError: $('[data-load-error]'),
};

let retryTimer = 0;
let retryDelay = 1_000;
let machinesLoading = null;
let machinesRetryTimer = 0;
let machinesRetryDelay = 5_000;

export async function loadMachines() {
  if (definitionsLoaded) return;
  machinesLoading ??= (async () => {
    const session = currentSession();
    try {
      if (session === null) return sessionRefused(null);
      const response = await fetch(MACHINES_URL, {
        headers: { ...sessionHeaders(session), accept: 'application/json' },
        cache: 'no-store',
      });
      if (response.status === 401) return sessionRefused(session);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = await response.json();
      const defs = body && typeof body.machines === 'object' && body.machines ? body.machines : {};
      addDefinitions(defs);
      for (const machine of machineOrder) ensureSection(machine);
      placeSections();
      renderMachineFilters();
      markDefinitionsLoaded();
      dom.loadError.hidden = true;
      for (const actor of actors.values()) attachChart(actor);
      refreshCounts(true);
    } catch (error) {
      dom.loadError.textContent = `Could not load the machine definitions (${error instanceof Error ? error.message : error}); cards are shown without their statecharts until they load.`;
      dom.loadError.hidden = false;
      clearTimeout(machinesRetryTimer);
      machinesRetryTimer = setTimeout(loadMachines, machinesRetryDelay);
      machinesRetryDelay = Math.min(60_000, machinesRetryDelay * 2);
    } finally {
      machinesLoading = null;
    }
  })();
  return machinesLoading;
}

const openEvents = sessionStream(EVENTS_URL, {
  onOpen() {
    retryDelay = 1_000;
    setConnection('connected');
    if (!definitionsLoaded) loadMachines();
  },
  onEvent(type, data) {
    // The frames may also come as named events (`event: transition`); both are understood.
    if (type !== 'message' && !FRAME_TYPES.includes(type)) return;
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    onFrame(frame, type === 'message' ? undefined : type);
  },
  onEnd: (why) => retryLater(why !== 'refused'),
});

export function connect() {
  clearTimeout(retryTimer);
  openEvents();
}

/** The stream ended or failed (`dropped`), or Sluice refused it: try again, more slowly each time. */
function retryLater(dropped) {
  if (!dropped) setConnection('disconnected');
  else setConnection(everConnected ? 'reconnecting' : 'connecting');
  retryTimer = setTimeout(connect, retryDelay);
  retryDelay = Math.min(30_000, retryDelay * 2);
}
