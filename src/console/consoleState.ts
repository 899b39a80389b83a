import type { ActivityLog } from '../activity/activityLog.js';
import { type AppClock, DAY_MS } from '../core/clock.js';
import { withoutPassword } from '../db/connections/savedConnections.js';
import type { ConsentDialogs } from '../runtime/consentDialogs.js';
import type { Lockouts } from '../auth/lockouts.js';
import { type TokenStore, withoutSecrets } from '../auth/tokenStore.js';
import type { ConnectionCatalog } from '../db/connections/connectionCatalog.js';
import type { PairingService } from '../runtime/pairingService.js';
import type { CustomTools } from '../capabilities/customTools/customTools.js';


export type ConsoleStateDeps = {
  clock: AppClock;
  mcpUrl: string;
  enabled(): boolean;
  pairing: PairingService;
  dialogs: ConsentDialogs;
  tokens: TokenStore;
  catalog: ConnectionCatalog;
  activity: ActivityLog;
  lockouts: Lockouts;
  customTools: Pick<CustomTools, 'path' | 'names' | 'refusals'>;
};

/** Everything the console page shows but the activity log (docs/console.md, `GET /api/state`). */
export async function consoleState(deps: ConsoleStateDeps) {
  const now = deps.clock.now();
  const usage = deps.activity.tokenUsage();
  return {
    now,
    server: { enabled: deps.enabled(), mcpUrl: deps.mcpUrl },
    sheets: deps.pairing.sheets(),
    dialogs: deps.dialogs.list(),
    tokens: deps.tokens.list().map((token) => ({
      ...withoutSecrets(token),
      ...(usage.get(token.id) ?? { requests: 0, refusals: 0 }),
    })),
    connections: deps.catalog.all().map(withoutPassword),
    clients: deps.activity.clients(new Date(now - DAY_MS).toISOString()),
    lockouts: await deps.lockouts.list(),
    customTools: { file: deps.customTools.path, names: deps.customTools.names(), refusals: deps.customTools.refusals() },
  };
}
