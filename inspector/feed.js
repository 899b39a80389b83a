// Loading: the machine definitions (again while that fails), and the event stream of frames.

import { actors } from './actors.js';
import { attachChart, ensureSection, placeSections } from './cards.js';
import { renderMachineFilters } from './filters.js';
import { onFrame } from './frames.js';
import { addDefinitions, definitionsLoaded, machineOrder, markDefinitionsLoaded } from './machines.js';
import { everConnected, refreshCounts, setConnection } from './status.js';
import { $ } from '/shared/dom.js';

const MACHINES_URL = '/api/inspector/machines';
const EVENTS_URL = '/api/inspector/events';
const FRAME_TYPES = ['live', 'actor', 'transition', 'stopped'];

const dom = {
  loadError: $('[data-load-error]'),
};

let source = null;
let retryTimer = 0;
let retryDelay = 1_000;
let machinesLoading = null;
let machinesRetryTimer = 0;
let machinesRetryDelay = 5_000;

export async function loadMachines() {
  if (definitionsLoaded) return;
  machinesLoading ??= (async () => {
    try {
      const response = await fetch(MACHINES_URL, { headers: { accept: 'application/json' }, cache: 'no-store' });
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

export function connect() {
  clearTimeout(retryTimer);
  source?.close();
  const es = new EventSource(EVENTS_URL);
  source = es;
  const handle = (event) => {
    if (source !== es) return;
    let frame;
    try {
      frame = JSON.parse(event.data);
    } catch {
      return;
    }
    onFrame(frame, event.type === 'message' ? undefined : event.type);
  };
  es.addEventListener('message', handle);
  // The frames may also come as named events (`event: transition`); both are understood.
  for (const type of FRAME_TYPES) es.addEventListener(type, handle);
  es.addEventListener('open', () => {
    if (source !== es) return;
    retryDelay = 1_000;
    setConnection('connected');
    if (!definitionsLoaded) loadMachines();
  });
  es.addEventListener('error', () => {
    if (source !== es) return;
    if (es.readyState === EventSource.CLOSED) {
      // The browser gave up (an HTTP error, say): try again ourselves, more slowly each time.
      setConnection('disconnected');
      retryTimer = setTimeout(connect, retryDelay);
      retryDelay = Math.min(30_000, retryDelay * 2);
    } else {
      setConnection(everConnected ? 'reconnecting' : 'connecting');
    }
  });
}
