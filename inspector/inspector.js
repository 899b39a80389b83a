// Sluice's live actor inspector: machine definitions from GET /api/inspector/machines, actors and
// their transitions from the server-sent events of GET /api/inspector/events (docs/console.md, "The
// inspector feed"). Plain ES modules, no dependencies, no requests beyond those two and the modules.
// This entry module wires the log and the filters, then starts loading.

import { actors } from './actors.js';
import { updateAge } from './cards.js';
import { followLog, refilterLog, wireEventLog } from './eventLog.js';
import { connect, loadMachines } from './feed.js';
import { applyCardFilter, wireFilters } from './filters.js';
import { refreshCounts, renderStatus } from './status.js';

function applyFilters() {
  for (const actor of actors.values()) applyCardFilter(actor);
  refilterLog();
  refreshCounts(true);
  followLog();
}

wireEventLog();
wireFilters(applyFilters);

setInterval(() => {
  for (const actor of actors.values()) if (actor.status !== 'stopped') updateAge(actor);
}, 1_000);

renderStatus();
loadMachines();
connect();
