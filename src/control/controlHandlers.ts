import { type PolicyChange, withPolicyChange } from '../db/connections/columnPolicyEdits.js';
import type { ActivityEntry } from '../activity/activityLog.js';
import { type UndoDeps, undoCommand } from './undoCommand.js';
import { checkGrant, unknownTools } from '../auth/grant.js';
import type { Lockout, Lockouts } from '../auth/lockouts.js';
import { type TokenStore, withoutSecrets } from '../auth/tokenStore.js';
import type { PairingService } from '../runtime/pairingService.js';
import { SERVER_VERSION } from '../protocol/serverInfo.js';
import type { AppClock } from '../core/clock.js';
import type { ConnectionCatalog } from '../db/connections/connectionCatalog.js';
import { newConnection, withoutPassword, writeConfig } from '../db/connections/savedConnections.js';
import { type ConnectionChanges, updatedConnection, withAdded } from '../db/connections/connectionEdits.js';
import { probeConnection } from '../db/connections/connectionProbe.js';
import type { ConsentDialogs } from '../runtime/consentDialogs.js';
import type { CustomTools } from '../capabilities/customTools/customTools.js';
import type { ControlHandlers } from './controlServer.js';
import type { SecretHome } from '../platform/secretHome.js';
import type { SshPlaces } from '../db/reach/sshTunnel.js';

export type ControlDeps = {
  catalog: ConnectionCatalog;
  dataDir: string;
  /** Where a connection check's SSH tunnel finds host keys: the application's own. */
  ssh: SshPlaces;
  /** Where saved passwords go when the connections are written. */
  secrets: SecretHome;
  tokens: TokenStore;
  /** The custom tools of tools.json: which are defined (a token's grant may be limited to them), and the console's edits. */
  customTools: Pick<CustomTools, 'names' | 'define' | 'remove'>;
  pairing: PairingService;
  dialogs: ConsentDialogs;
  lockouts: Lockouts;
  clock: AppClock;
  audit(entry: ActivityEntry): void;
  setEnabled(on: boolean): void;
  isEnabled(): boolean;
  /** The activity log and the kept rows of writes, for `activity.undo`. */
  activity: UndoDeps['activity'];
  undoStore: UndoDeps['undoStore'];
};

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new Error(`${field} must be a non-empty string`);
  return value;
}

/** The activity row of a cleared lockout: the limit and who it held, no more. */
function lockoutCleared(lockout: Lockout): ActivityEntry {
  const token = lockout.tokenName === undefined ? {} : { tokenId: lockout.who, tokenName: lockout.tokenName };
  return {
    category: 'admin',
    action: 'lockout.cleared',
    outcome: 'success',
    ...token,
    detail: { limit: lockout.limit, ...(lockout.tokenName === undefined ? { who: lockout.who } : {}) },
  };
}

/** The commands the running application answers on its control socket (see `sluice --help`). */
export function controlHandlers(deps: ControlDeps): ControlHandlers {
  return {
    ping: () => ({ pid: process.pid, version: SERVER_VERSION }),
    ...tokenCommands(deps),
    ...approvalCommands(deps),
    ...connectionCommands(deps),
    ...customToolCommands(deps),
    ...lockoutCommands(deps),
    ...serverCommands(deps),
    // `sluice undo` and the console's Undo: takes back the write an activity row kept.
    'activity.undo': undoCommand(deps),
  };
}

/** `tokens.*`: mint, list and revoke bearer tokens. */
function tokenCommands({ tokens, clock, audit, customTools }: ControlDeps): ControlHandlers {
  return {
    'tokens.create': (p) => {
      const grant = checkGrant(p);
      const unknown = unknownTools(grant.tools, new Set(customTools.names()));
      if (unknown) throw new Error(unknown);
      const { record, plaintext } = tokens.mint({
        name: text(p.name, 'name'),
        level: 'readOnly',
        connections: 'all',
        expiresInDays: null,
        ...grant,
        now: clock.now(),
      });
      audit({ category: 'admin', action: 'token.created', outcome: 'success', tokenId: record.id, tokenName: record.name });
      return { plaintext, id: record.id };
    },
    'tokens.list': () => tokens.list().map(withoutSecrets),
    'tokens.revoke': (p) => {
      const record = tokens.revoke(text(p.id, 'id'), clock.now());
      if (record) audit({ category: 'admin', action: 'token.revoked', outcome: 'success', tokenId: record.id, tokenName: record.name });
      return record ? withoutSecrets(record) : null;
    },
  };
}

/** `customTools.*`: the console's form, which edits tools.json. */
function customToolCommands({ customTools, audit }: ControlDeps): ControlHandlers {
  return {
    'customTools.define': async (p) => {
      await customTools.define(p.tool);
      audit({ category: 'admin', action: 'customTool.defined', outcome: 'success' });
      return { ok: true };
    },
    'customTools.remove': async (p) => {
      await customTools.remove(text(p.name, 'name'));
      audit({ category: 'admin', action: 'customTool.removed', outcome: 'success' });
      return { ok: true };
    },
  };
}

/** `pairing.openUrl` and `approvals.*`: the pairing sheets and the consent dialogs waiting on the user. */
function approvalCommands({ pairing, dialogs }: ControlDeps): ControlHandlers {
  return {
    'pairing.openUrl': (p) => pairing.openLink(text(p.url, 'url')),
    // `all`: also the sheets that ended in the last ten minutes, with what each granted.
    'approvals.list': (p) => [...(p.all === true ? pairing.sheets() : pairing.approvals()), ...dialogs.list()],
    'approvals.approve': (p) => {
      if (dialogs.answer(text(p.id, 'id'), 'approve')) return { ok: true };
      return pairing.approve(text(p.id, 'id'), checkGrant(p));
    },
    'approvals.deny': (p) => (dialogs.answer(text(p.id, 'id'), 'deny') ? { ok: true } : pairing.deny(text(p.id, 'id'))),
  };
}

/** `connections.*`: the saved connections, written to the data folder on every change. */
function connectionCommands(deps: ControlDeps): ControlHandlers {
  const { catalog, dataDir, audit } = deps;
  const save = () => writeConfig(dataDir, { connections: catalog.all() }, deps.secrets);
  return {
    'connections.list': () => catalog.all().map(withoutPassword),
    // `check: true` (the command line): the connection must open and answer before it is saved.
    'connections.add': async ({ check, ...fields }) => {
      const connection = newConnection(fields);
      withAdded(catalog.all(), connection);
      if (check === true) await probeConnection(connection, deps.ssh);
      catalog.add(connection);
      save();
      audit({ category: 'admin', action: 'connection.added', outcome: 'success', connectionId: connection.id });
      return withoutPassword(connection);
    },
    'connections.update': async ({ check, ...p }) => {
      const { name, path, url, externalAccess, aiPolicy, ssh, filesDir } = p as ConnectionChanges;
      const changes = { name, path, url, externalAccess, aiPolicy, ssh, filesDir };
      const connection = updatedConnection(catalog.all(), text(p.id, 'id'), changes);
      if (check === true) await probeConnection(connection, deps.ssh);
      await catalog.update(connection);
      save();
      audit({ category: 'admin', action: 'connection.updated', outcome: 'success', connectionId: connection.id, detail: { externalAccess: connection.externalAccess, aiPolicy: connection.aiPolicy } });
      return withoutPassword(connection);
    },
    // One change to a connection's private columns (issue 30): in force for the next statement.
    'connections.mask': async (p) => {
      const connection = withPolicyChange(catalog.all(), text(p.id, 'id'), p.change as PolicyChange);
      await catalog.update(connection);
      save();
      audit({ category: 'admin', action: 'connection.masking', outcome: 'success', connectionId: connection.id, detail: { rules: connection.columnPolicy?.rules.length ?? 0, exemptTokens: connection.columnPolicy?.exemptTokens.length ?? 0 } });
      return connection.columnPolicy ?? { rules: [], exemptTokens: [] };
    },
    'connections.test': async (p) => {
      const connection = catalog.get(text(p.id, 'id'));
      if (!connection) throw new Error(`no connection with id "${String(p.id)}"`);
      return probeConnection(connection, deps.ssh);
    },
    'connections.remove': async (p) => {
      const id = text(p.id, 'id');
      await catalog.remove(id);
      save();
      audit({ category: 'admin', action: 'connection.removed', outcome: 'success', connectionId: id });
      return { ok: true };
    },
  };
}

/** `lockouts.*`: the callers a limit holds, and clearing them early. */
function lockoutCommands({ lockouts, audit }: ControlDeps): ControlHandlers {
  return {
    'lockouts.list': () => lockouts.list(),
    'lockouts.clear': async (p) => {
      let cleared: Lockout[];
      if (p.all === true && p.id === undefined) cleared = await lockouts.clearAll();
      else if (p.all === undefined) {
        const one = await lockouts.clear(text(p.id, 'id'));
        if (!one) throw new Error('no such lockout (it may have ended)');
        cleared = [one];
      } else throw new Error('name one lockout id, or all: true');
      for (const lockout of cleared) audit(lockoutCleared(lockout));
      return { cleared };
    },
  };
}

/** `server.*`: whether the MCP server answers, and switching it. */
function serverCommands({ isEnabled, setEnabled, audit }: ControlDeps): ControlHandlers {
  return {
    'server.status': () => ({ enabled: isEnabled() }),
    'server.setEnabled': (p) => {
      if (typeof p.enabled !== 'boolean') throw new Error('enabled must be true or false');
      setEnabled(p.enabled);
      audit({ category: 'admin', action: p.enabled ? 'server.enabled' : 'server.disabled', outcome: 'success' });
      return { enabled: p.enabled };
    },
  };
}
