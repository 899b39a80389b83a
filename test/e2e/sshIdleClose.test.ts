import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendants, sshdProblem, startSshd, type TestSshd } from '../helpers/sshServer.js';
import { SteppingClock } from '../helpers/steppingClock.js';
import { SSH } from '../../src/core/contract.js';
import { openDatabase } from '../../src/db/connections/connectionCatalog.js';
import type { Database } from '../../src/db/database.js';
import { valuesOf } from '../../src/db/database.js';
import type { SavedConnection } from '../../src/db/connections/savedConnections.js';
import { availableServers, MYSQL_URL, POSTGRES_URL, type ServerEngine } from '../helpers/engines.js';

/**
 * An SSH tunnel with no database session through it for `SSH.idleCloseMs` is closed, on the app clock
 * (a SteppingClock here), and the next statement opens it again; against a real sshd of the suite's own.
 * The drivers' pools keep an idle session (and so the tunnel's channel) for 30 s of real time; the test
 * ends that session on the server, as the pool's idle timeout would, so that the tunnel is left empty.
 * The keepalive (ssh2's own `keepaliveInterval`, every 15 s of real time) is not asserted here: it runs
 * on ssh2's timers, not the app clock, and watching it would take 15 s or more of real time per check.
 */
const sshdMissing = sshdProblem('SSH idle close');

const servers = sshdMissing ? [] : await availableServers();
const URLS: Record<ServerEngine, string> = { postgres: POSTGRES_URL, mysql: MYSQL_URL };
const user = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
const dir = mkdtempSync(join(tmpdir(), 'sluice-sshd-idle-'));
const file = (name: string) => join(dir, name);

function keygen(name: string): string {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file(name)]);
  return file(name);
}

let sshd: TestSshd | undefined;
let clientKey: string;
const knownHosts = file('known_hosts');

beforeAll(async () => {
  if (sshdMissing || servers.length === 0) return;
  const hostKey = keygen('host_key');
  clientKey = keygen('client_key');
  writeFileSync(file('authorized_keys'), readFileSync(`${clientKey}.pub`, 'utf8'));
  sshd = await startSshd(dir, hostKey, file('authorized_keys'));
  writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${readFileSync(`${hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}\n`);
});

afterAll(() => {
  sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const read = (db: Database, sql: string) => db.read(sql, { maxRows: 10, timeoutMs: 20_000, signal: new AbortController().signal });

/** Polls `check` every 50 ms of real time until it holds, for at most `ms`. */
async function until(check: () => boolean, ms = 5_000): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < ms; ) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/** Ends the server session `id` from a session of the test's own (not through the tunnel). */
async function endSession(engine: ServerEngine, id: number): Promise<void> {
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query('SELECT pg_terminate_backend($1)', [id]);
    } finally {
      await client.end();
    }
  } else {
    const connection = await mysql.createConnection(MYSQL_URL);
    try {
      await connection.query(`KILL ${Number(id)}`);
    } finally {
      await connection.end();
    }
  }
}

const SESSION_ID: Record<ServerEngine, string> = { postgres: 'SELECT pg_backend_pid()', mysql: 'SELECT CONNECTION_ID()' };

describe.skipIf(servers.length === 0)('SSH tunnel idle close', () => {
  it.each(servers)('%s: closes after SSH.idleCloseMs on the app clock with nothing through it, and the next query reopens it', async (engine) => {
    const clock = new SteppingClock();
    const connection: SavedConnection = {
      id: 'db',
      name: 'Tunneled',
      engine,
      url: URLS[engine],
      externalAccess: 'readOnly',
      aiPolicy: 'askEachTime',
      ssh: { host: '127.0.0.1', port: sshd!.port, user, keyFile: clientKey },
    };
    const sessions = () => descendants(sshd!.process.pid!);
    // The suite's directory stands for the home: it has no .ssh, so nothing of the person's is read.
    const db = openDatabase(connection, clock, { knownHostsFile: knownHosts, home: dir });
    try {
      // The readiness probe's forks (test/helpers/sshServer.ts) may still be ending under load: none is this test's.
      expect(await until(() => sessions().length === 0)).toBe(true);
      const id = Number(valuesOf((await read(db, SESSION_ID[engine])).rows)[0]![0]);
      expect(sessions().length).toBeGreaterThan(0);
      const opened = sessions();

      // While the pool holds its session the tunnel has a channel open and no idle timer.
      expect(clock.pendingTimers()).toBe(0);
      clock.advance(2 * SSH.idleCloseMs);
      expect(sessions()).toEqual(opened);

      await endSession(engine, id);
      // The channel closes on the server's end of the session: the idle timer starts on the app clock.
      expect(await until(() => clock.pendingTimers() === 1)).toBe(true);
      clock.advance(SSH.idleCloseMs - 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sessions()).toEqual(opened);

      clock.advance(1);
      expect(await until(() => sessions().length === 0)).toBe(true);
      expect(clock.pendingTimers()).toBe(0);

      expect(valuesOf((await read(db, 'SELECT 6 * 7')).rows)).toEqual([[42]]);
      expect(sessions().length).toBeGreaterThan(0);
      expect(sessions()).not.toEqual(opened);
    } finally {
      await db.close();
    }
  });
});
