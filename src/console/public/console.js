// The Sluice console page: plain ES2022 modules, no build step, no dependencies, no external requests.
// It renders GET /api/state, re-fetches it on every `changed` event of /api/events, and sends the
// user's answers as POST /api/<command> (docs/console.md). Rendering is keyed by id and updates
// nodes in place, so what the user is typing or choosing survives live updates. This entry module
// draws every screen from each new state and starts the page; each screen is a module of its own.

import { loadActivity, syncTokenFilter, wireActivityFilters } from './activity.js';
import { wireUndoDialog } from './activityUndo.js';
import { renderSheets, tickAllSheets } from './approvals.js';
import { renderClients } from './clients.js';
import { renderMasks, wireMaskForm } from './connectionMasks.js';
import { renderConnections, wireConnectionForm } from './connections.js';
import { renderCustomTools, wireCustomToolForm } from './customTools.js';
import { connectEvents } from './eventStream.js';
import { renderLockouts, wireLockouts } from './lockouts.js';
import { renderServer, wireServerSwitch } from './serverSwitch.js';
import { $ } from './shared/dom.js';
import { currentSession, sessionRefused } from './shared/session.js';
import { loadState, renderStateWith, state } from './state.js';
import { renderTokens, wireTokenForm } from './tokens.js';
import { renderCounts } from './waitingCounts.js';
import { renderDialogs } from './writeConfirmations.js';

function render() {
  $('main').removeAttribute('data-loading');
  renderServer();
  renderSheets();
  renderDialogs();
  renderTokens();
  renderConnections();
  renderMasks();
  renderCustomTools();
  renderClients();
  renderLockouts();
  syncTokenFilter();
  renderCounts();
}

function start() {
  if (currentSession() === null) return sessionRefused(null);
  wireServerSwitch();
  wireTokenForm();
  wireCustomToolForm();
  wireConnectionForm();
  wireMaskForm();
  wireActivityFilters();
  wireUndoDialog();
  wireLockouts();
  // Headings focused programmatically drop their tabindex again once the user moves on.
  document.addEventListener('focusout', (event) => {
    if (event.target instanceof window.HTMLElement && event.target.matches('h2[tabindex="-1"]')) {
      event.target.removeAttribute('tabindex');
    }
  });
  renderStateWith(render);
  loadState();
  loadActivity();
  connectEvents();
  setInterval(tickAllSheets, 1000);
  setInterval(() => {
    if (!state) return;
    renderTokens();
    renderClients();
    renderLockouts();
  }, 30_000);
  if (location.hash.length > 1) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
}

start();
