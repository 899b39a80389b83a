// The console's copy of GET /api/state, fetched at start and after every change, and drawn by the
// renderer that the entry module sets.

import { getJson } from './api.js';
import { syncClock } from './shared/clock.js';
import { $ } from './shared/dom.js';

/** The last state Sluice sent, normalised; null until the first answer. */
export let state = null;
let stateSeq = 0;
let render = () => {};

/** Sets what draws the page from each new state. */
export function renderStateWith(draw) {
  render = draw;
}

export async function loadState() {
  const seq = ++stateSeq;
  try {
    const next = await getJson('/api/state');
    if (seq !== stateSeq) return; // a newer fetch is under way
    if (typeof next.now === 'number') syncClock(next.now);
    state = normalise(next);
    showLoadError(null);
    render();
  } catch (error) {
    if (seq !== stateSeq) return;
    showLoadError(error.message);
  }
}

function normalise(s) {
  return {
    now: s.now ?? Date.now(),
    server: s.server ?? { enabled: false, mcpUrl: '' },
    sheets: Array.isArray(s.sheets) ? s.sheets : [],
    dialogs: Array.isArray(s.dialogs) ? s.dialogs : [],
    tokens: Array.isArray(s.tokens) ? s.tokens : [],
    connections: Array.isArray(s.connections) ? s.connections : [],
    clients: Array.isArray(s.clients) ? s.clients : [],
    lockouts: Array.isArray(s.lockouts) ? s.lockouts : [],
    customTools: {
      file: s.customTools?.file ?? '',
      names: Array.isArray(s.customTools?.names) ? s.customTools.names : [],
      refusals: Array.isArray(s.customTools?.refusals) ? s.customTools.refusals : [],
    },
  };
}

function showLoadError(message) {
  const el = $('[data-load-error]');
  el.hidden = !message;
  el.textContent = message ? `Could not load the console: ${message}` : '';
}
