// Fetching again after a change: one refresh for a burst of events.

import { loadActivity } from './activity.js';
import { loadState } from './state.js';

let refreshTimer = null;
/** Re-fetches state and activity ~100 ms after the last call (events come in bursts). */
export function scheduleRefresh(delay = 100) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => {
    refreshTimer = null;
    loadState();
    loadActivity();
  }, delay);
}
