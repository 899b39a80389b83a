import { execFileSync, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendants, sshdProblem, startSshd, type TestSshd } from '../helpers/sshServer.js';
import { systemClock } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connections/connectionCatalog.js';
import { parseServerUrl } from '../../src/db/connections/connectionUrl.js';
import { PostgresDatabase } from '../../src/db/engines/postgres/postgresDatabase.js';
import { MysqlDatabase } from '../../src/db/engines/mysql/mysqlDatabase.js';
import { SshTunnel } from '../../src/db/reach/sshTunnel.js';
import type { Database } from '../../src/db/database.js';
import { type SavedConnection, writeConfig } from '../../src/db/connections/savedConnections.js';
import type { SshOptions } from '../../src/db/reach/sshOptions.js';
import { runSluice } from '../helpers/cli.js';
import { availableServers, createFixture, MYSQL_URL, POSTGRES_URL, type ServerEngine, slowSql } from '../helpers/engines.js';
import { engineModule } from '../../src/db/engines/registry.js';
import { UNDO } from '../../src/core/contract.js';

/**
 * SSH tunnels against a real OpenSSH server this suite starts on a free loopback port, as the current
 * user, with a host key and authorized_keys of its own. Without /usr/sbin/sshd the suite fails in CI
 * and is skipped, with the reason printed, elsewhere.
 */
const sshdMissing = sshdProblem('SSH tunnel');

const servers = sshdMissing ? [] : await availableServers();
const URLS: Record<ServerEngine, string> = { postgres: POSTGRES_URL, mysql: MYSQL_URL };
const user = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
const dir = mkdtempSync(join(tmpdir(), 'sluice-sshd-'));
const file = (name: string) => join(dir, name);

function keygen(name: string, passphrase = '', type = 'ed25519'): string {
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', passphrase, '-C', name, '-f', file(name)]);
  return file(name);
}

/** A public key file's type and key, as a known-hosts line has them. */
const publicKeyOf = (publicKey: string) => readFileSync(publicKey, 'utf8').split(' ').slice(0, 2).join(' ');

/**
 * A home directory of the test's own, standing for the person's `~` (a test never reads the real
 * `~/.ssh`), with `files` under its `.ssh`.
 */
function homeWith(files: Record<string, string> = {}): string {
  const home = mkdtempSync(join(dir, 'home-'));
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(home, '.ssh', name), text);
  return home;
}

/** `SHA256:…` as `ssh-keygen -l` prints it for a public key file. */
const fingerprintOf = (publicKey: string) => execFileSync('ssh-keygen', ['-l', '-f', publicKey], { encoding: 'utf8' }).split(' ')[1]!;

let sshd: TestSshd | undefined;
let port: number;
let clientKey: string;
let hostFingerprint: string;
/** The sshd's second host key, which it presents only to a client that asks for ECDSA first. */
let ecdsaHostKey: string;

beforeAll(async () => {
  if (sshdMissing) return;
  const hostKey = keygen('host_key');
  hostFingerprint = fingerprintOf(`${hostKey}.pub`);
  ecdsaHostKey = keygen('host_key_ecdsa', '', 'ecdsa');
  clientKey = keygen('client_key');
  keygen('wrong_key');
  keygen('locked_key', 'test-passphrase');
  writeFileSync(file('authorized_keys'), `${readFileSync(`${clientKey}.pub`, 'utf8')}${readFileSync(file('locked_key.pub'), 'utf8')}`);
  sshd = await startSshd(dir, [hostKey, ecdsaHostKey], file('authorized_keys'));
  port = sshd.port;
});

afterAll(() => {
  sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const read = (db: Database, sql: string) => db.read(sql, { maxRows: 10, timeoutMs: 20_000, signal: new AbortController().signal });

describe.skipIf(servers.length === 0)('SSH tunnels', () => {
  const hostName = () => `[127.0.0.1]:${port}`;
  const tunnelTo = (engine: ServerEngine, ssh: Partial<SshOptions>, id = 'db'): SavedConnection => ({
    id,
    name: 'Tunneled',
    engine,
    url: URLS[engine],
    externalAccess: 'readOnly',
    aiPolicy: 'askEachTime',
    ssh: { host: '127.0.0.1', port, user, keyFile: clientKey, ...ssh },
  });

  it('refuses an unknown host key, naming its fingerprint, and `trust-host` accepts it', async () => {
    const dataDir = mkdtempSync(join(dir, 'data-'));
    const connection = tunnelTo(servers[0]!, {});
    writeConfig(dataDir, { connections: [connection] });
    const knownHosts = join(dataDir, 'known_hosts');
    const db = openDatabase(connection, systemClock, { knownHostsFile: knownHosts, home: homeWith() });
    try {
      await expect(read(db, 'SELECT 1')).rejects.toThrow(
        `the SSH host key of ${hostName()} is not known: ssh-ed25519 ${hostFingerprint}. ` +
          "If that is the server's key, accept it with: sluice connections trust-host db",
      );
      const trusted = runSluice(['connections', 'trust-host', 'db', '--data-dir', dataDir], { SLUICE_SECRETS: 'file', HOME: homeWith() });
      expect(trusted.stderr).toBe('');
      expect(trusted.stdout).toBe(`trusted ${hostName()} ssh-ed25519 ${hostFingerprint}\n`);
      expect(readFileSync(knownHosts, 'utf8')).toBe(`${hostName()} ${publicKeyOf(file('host_key.pub'))}\n`);
      expect((await read(db, 'SELECT 1 + 1')).rows).toEqual([[2]]);
      const again = runSluice(['connections', 'trust-host', 'db', '--data-dir', dataDir], { SLUICE_SECRETS: 'file', HOME: homeWith() });
      expect(again.stdout).toBe(`already trusted ${hostName()} ssh-ed25519 ${hostFingerprint}\n`);
    } finally {
      await db.close();
    }
  });

  it('refuses a changed host key until `trust-host --replace`', async () => {
    const dataDir = mkdtempSync(join(dir, 'data-'));
    const connection = tunnelTo(servers[0]!, {});
    writeConfig(dataDir, { connections: [connection] });
    const knownHosts = join(dataDir, 'known_hosts');
    const other = keygen(`other_host_key_${port}_${Date.now()}`);
    writeFileSync(knownHosts, `${hostName()} ${publicKeyOf(`${other}.pub`)}\n`);
    const db = openDatabase(connection, systemClock, { knownHostsFile: knownHosts, home: homeWith() });
    try {
      await expect(read(db, 'SELECT 1')).rejects.toThrow(
        `the SSH host key of ${hostName()} has CHANGED to ssh-ed25519 ${hostFingerprint} (known: ssh-ed25519 ${fingerprintOf(`${other}.pub`)} in ${knownHosts}:1); ` +
          'refusing to connect, as the connection may be intercepted. ' +
          "If the server's key was replaced on purpose, accept the new one with: sluice connections trust-host db --replace",
      );
      const refused = runSluice(['connections', 'trust-host', 'db', '--data-dir', dataDir], { SLUICE_SECRETS: 'file', HOME: homeWith() });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(`has CHANGED to ssh-ed25519 ${hostFingerprint}`);
      const replaced = runSluice(['connections', 'trust-host', 'db', '--replace', '--data-dir', dataDir], { SLUICE_SECRETS: 'file', HOME: homeWith() });
      expect(replaced.stdout).toBe(`replaced the old key; trusted ${hostName()} ssh-ed25519 ${hostFingerprint}\n`);
      expect((await read(db, 'SELECT 3')).rows).toEqual([[3]]);
    } finally {
      await db.close();
    }
  });

  describe("the person's own known_hosts, read and never written", () => {
    /** A fresh support directory with the connection saved, Sluice's known-hosts file in it not yet made. */
    const saved = (connection: SavedConnection) => {
      const dataDir = mkdtempSync(join(dir, 'data-'));
      writeConfig(dataDir, { connections: [connection] });
      return { dataDir, knownHostsFile: join(dataDir, 'known_hosts') };
    };
    /** `|1|salt|hash` for `name`, as `ssh-keygen -H` writes it. */
    const hashedName = (name: string) => {
      const salt = randomBytes(20);
      return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
    };

    it('accepts a key only ~/.ssh/known_hosts holds (hashed), and trust-host finds it already trusted', async () => {
      const connection = tunnelTo(servers[0]!, {});
      const { dataDir, knownHostsFile } = saved(connection);
      const usersFile = `# from ssh\n${hashedName(hostName())} ${publicKeyOf(file('host_key.pub'))}\n`;
      const home = homeWith({ known_hosts: usersFile });
      const db = openDatabase(connection, systemClock, { knownHostsFile, home });
      try {
        expect((await read(db, 'SELECT 40 + 2')).rows).toEqual([[42]]);
        const trusted = runSluice(['connections', 'trust-host', 'db', '--data-dir', dataDir], { SLUICE_SECRETS: 'file', HOME: home });
        expect({ status: trusted.status, stdout: trusted.stdout, stderr: trusted.stderr }).toEqual({
          status: 0,
          stdout: `already trusted ${hostName()} ssh-ed25519 ${hostFingerprint}\n`,
          stderr: '',
        });
        expect(existsSync(knownHostsFile)).toBe(false);
        expect(readFileSync(join(home, '.ssh', 'known_hosts'), 'utf8')).toBe(usersFile);
      } finally {
        await db.close();
      }
    });

    it("reads the UserKnownHostsFile files ~/.ssh/config names for the host, not the default one", async () => {
      const home = homeWith({
        config: `Host tunnel-alias\n  HostName 127.0.0.1\n  Port ${port}\n  UserKnownHostsFile ~/.ssh/absent "~/.ssh/team hosts"\n`,
        'team hosts': `[127.0.0.1]:${port} ${publicKeyOf(file('host_key.pub'))}\n`,
        known_hosts: `[127.0.0.1]:${port} ${publicKeyOf(`${keygen(`unused_${Date.now()}`)}.pub`)}\n`,
      });
      const connection = tunnelTo(servers[0]!, { host: 'tunnel-alias', port: undefined });
      const db = openDatabase(connection, systemClock, { knownHostsFile: saved(connection).knownHostsFile, home });
      try {
        expect((await read(db, 'SELECT 6 * 7')).rows).toEqual([[42]]);
      } finally {
        await db.close();
      }
    });

    it('refuses a key that differs from the one ~/.ssh/known_hosts holds, naming both fingerprints and where the known one is', async () => {
      const other = keygen(`users_old_key_${Date.now()}`);
      const home = homeWith({ known_hosts: `# first\n[127.0.0.1]:${port} ${publicKeyOf(`${other}.pub`)}\n` });
      const connection = tunnelTo(servers[0]!, {});
      const db = openDatabase(connection, systemClock, { knownHostsFile: saved(connection).knownHostsFile, home });
      try {
        await expect(read(db, 'SELECT 1')).rejects.toThrow(
          `the SSH host key of ${hostName()} has CHANGED to ssh-ed25519 ${hostFingerprint} ` +
            `(known: ssh-ed25519 ${fingerprintOf(`${other}.pub`)} in ${join(home, '.ssh', 'known_hosts')}:2); refusing to connect`,
        );
      } finally {
        await db.close();
      }
    });

    it('refuses a key ~/.ssh/known_hosts revokes, even one Sluice trusts, and trust-host will not record it', async () => {
      const connection = tunnelTo(servers[0]!, {});
      const { dataDir, knownHostsFile } = saved(connection);
      writeFileSync(knownHostsFile, `${hostName()} ${publicKeyOf(file('host_key.pub'))}\n`);
      const home = homeWith({ known_hosts: `@revoked [127.0.0.1]:${port} ${publicKeyOf(file('host_key.pub'))}\n` });
      const revoked = `the SSH host key of ${hostName()}, ssh-ed25519 ${hostFingerprint}, is REVOKED (@revoked in ${join(home, '.ssh', 'known_hosts')}:1); refusing to connect`;
      const db = openDatabase(connection, systemClock, { knownHostsFile, home });
      try {
        await expect(read(db, 'SELECT 1')).rejects.toThrow(revoked);
        const replaced = runSluice(['connections', 'trust-host', 'db', '--replace', '--data-dir', dataDir], { SLUICE_SECRETS: 'file', HOME: home });
        expect({ status: replaced.status, stdout: replaced.stdout, stderr: replaced.stderr }).toEqual({ status: 1, stdout: '', stderr: `sluice: ${revoked}\n` });
      } finally {
        await db.close();
      }
    });

    it('asks the server first for the key types known for it: one with ed25519 and ECDSA keys presents the ECDSA key ~/.ssh/known_hosts holds', async () => {
      const home = homeWith({ known_hosts: `[127.0.0.1]:${port} ${publicKeyOf(`${ecdsaHostKey}.pub`)}\n` });
      const connection = tunnelTo(servers[0]!, {});
      const db = openDatabase(connection, systemClock, { knownHostsFile: saved(connection).knownHostsFile, home });
      try {
        expect((await read(db, 'SELECT 5')).rows).toEqual([[5]]);
      } finally {
        await db.close();
      }
    });
  });

  describe('with the host key trusted', () => {
    const knownHosts = file('trusted_known_hosts');
    beforeAll(() => {
      writeFileSync(knownHosts, `${`[127.0.0.1]:${port}`} ${publicKeyOf(file('host_key.pub'))}\n`);
    });

    it('refuses a key the server does not accept', async () => {
      const db = openDatabase(tunnelTo(servers[0]!, { keyFile: file('wrong_key') }), systemClock, { knownHostsFile: knownHosts, home: homeWith() });
      try {
        await expect(read(db, 'SELECT 1')).rejects.toThrow(
          `SSH authentication as ${user}@${hostName()} failed: the server accepted none of the key ${file('wrong_key')}`,
        );
      } finally {
        await db.close();
      }
    });

    it('says a key with a passphrase needs the agent or a saved passphrase', async () => {
      const db = openDatabase(tunnelTo(servers[0]!, { keyFile: file('locked_key') }), systemClock, { knownHostsFile: knownHosts, home: homeWith() });
      try {
        await expect(read(db, 'SELECT 1')).rejects.toThrow(
          `the SSH key ${file('locked_key')} is protected by a passphrase and none is saved with the connection: ` +
            `add it to the SSH agent (ssh-add ${file('locked_key')}) and let the connection use the agent` +
            `, or save the passphrase with the connection (sluice connections update db --ssh … --ssh-key ${file('locked_key')} --ssh-passphrase-stdin)`,
        );
      } finally {
        await db.close();
      }
    });

    it.each(servers)('%s: a ~/.ssh/config alias with ProxyJump, and a passphrase-protected key through the SSH agent', async (engine) => {
      const agentSocket = file(`agent-${engine}.sock`);
      const agent = spawn('ssh-agent', ['-D', '-a', agentSocket], { stdio: 'ignore' });
      const askpass = file('askpass');
      writeFileSync(askpass, '#!/bin/sh\necho test-passphrase\n', { mode: 0o700 });
      const previous = process.env.SSH_AUTH_SOCK;
      try {
        for (let tries = 0; !existsSync(agentSocket) && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
        execFileSync('ssh-add', [file('locked_key')], {
          env: { ...process.env, SSH_AUTH_SOCK: agentSocket, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' },
          stdio: 'ignore',
        });
        process.env.SSH_AUTH_SOCK = agentSocket;
        const home = homeWith({
          config:
            `Host db-behind\n  HostName 127.0.0.1\n  Port ${port}\n  User ${user}\n  ProxyJump bastion\n` +
            `Host bastion\n  HostName 127.0.0.1\n  Port ${port}\n  User ${user}\n`,
        });
        const address = parseServerUrl(URLS[engine])!;
        const tunnel = new SshTunnel({
          connectionId: 'db',
          ssh: { host: 'db-behind', agent: true },
          target: { host: address.host, port: address.port },
          knownHostsFile: knownHosts,
          home,
          clock: systemClock,
        });
        const db = engine === 'postgres' ? new PostgresDatabase(address, tunnel) : new MysqlDatabase(address, systemClock, tunnel);
        try {
          expect((await read(db, 'SELECT 6 * 7')).rows).toEqual([[42]]);
          expect(tunnel.name).toBe(`${user}@${hostName()}`);
        } finally {
          await db.close();
        }
      } finally {
        if (previous === undefined) delete process.env.SSH_AUTH_SOCK;
        else process.env.SSH_AUTH_SOCK = previous;
        agent.kill('SIGKILL');
      }
    });

    it.each(servers)('%s: keeps a write and takes it back through the tunnel', async (engine) => {
      const fixture = await createFixture(engine);
      const url = (fixture.connection as { url: string }).url;
      const db = openDatabase({ ...tunnelTo(engine, {}), url } as SavedConnection, systemClock, { knownHostsFile: knownHosts, home: homeWith() });
      const signal = new AbortController().signal;
      try {
        const sql = `UPDATE authors SET born = born + 1 WHERE id < ${engine === 'postgres' ? '$1' : '?'}`;
        const selection = await engineModule(engine).effects.rowSelection(sql, [3]);
        const described = await db.describeTable(db.defaultSchema(), 'authors', signal);
        if ('refused' in selection || !described) throw new Error('no plan');
        const table = { schema: described.schema, name: described.name, target: 'authors', keys: ['id'], columns: described.columns };
        const plan = { verb: 'UPDATE' as const, sql, params: [3], table, selection, maxRows: UNDO.maxRows, maxBytes: UNDO.maxBytes, timeoutMs: 20_000, signal };
        const before = [['1', 'Ursula K. Le Guin', '1929'], ['2', 'Italo Calvino', '1923']];
        const after = [['1', 'Ursula K. Le Guin', '1930'], ['2', 'Italo Calvino', '1924']];
        const kept = { columns: ['id', 'name', 'born'], keys: [0], before, after };
        expect(await db.keepWrite?.(plan)).toEqual({ result: { columns: [], rows: [], truncated: false, cellsCut: 0, rowsAffected: 2 }, kept });
        const undo = { verb: 'UPDATE' as const, table, rows: kept, force: false, timeoutMs: 20_000, signal };
        expect(await db.restoreRows?.(undo)).toEqual({ restored: true, rowsAffected: 2, verb: 'UPDATE', kept: { ...kept, before: after, after: before } });
        expect(await fixture.query('SELECT id, born FROM authors ORDER BY id')).toEqual([[1, 1929], [2, 1923], [3, 1947]]);
      } finally {
        await db.close();
        await fixture.drop();
      }
    });

    it.each(servers)('%s: queries through the tunnel; a tunnel dropped mid-query fails that query and the next reopens it', async (engine) => {
      const db = openDatabase(tunnelTo(engine, {}), systemClock, { knownHostsFile: knownHosts, home: homeWith() });
      try {
        expect((await read(db, 'SELECT 40 + 2')).rows).toEqual([[42]]);
        const slow = read(db, slowSql(engine, 6));
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        for (const pid of descendants(sshd!.process.pid!)) process.kill(pid, 'SIGKILL');
        const name = `${user}@${hostName()}`;
        await expect(slow).rejects.toThrow(
          `the SSH tunnel through ${name} dropped during the statement (the SSH connection to ${name} closed); the next statement opens it again`,
        );
        expect((await read(db, 'SELECT 7')).rows).toEqual([[7]]);
      } finally {
        await db.close();
      }
    });
  });
});
