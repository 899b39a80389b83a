// Live updates: /api/events says when something changed; the status in the header says whether it is open.

import { scheduleRefresh } from './refresh.js';
import { $ } from './shared/dom.js';
import { loadState, sessionEnded } from './state.js';

function setLive(kind, text) {
  const el = $('[data-live-status]');
  el.dataset.state = kind;
  $('.live-text', el).textContent = text;
}

let events = null;
let hadError = false;

export function connectEvents() {
  events?.close();
  events = new EventSource('/api/events');
  events.addEventListener('open', () => {
    setLive('live', 'Live');
    // Catch up on anything that changed before the stream was open (or while it was down).
    scheduleRefresh(hadError ? 0 : 100);
    hadError = false;
  });
  events.addEventListener('changed', () => scheduleRefresh());
  events.addEventListener('error', () => {
    hadError = true;
    if (events.readyState === EventSource.CLOSED) {
      // The server refused the stream (e.g. the session ended): find out why, and try again later
      // unless the session is over.
      setLive('offline', 'Disconnected');
      loadState().then(() => {
        if (sessionEnded) setLive('offline', 'Session ended');
        else setTimeout(connectEvents, 5000);
      });
    } else {
      setLive('offline', 'Reconnecting…');
    }
  });
}
