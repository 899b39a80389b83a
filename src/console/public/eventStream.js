// Live updates: /api/events says when something changed; the status in the header says whether it is open.

import { scheduleRefresh } from './refresh.js';
import { $ } from './shared/dom.js';
import { sessionStream } from './shared/serverEvents.js';

/** The wait before opening the stream again after it dropped, and after Sluice refused it. */
const RECONNECT_MS = 2000;
const REFUSED_RETRY_MS = 5000;

function setLive(kind, text) {
  const el = $('[data-live-status]');
  el.dataset.state = kind;
  $('.live-text', el).textContent = text;
}

let retryTimer = null;
let hadError = false;

function dropped(text, retryMs) {
  setLive('offline', text);
  hadError = true;
  retryTimer = setTimeout(connectEvents, retryMs);
}

const openEvents = sessionStream('/api/events', {
  onOpen() {
    setLive('live', 'Live');
    // Catch up on anything that changed before the stream was open (or while it was down).
    scheduleRefresh(hadError ? 0 : 100);
    hadError = false;
  },
  onEvent(type) {
    if (type === 'changed') scheduleRefresh();
  },
  // An open stream that ended (Sluice stopping, say) or failed comes back soon; a refused one later.
  onEnd: (why) => (why === 'refused' ? dropped('Disconnected', REFUSED_RETRY_MS) : dropped('Reconnecting…', RECONNECT_MS)),
});

export function connectEvents() {
  clearTimeout(retryTimer);
  openEvents();
}
