import { maskingKey } from '../platform/maskingKey.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ACTIVITY_FILE, ActivityLog, type ActivityEntry } from '../activity/activityLog.js';
import { UndoStore, withUndoState } from '../activity/undoStore.js';
import { UNDO_ON, type UndoSettings } from '../capabilities/undoOutlook.js';
import type { UndoKeeping } from '../capabilities/types.js';
import { Authenticator } from '../auth/authenticator.js';
import { BridgeToken } from '../auth/bridgeToken.js';
import { CallerLimits, type CallerLimitPolicy } from '../auth/callerLimits.js';
import { FailureLockout } from '../auth/failureLockout.js';
import { Lockouts } from '../auth/lockouts.js';
import { type UnverifiedBearerPolicy, UnverifiedBearers } from '../auth/unverifiedBearers.js';
import { RequestStateSigner } from '../auth/requestState.js';
import { TOKENS_FILE, TokenStore } from '../auth/tokenStore.js';
import { createMethodTable } from '../capabilities/methods.js';
import { builtinCapabilities, CapabilityRegistry } from '../capabilities/registry.js';
import type { CapabilityModules } from '../capabilities/types.js';
import { CustomTools } from '../capabilities/customTools/customTools.js';
import { ConnectionCatalog } from '../db/connections/connectionCatalog.js';
import { SqliteProcessPool, type SqlitePoolSettings, sqlitePoolSettings } from '../db/engines/registry.js';
import { type SshPlaces, sshPlaces } from '../db/reach/sshTunnel.js';
import { CONFIG_FILE } from '../db/connections/savedConnections.js';
import { QueryHistory } from '../db/results/queryHistory.js';
import { deliverCallback } from '../pairing/deliverCallback.js';
import { PairingService } from '../runtime/pairingService.js';
import { startSupervisor } from '../runtime/machines.js';
import { CursorCodec } from '../protocol/cursor.js';
import { SERVER_VERSION } from '../protocol/serverInfo.js';
import type { Limits } from '../http/connectionSlots.js';
import { createMcpHttpServer, type HttpDeps, type McpHttpServer } from '../http/httpServer.js';
import type { RequestTrace } from '../http/mcp/mcpPost.js';
import { type AppClock, every, systemClock } from '../core/clock.js';
import { controlHandlers } from '../control/controlHandlers.js';
import type { DesktopNotifier } from '../platform/desktopNotification.js';
import { openConsoleLink } from '../console/consoleOpenPage.js';
import { chooseSecretHome, describeSecretHome, type SecretHome } from '../platform/secretHome.js';
import { raiseApprovalNotices } from '../runtime/approvalNotices.js';
import { ConsentDialogs } from '../runtime/consentDialogs.js';
import { InflightRequests } from '../runtime/inflightRequests.js';
import { HeldReads } from '../runtime/heldReads.js';
import { LegacySessions } from '../runtime/legacySessions.js';
import { Subscriptions } from '../runtime/subscriptions.js';
import { assertNotRunning, type ControlHandlers, type ControlServer, startControlServer } from '../control/controlServer.js';
import { loadOrCreateConfig } from './demo.js';
import { removeHandshake, writeHandshake } from '../core/handshake.js';
import { removeStaleTempFiles } from '../core/atomicFile.js';
import { ChangeSignal } from '../console/changeSignal.js';
import { ConsoleAccess } from '../console/consoleAccess.js';
import { type ConsoleDeps, type ConsoleServer, startConsoleServer } from '../console/consoleServer.js';
import { consoleState } from '../console/consoleState.js';
import { InspectorFeed } from '../console/inspectorFeed.js';
import { machineGraphs } from '../console/machineGraphs.js';
import { APPLICATION, CALLER_LIMITS, EXCHANGE, TRANSPORT } from '../core/contract.js';

export type AppOptions = {
  dataDir: string;
  /** Where token secrets and database passwords are kept; chosen by probing the OS store when absent. */
  secrets?: SecretHome;
  /** A port to bind; `0` for any. Absent: the preferred port, or any when it is busy. */
  port?: number;
  /** Bearer authentication (on unless `--no-auth`). */
  auth?: boolean;
  /** The clock of every actor and of every "now"; tests pass a SimulatedClock. */
  clock?: AppClock;
  /** Capability modules served besides the built-in ones (tests, the conformance fixtures). */
  extraCapabilities?: CapabilityModules[];
  onRequestEnd?: (trace: RequestTrace) => void;
  /**
   * Undo (issue 31): off when false or when the config file says `"undo": false` (`sluice serve
   * --no-undo`); tests lower the bounds of what one write keeps.
   */
  undo?: Partial<UndoSettings>;
  /** How pairing callbacks reach the client; the operating system's way unless a test says otherwise. */
  deliver?: (url: URL) => Promise<void>;
  /** Transport limits; the contract's values unless a test shortens them. */
  limits?: Limits;
  callerLimits?: CallerLimitPolicy;
  /** The shared budget of bearer tokens that do not verify; fuzzers raise it. */
  unverifiedBearers?: UnverifiedBearerPolicy;
  /** The console's port; `0` for any, `false` for no console. Absent: the preferred one, or any when busy. */
  consolePort?: number | false;
  /** How the console is started: `startConsoleServer` unless a test slows it down or makes it fail. */
  startConsole?: typeof startConsoleServer;
  /** Desktop notices of approvals waiting; none when absent (`sluice serve` passes the system's). */
  notifier?: DesktopNotifier;
  /** The SQLite query pool: from the contract and `SLUICE_SQLITE_PROCESSES`, unless a test changes it. */
  sqlitePool?: Partial<SqlitePoolSettings>;
  /** The home directory whose `.ssh` SSH tunnels read (config, keys, known hosts): the user's unless a test gives one. */
  sshHome?: string;
  /** Where the application says what a person must fix (a refused custom tool): standard error unless a test listens. */
  notice?: (line: string) => void;
};

export type App = {
  readonly port: number;
  readonly url: string;
  readonly dataDir: string;
  readonly tokens: TokenStore;
  readonly pairing: PairingService;
  readonly dialogs: ConsentDialogs;
  readonly activity: ActivityLog;
  /** The custom tools of tools.json. */
  readonly customTools: CustomTools;
  /** The console, unless the application runs without one. */
  readonly console: ConsoleServer | undefined;
  /** Live children of the supervisor: back to its baseline once every request, code and sheet is done. */
  liveActors(): number;
  stop(): Promise<void>;
};

/** The stores the application reads and writes, opened from the data folder. */
type Stores = {
  dataDir: string;
  clock: AppClock;
  secrets: SecretHome;
  sqlite: SqliteProcessPool;
  ssh: SshPlaces;
  catalog: ConnectionCatalog;
  registry: CapabilityRegistry;
  /** The custom tools of tools.json, kept in `registry`. */
  customTools: CustomTools;
  tokens: TokenStore;
  activity: ActivityLog;
  /** Whether approved writes keep their rows, and the store they are kept in (support dir, `undo/`). */
  undo: UndoKeeping & { store: UndoStore };
  /** Told of every change the console shows. */
  changed: ChangeSignal;
  /** Records an activity row and tells the console. */
  audit(entry: ActivityEntry): void;
};

/** The supervisor and the actors it runs, and the switch the console turns the MCP server off with. */
type Actors = {
  supervisor: ReturnType<typeof startSupervisor>;
  inspector: InspectorFeed;
  requests: InflightRequests;
  subscriptions: Subscriptions;
  heldReads: HeldReads;
  dialogs: ConsentDialogs;
  pairing: PairingService;
  /** False while the user has switched the MCP server off; a pairing request switches it back on. */
  serving: { enabled: boolean };
};

/** Who may call, and how often. */
type Admission = {
  bridgeToken: BridgeToken;
  callerLimits: CallerLimits;
  exchangeLockout: FailureLockout;
  lockouts: Lockouts;
  authenticator: Authenticator;
};

/** What startApp's steps share, made in order: the stores, the actors over them, the admission checks. */
type Parts = Stores & Actors & Admission & { options: AppOptions };

/** The servers listening, once bound. */
type Listening = { port: number; control: ControlServer; http: McpHttpServer; console: ConsoleServer | undefined };

export async function startApp(options: AppOptions): Promise<App> {
  const stores = await openStores(options);
  const actors = startActors(stores, options);
  const parts: Parts = { ...stores, ...actors, ...admission(stores, options), options };
  const http = createMcpHttpServer(httpDeps(parts), options.limits ?? TRANSPORT);
  const commands = appCommands(parts);
  const control = await startControlServer(parts.dataDir, commands);
  const listening = await listenOrClose(parts, commands, control, http);
  const stopAnnouncing = announce(parts, listening);
  // Only now: a command line that hears back finds the MCP server and the console in the handshake.
  control.open();
  return appHandle(parts, listening, stopAnnouncing);
}

/** Claims the data folder (refused while another Sluice runs on it) and opens what is kept there. */
async function openStores(options: AppOptions): Promise<Stores> {
  const { dataDir } = options;
  const clock = options.clock ?? systemClock;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  await assertNotRunning(dataDir);
  removeStaleTempFiles(dataDir);
  const secrets = options.secrets ?? chooseSecretHome(dataDir);
  const config = loadOrCreateConfig(dataDir, secrets);
  const sqlite = new SqliteProcessPool({ ...sqlitePoolSettings(process.env), ...options.sqlitePool }, clock);
  const ssh = sshPlaces(dataDir, options.sshHome);
  const catalog = new ConnectionCatalog(config.connections, clock, ssh, sqlite, maskingKey(dataDir));
  const registry = new CapabilityRegistry(builtinCapabilities, ...(options.extraCapabilities ?? []));
  const tokens = TokenStore.open(join(dataDir, TOKENS_FILE), secrets);
  // Said once both files are read, so that a broken one is the first line a person sees.
  secrets.notice(describeSecretHome(secrets, [TOKENS_FILE, CONFIG_FILE]));
  const activity = ActivityLog.open(join(dataDir, ACTIVITY_FILE), { now: () => clock.now() });
  const undo = { settings: { ...UNDO_ON, ...(config.undo === false ? { enabled: false } : {}), ...options.undo }, store: UndoStore.open(dataDir, { now: () => clock.now() }) };
  const changed = new ChangeSignal(clock);
  const audit = (entry: ActivityEntry) => {
    activity.record(entry);
    changed.notify(entry.action);
  };
  catalog.changes.subscribe((change) => changed.notify(change.type));
  const customTools = new CustomTools({
    dataDir,
    registry,
    catalog,
    clock,
    notice: options.notice ?? ((line) => process.stderr.write(`sluice: ${line}\n`)),
    changed: () => changed.notify('tools'),
  });
  await customTools.reload();
  return { dataDir, clock, secrets, sqlite, ssh, catalog, registry, customTools, tokens, activity, undo, changed, audit };
}

/** The supervisor, and the actors of requests, subscriptions, consent dialogs and pairing under it. */
function startActors({ clock, catalog, registry, tokens, changed, audit }: Stores, options: AppOptions): Actors {
  const supervisor = startSupervisor({
    clock,
    childDone: (done) => {
      requests.keys.reaped(done.actorId);
      subscriptions.keys.reaped(done.actorId);
      heldReads.keys.reaped(done.actorId);
      pairing.childDone(done);
    },
  });
  // Every actor starting or ending changes the supervisor's children: the console shows those.
  supervisor.subscribe(() => changed.notify('actors'));
  const inspector = new InspectorFeed(
    supervisor,
    () => clock.now(),
    (id) => (id === 'bridge' ? 'stdio bridge' : tokens.get(id)?.name),
  );

  const serving = { enabled: true };
  const requests = new InflightRequests(supervisor);
  const subscriptions = new Subscriptions(supervisor, catalog, clock, (listener) => registry.onToolsChanged(listener));
  const dialogs = new ConsentDialogs(supervisor, clock);
  const heldReads = new HeldReads(supervisor, clock);
  // A removed or moved connection's held reads give their sessions back before its pools close.
  catalog.beforeRetire((id) => heldReads.releaseConnection(id));
  // Revocation is immediate: the token's running requests end with -33002.
  tokens.onRevoke((record) => requests.revoke(record.id));
  const pairing = new PairingService({
    supervisor,
    tokens,
    clock,
    connections: () => catalog.all(),
    customToolNames: () => registry.customToolNames(),
    deliver: options.deliver ?? ((url) => deliverCallback(url, clock)),
    audit,
    onPairingRequested: () => {
      serving.enabled = true;
    },
  });
  return { supervisor, inspector, requests, subscriptions, dialogs, heldReads, pairing, serving };
}

/** Bearer authentication, the stdio bridge's token, and the limits and lockouts of callers. */
function admission({ clock, tokens, audit }: Stores, options: AppOptions): Admission {
  const bridgeToken = new BridgeToken();
  const unverified = new UnverifiedBearers(() => clock.now(), options.unverifiedBearers);
  const callerLimits = new CallerLimits(options.callerLimits ?? CALLER_LIMITS);
  const exchangeLockout = new FailureLockout(EXCHANGE.lockout);
  const lockouts = new Lockouts({
    exchange: exchangeLockout,
    unverified,
    callers: callerLimits,
    now: () => clock.now(),
    tokenName: (id) => tokens.get(id)?.name,
  });
  const authenticator = new Authenticator({
    tokens: options.auth === false ? undefined : tokens,
    bridge: bridgeToken,
    unverified,
    clock,
    audit,
  });
  return { bridgeToken, callerLimits, exchangeLockout, lockouts, authenticator };
}

/** The MCP endpoint's and the pairing exchange's dependencies. */
function httpDeps(parts: Parts): HttpDeps {
  const { registry, catalog, authenticator, callerLimits, serving, requests, clock, dialogs, subscriptions, heldReads, supervisor, audit, undo, options } = parts;
  return {
    mcp: {
      methods: createMethodTable(registry, new CursorCodec()),
      catalog,
      history: new QueryHistory(),
      authenticate: (req) => authenticator.authenticate(req),
      limits: callerLimits,
      enabled: () => serving.enabled,
      requests,
      signer: new RequestStateSigner(() => clock.now()),
      dialogs,
      subscriptions,
      heldReads,
      sessions: new LegacySessions(supervisor, clock),
      clock,
      audit,
      undo,
      ...(options.onRequestEnd ? { onRequestEnd: options.onRequestEnd } : {}),
    },
    exchange: { pairing: parts.pairing, lockout: parts.exchangeLockout, audit },
  };
}

/** The commands of the control socket, which the console's page sends too. */
function appCommands(parts: Parts): ControlHandlers {
  const { catalog, customTools, dataDir, ssh, secrets, tokens, pairing, dialogs, lockouts, clock, audit, serving, activity, undo } = parts;
  return controlHandlers({
    activity,
    undoStore: undo.store,
    customTools,
    catalog,
    dataDir,
    ssh,
    secrets,
    tokens,
    pairing,
    dialogs,
    lockouts,
    clock,
    audit,
    setEnabled: (on) => (serving.enabled = on),
    isEnabled: () => serving.enabled,
  });
}

/** Binds the MCP server, then the console (unless there is none); closes the control socket and the MCP server if either fails. */
async function listenOrClose(parts: Parts, commands: ControlHandlers, control: ControlServer, http: McpHttpServer): Promise<Listening> {
  const { options } = parts;
  let port: number;
  let consoleServer: ConsoleServer | undefined;
  try {
    port = await listenPreferred(http.listen, options.port, APPLICATION.preferredPort);
    if (options.consolePort !== false) {
      const deps = consoleDeps(parts, commands, port);
      const startConsole = options.startConsole ?? startConsoleServer;
      await listenPreferred(
        async (candidate) => (consoleServer = await startConsole(deps, candidate, options.limits ?? TRANSPORT)).port,
        options.consolePort,
        APPLICATION.preferredConsolePort,
      );
    }
  } catch (error) {
    await control.close();
    await http.close();
    throw error;
  }
  return { port, control, http, console: consoleServer };
}

/** What the console shows and answers with, the MCP server being on `port`. */
function consoleDeps(parts: Parts, commands: ControlHandlers, port: number): ConsoleDeps {
  const { dataDir, clock, serving, pairing, dialogs, tokens, catalog, activity, lockouts, changed, inspector, customTools } = parts;
  return {
    access: new ConsoleAccess(dataDir, clock),
    commands,
    state: () =>
      consoleState({ clock, mcpUrl: `http://127.0.0.1:${port}/mcp`, enabled: () => serving.enabled, pairing, dialogs, tokens, catalog, activity, lockouts, customTools }),
    activity: (query) => activity.list(query).map((row) => withUndoState(row, parts.undo.store)),
    onChange: (listener) => changed.subscribe(listener),
    inspector,
    machines: machineGraphs(),
    clock,
  };
}

/**
 * Once listening: warms the SQLite pool, watches tools.json, writes the handshake clients find the
 * server by, flushes token use on a timer and raises approval notices. Returns what stops the timer and the notices.
 */
function announce(parts: Parts, listening: Listening): () => void {
  const { dataDir, sqlite, bridgeToken, clock, tokens, supervisor, customTools, options } = parts;
  const server = listening.console;
  // Watched once serving: a start that fails leaves no watcher holding the process open.
  customTools.watch();
  // Started with the server, so that the first SQLite statement does not wait for a process to start.
  sqlite.warm();
  writeHandshake(dataDir, {
    port: listening.port,
    pid: process.pid,
    version: SERVER_VERSION,
    bridgeToken: bridgeToken.plaintext,
    ...(server ? { consolePort: server.port } : {}),
  });
  const stopFlushing = every(clock, APPLICATION.tokenFlushMs, () => tokens.flush());
  // A click on a notice opens the console; a browser that cannot be started changes nothing else.
  const openConsole = server ? () => void openConsoleLink(dataDir, server.openUrl()).catch(() => undefined) : undefined;
  const notices = options.notifier ? raiseApprovalNotices(supervisor, options.notifier, openConsole) : undefined;
  return () => {
    stopFlushing();
    notices?.stop();
  };
}

/** The running application; `stop` ends it in order, once however often it is called. */
function appHandle(parts: Parts, listening: Listening, stopAnnouncing: () => void): App {
  const { dataDir, tokens, pairing, dialogs, activity, supervisor, catalog, customTools, heldReads } = parts;
  const { port, control, http, console: consoleServer } = listening;
  let stopped: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    dataDir,
    tokens,
    pairing,
    dialogs,
    activity,
    customTools,
    console: consoleServer,
    liveActors: () => Object.keys(supervisor.getSnapshot().children).length,
    stop() {
      stopped ??= (async () => {
        removeHandshake(dataDir);
        stopAnnouncing();
        await control.close();
        await consoleServer?.close();
        await http.close();
        await customTools.close();
        // Closing the HTTP server ended the held reads (server.stopping): their sessions come back first.
        await heldReads.closed();
        await catalog.close();
        supervisor.stop();
        tokens.flush();
        activity.close();
      })();
      return stopped;
    },
  };
}

/** Binds `port` if one was named, else `preferred`, else (when that one is busy) any free port. */
async function listenPreferred(
  listen: (port: number) => Promise<number>,
  port: number | undefined,
  preferred: number,
): Promise<number> {
  if (port !== undefined) return listen(port);
  try {
    return await listen(preferred);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return listen(0);
  }
}
