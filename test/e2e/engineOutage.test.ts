import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_FILE, type SavedConnection, writeConfig } from '../../src/db/connections/savedConnections.js';
import { runSluice, SLUICE_BIN } from '../helpers/cli.js';
import { expectToolError, expectToolSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mcp, mintToken, type RawResponse, sendCancelled, startTestApp, type TestApp } from '../helpers/testApp.js';
import { availableServers, createFixture, type EngineFixture, FIXTURE_BOOKS, runningSleeps, slowSql } from '../helpers/engines.js';

/**
 * A database server that goes away and comes back, end to end: the saved connection points at a TCP proxy
 * in front of the real server, and the proxy is stopped (every piped connection cut, nothing accepted) and
 * started again on the same port. Sluice answers `not_connected` tool errors meanwhile, stays healthy,
 * and recovers on its own. A connection's password never leaves the process: not in tool errors, not in
 * the command line's listing, not in a database error that echoes it.
 *
 * The command line is the built one (`npm run build`). While the application runs in this process, the
 * command line is run asynchronously: it talks to the application over the control socket, which a
 * blocking spawn would never let answer.
 */

/**
 * A TCP proxy on loopback in front of a database server, so a test can make the server "go down"
 * (`stop`: no more connections are accepted, and every connection already piped through is cut) and
 * "come back" (`start`: listening again on the same port) without touching the real server.
 */
type TcpProxy = {
  /** The port the proxy listens on (the same after a restart). */
  readonly port: number;
  readonly running: boolean;
  /** Connections currently piped through (client side). */
  connections(): number;
  /** Stops listening and destroys every piped socket; resolves once the listener is closed. */
  stop(): Promise<void>;
  /** Listens again on the same port (a no-op while running). */
  start(): Promise<void>;
};

async function startTcpProxy(targetPort: number, listenPort = 0, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  let server: Server | undefined;
  let port = listenPort;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const accept = (client: Socket) => {
    const upstream = connect({ host: targetHost, port: targetPort });
    track(client);
    track(upstream);
    clients.add(client);
    client.once('close', () => clients.delete(client));
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    // Either side failing or closing ends the pair at once, as a network cut would.
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut);
    upstream.on('error', cut);
    client.once('close', cut);
    upstream.once('close', cut);
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer(accept);
      next.once('error', reject);
      next.listen({ host: '127.0.0.1', port }, () => {
        next.off('error', reject);
        const address = next.address();
        if (address === null || typeof address === 'string') {
          next.close();
          reject(new Error('the proxy has no TCP address'));
          return;
        }
        port = address.port;
        server = next;
        resolve();
      });
    });

  await listen();

  return {
    get port() {
      return port;
    },
    get running() {
      return server !== undefined;
    },
    connections: () => clients.size,
    async stop() {
      const current = server;
      server = undefined;
      const closed = current ? new Promise<void>((resolve) => current.close(() => resolve())) : Promise.resolve();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    async start() {
      if (server) return;
      await listen();
    },
  };
}

/** A loopback port nothing listens on (bound once by the system, then released). */
async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host: '127.0.0.1', port: 0 }, resolve);
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

const PASSWORD = 'S3cretPassw0rd';

const servers = await availableServers();

type Cli = { status: number | null; stdout: string; stderr: string };

/** The built command line, without blocking this process (the application under test lives in it). */
function sluiceAsync(args: string[]): Promise<Cli> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SLUICE_BIN, ...args], { encoding: 'utf8', timeout: 20_000 }, (error, stdout, stderr) => {
      const code = (error as { code?: unknown } | null)?.code;
      resolve({ status: error ? (typeof code === 'number' ? code : null) : 0, stdout, stderr });
    });
  });
}

/** Waits at most `ms` for `promise`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<{ settled: true; value: T } | { settled: false }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ settled: false }>((resolve) => {
    timer = setTimeout(() => resolve({ settled: false }), ms);
  });
  try {
    return await Promise.race([promise.then((value) => ({ settled: true as const, value })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The URL with another port (and, when given, a password). */
function withPort(url: string, port: number, password?: string): string {
  const out = new URL(url);
  out.port = String(port);
  if (password !== undefined) out.password = password;
  return out.toString();
}

describe.each(servers)('a %s server that goes away and comes back', (engine) => {
  let fixture: EngineFixture;
  let proxy: TcpProxy;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;
  let baseline: number;
  /** The fixture's own URL (straight to the server), and the port nothing listens on. */
  let fixtureUrl: string;
  let nowherePort: number;
  /** Every HTTP body Sluice sent in this suite: none may hold the password. */
  const bodies: string[] = [];
  /**
   * Errors thrown outside any request while the suite runs. Sluice runs in this process, where the test
   * runner catches them; in `sluice serve`, which has no handler, each would end the process.
   */
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(error);

  const keep = (res: RawResponse) => {
    bodies.push(res.text);
    return res;
  };
  const tool = async (name: string, args: Record<string, unknown>, id: string | number = 1) =>
    keep(await callTool(app, name, args, { headers, id }));
  const query = (sql: string, connectionId = 'db') => tool('execute_query', { connection_id: connectionId, sql });
  const running = () => runningSleeps(fixture, 10);

  async function expectWorks(): Promise<void> {
    const out = expectToolSuccess(await query('SELECT count(*) AS n FROM books'));
    expect(out.rows).toEqual([[FIXTURE_BOOKS]]);
  }

  /** A `not_connected` tool error, answered at once (not after a connect timeout); returns its text. */
  async function expectNotConnected(connectionId = 'db'): Promise<string> {
    const started = performance.now();
    const res = await query('SELECT count(*) AS n FROM books', connectionId);
    expect(performance.now() - started).toBeLessThan(3_000);
    return expectToolError(res, 'not_connected');
  }

  async function expectHealthy(): Promise<void> {
    const res = await tool('list_connections', {});
    const ids = expectToolSuccess(res).connections.map((c: { id: string }) => c.id);
    expect(ids).toEqual(expect.arrayContaining(['db', 'nowhere']));
  }

  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    fixture = await createFixture(engine);
    const server = fixture.connection;
    if (!('url' in server)) throw new Error('a server fixture has a URL');
    fixtureUrl = server.url;
    proxy = await startTcpProxy(Number(new URL(fixtureUrl).port || (engine === 'postgres' ? 5432 : 3306)));
    nowherePort = await unusedPort();
    // Trust authentication ignores PostgreSQL's password; MariaDB's root has none, so there the password
    // goes on connections that cannot work: nothing listening, and a refused login through the proxy.
    const connections: SavedConnection[] = [
      { ...server, name: 'Through the proxy', url: withPort(fixtureUrl, proxy.port, engine === 'postgres' ? PASSWORD : undefined) },
      { ...server, id: 'nowhere', name: 'Nothing listens', url: withPort(fixtureUrl, nowherePort, PASSWORD) },
    ];
    if (engine === 'mysql') {
      connections.push({ ...server, id: 'refused', name: 'Wrong password', url: withPort(fixtureUrl, proxy.port, PASSWORD) });
    }
    dataDir = mkdtempSync(join(tmpdir(), `sluice-outage-${engine}-`));
    writeConfig(dataDir, { connections });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} outage`).headers;
    baseline = app.liveActors();
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await app?.dispose();
    await proxy?.stop();
    await fixture?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('with the proxy up, a query works', async () => {
    await expectWorks();
    expect(proxy.connections()).toBeGreaterThan(0);
  });

  it('with the proxy stopped, the next query is a not_connected tool error and the process stays healthy', async () => {
    await proxy.stop();
    const text = await expectNotConnected();
    expect(text).toMatch(/PostgreSQL|MySQL/);
    // A second try while it is still down: the same answer, nothing wedged.
    await expectNotConnected();
    await expectHealthy();
    expect(app.liveActors()).toBe(baseline);
  });

  it('with the proxy started again on the same port, the next query works without restarting Sluice', async () => {
    const port = proxy.port;
    await proxy.start();
    expect(proxy.port).toBe(port);
    await expectWorks();
  });

  it('a statement running when the server goes away ends at once with a not_connected tool error, and nothing crashes', async () => {
    let settled = false;
    const answer = callTool(app, 'execute_query', { connection_id: 'db', sql: slowSql(engine, 10) }, { headers, id: 'cut' }).then((res) => {
      settled = true;
      return keep(res);
    });
    await expect.poll(running, { timeout: 5_000, interval: 25 }).toBe(1);
    expect(settled).toBe(false);
    await proxy.stop();
    const outcome = await within(answer, 5_000);
    if (!outcome.settled) {
      // Frees the request so the next tests start clean; the assertion below reports the failure.
      await sendCancelled(app, 'cut', headers);
      await answer;
    }
    expect(outcome.settled, 'no answer within 5 s of the connection to the server being cut').toBe(true);
    if (outcome.settled) expectToolError(outcome.value, 'not_connected', 'cut');
    // Taken here, so the suite's last check reports only what happened elsewhere.
    const thrown = uncaught.splice(0).map(String);
    expect(thrown, 'an uncaught exception: a real `sluice serve` would have crashed').toEqual([]);
    await expectHealthy();
  });

  it('and once the server is back, queries work again', async () => {
    await proxy.start();
    await expectWorks();
    // Every session the outage broke was thrown away: more statements than a pool holds all succeed.
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => callTool(app, 'execute_query', { connection_id: 'db', sql: `SELECT ${i + 1} AS n` }, { headers, id: i + 1 })),
    );
    answers.forEach((res, i) => expect(expectToolSuccess(keep(res), i + 1).rows).toEqual([[i + 1]]));
  });

  it('a connection to a port where nothing listens is a not_connected tool error', async () => {
    const text = await expectNotConnected('nowhere');
    expect(text).not.toContain(PASSWORD);
    await expectHealthy();
  });

  it.runIf(engine === 'mysql')('a login the server refuses is a not_connected tool error that does not show the password', async () => {
    const text = await expectNotConnected('refused');
    expect(text).toMatch(/Access denied/);
    expect(text).not.toContain(PASSWORD);
  });

  it.runIf(engine === 'postgres')('a database error that echoes the password shows *** instead', async () => {
    const res = await query(`SELECT '${PASSWORD}'::int`);
    const text = expectToolError(res, 'query_failed');
    expect(text).toContain('***');
    expect(text).not.toContain(PASSWORD);
    // The statement itself was fine to run: the connection still works.
    await expectWorks();
  });

  it('no answer Sluice sent in this suite holds the password', async () => {
    const resource = keep(await mcp(app, 'resources/read', { uri: 'sluice://connections' }, { headers }));
    expect(resource.status).toBe(200);
    expect(bodies.length).toBeGreaterThan(10);
    for (const body of bodies) expect(body).not.toContain(PASSWORD);
  });

  it('afterwards nothing is left running in Sluice, and nothing was thrown outside a request', async () => {
    await expect.poll(() => app.liveActors(), { timeout: 2_000, interval: 25 }).toBe(baseline);
    expect(uncaught.map(String)).toEqual([]);
  });

  it('`sluice connections list` (and --json) through the running application shows *** for the password', async () => {
    const table = await sluiceAsync(['connections', 'list', '--data-dir', dataDir]);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).not.toContain(PASSWORD);
    expect(table.stdout).toContain(`:***@127.0.0.1:`);
    expect(table.stdout).toMatch(/^db\s/m);

    const json = await sluiceAsync(['connections', 'list', '--json', '--data-dir', dataDir]);
    expect(json.status, json.stderr).toBe(0);
    expect(json.stdout).not.toContain(PASSWORD);
    const listed = JSON.parse(json.stdout) as { id: string; url?: string }[];
    expect(listed.find((c) => c.id === 'nowhere')?.url).toBe(withPort(fixtureUrl, nowherePort, '***'));
    expect(listed.find((c) => c.id === 'db')?.url).toBe(withPort(fixtureUrl, proxy.port, engine === 'postgres' ? '***' : undefined));
  });

  it('`sluice connections add --url` with a password, while the application runs, is listed and served without it', async () => {
    const port = await unusedPort();
    const url = withPort(fixtureUrl, port, 'pw12345');
    const added = await sluiceAsync(['connections', 'add', '--name', 'Added Live', '--url', url, '--no-check', '--data-dir', dataDir]);
    expect({ status: added.status, stdout: added.stdout, stderr: added.stderr }).toEqual({ status: 0, stdout: 'added added-live\n', stderr: '' });
    // The application knows it at once (the command went through the control socket), and it is unreachable.
    const text = await expectNotConnected('added-live');
    expect(text).not.toContain('pw12345');
    const json = await sluiceAsync(['connections', 'list', '--json', '--data-dir', dataDir]);
    expect(json.stdout).not.toContain('pw12345');
    expect(JSON.parse(json.stdout)).toContainEqual(expect.objectContaining({ id: 'added-live', url: withPort(url, port, '***') }));
  });

  it('with the application stopped, the command line reads the file and still hides the password', async () => {
    await app.stop();
    // The file itself keeps the password (Sluice needs it) and only its owner may read it.
    expect(readFileSync(join(dataDir, CONFIG_FILE), 'utf8')).toContain(PASSWORD);
    expect(statSync(join(dataDir, CONFIG_FILE)).mode & 0o777).toBe(0o600);
    for (const args of [['connections', 'list'], ['connections', 'list', '--json']]) {
      const out = runSluice([...args, '--data-dir', dataDir]);
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).not.toContain(PASSWORD);
      expect(out.stdout).not.toContain('pw12345');
      expect(out.stdout).toContain(':***@127.0.0.1:');
    }
  });
});

describe('`sluice connections add --url` (the command line, Sluice not running)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sluice-connections-cli-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('saves the URL, and lists it with the password as ***', () => {
    const added = runSluice(['connections', 'add', '--name', 'X', '--url', 'postgres://u:pw12345@127.0.0.1:5432/test', '--no-check', '--data-dir', dataDir]);
    expect({ status: added.status, stdout: added.stdout, stderr: added.stderr }).toEqual({ status: 0, stdout: 'added x\n', stderr: '' });

    const table = runSluice(['connections', 'list', '--data-dir', dataDir]);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^x\s+X\s+postgres\s+readOnly\s+askEachTime\s+postgres:\/\/u:\*\*\*@127\.0\.0\.1:5432\/test$/m);
    expect(table.stdout).not.toContain('pw12345');

    const json = runSluice(['connections', 'list', '--json', '--data-dir', dataDir]);
    expect(json.status, json.stderr).toBe(0);
    expect(json.stdout).not.toContain('pw12345');
    expect(JSON.parse(json.stdout)).toContainEqual({
      id: 'x',
      name: 'X',
      engine: 'postgres',
      url: 'postgres://u:***@127.0.0.1:5432/test',
      externalAccess: 'readOnly',
      aiPolicy: 'askEachTime',
    });
  });

  it.each([
    ['no database', 'postgres://u:pw12345@127.0.0.1:5432'],
    ['a scheme of no engine', 'http://u:pw12345@127.0.0.1:5432/test'],
    ['not a URL', 'pw12345'],
    ['no host', 'mysql://u:pw12345@/test'],
  ])('a malformed --url (%s) exits 2 with one line on stderr, saving nothing', (_label, url) => {
    const before = runSluice(['connections', 'list', '--json', '--data-dir', dataDir]).stdout;
    const out = runSluice(['connections', 'add', '--name', 'Bad', '--url', url, '--data-dir', dataDir]);
    expect(out.status).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/^sluice: [^\n]+\n$/);
    expect(out.stderr).not.toContain('pw12345');
    expect(runSluice(['connections', 'list', '--json', '--data-dir', dataDir]).stdout).toBe(before);
  });
});
