import type { ActivityLog } from '../activity/activityLog.js';
import type { AppClock } from '../app/clock.js';
import { withoutPassword } from '../app/config.js';
import type { ConsentDialogs } from '../app/consentDialogs.js';
import { type TokenStore, withoutSecrets } from '../auth/tokenStore.js';
import type { ConnectionCatalog } from '../db/connectionCatalog.js';
import type { PairingService } from '../pairing/pairingService.js';

const DAY_MS = 86_400_000;

export type ConsoleStateDeps = {
  clock: AppClock;
  mcpUrl: string;
  enabled(): boolean;
  pairing: PairingService;
  dialogs: ConsentDialogs;
  tokens: TokenStore;
  catalog: ConnectionCatalog;
  activity: ActivityLog;
};

/** Everything the console page shows but the activity log (docs/console.md, `GET /api/state`). */
export function consoleState(deps: ConsoleStateDeps) {
  const now = deps.clock.now();
  return {
    now,
    server: { enabled: deps.enabled(), mcpUrl: deps.mcpUrl },
    sheets: deps.pairing.sheets(),
    dialogs: deps.dialogs.list(),
    tokens: deps.tokens.list().map(withoutSecrets),
    connections: deps.catalog.all().map(withoutPassword),
    clients: deps.activity.clients(new Date(now - DAY_MS).toISOString()),
  };
}
