import { existsSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connections/connectionCatalog.js';
import { valuesOf } from '../../src/db/database.js';
import type { SavedConnection } from '../../src/db/connections/savedConnections.js';

/**
 * TLS against the machine's PostgreSQL and MariaDB, switched on by scripts/testTls.sh (the test CA, a
 * server certificate for localhost and 127.0.0.1, a client certificate for sluice_tls_cert, and an
 * unrelated CA). Without them the suite fails in CI and is skipped elsewhere, saying why.
 */
const DIR = process.env.SLUICE_TEST_TLS_DIR ?? '/var/lib/sluice-test-tls';
const CA = `${DIR}/ca.pem`;
const OTHER_CA = `${DIR}/other-ca.pem`;
const CLIENT = `sslcert=${DIR}/client.pem&sslkey=${DIR}/client-key.pem`;
const PORTS = { postgres: 5432, mysql: 3306 } as const;
const ADMIN = { postgres: 'postgres', mysql: 'root' } as const;
type ServerEngine = keyof typeof PORTS;

/** Whether the TLS session's protocol and the certificate user can be read, per engine. */
const SESSION_SQL = {
  postgres: 'SELECT ssl, coalesce(version, \'\'), current_user FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
  mysql: "SELECT (SELECT VARIABLE_VALUE <> '' FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'SSL_CIPHER'), (SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'SSL_VERSION'), SUBSTRING_INDEX(CURRENT_USER(), '@', 1)",
} as const;

async function run(engine: ServerEngine, url: string, sql: string): Promise<unknown[][]> {
  const connection = { id: 'tls', name: 'tls', engine, url, externalAccess: 'readOnly', aiPolicy: 'always' } as SavedConnection;
  const db = openDatabase(connection);
  try {
    const result = await db.read(sql, { maxRows: 10, timeoutMs: 10_000, signal: new AbortController().signal });
    return valuesOf(result.rows);
  } finally {
    await db.close().catch(() => {});
  }
}

const failure = (engine: ServerEngine, url: string) =>
  run(engine, url, 'SELECT 1').then(
    () => 'connected',
    (error: Error) => error.message,
  );

/** MySQL's verify-full needs a host name (mysql2 checks names only against one), so it goes to localhost. */
type Target = { user?: string; host?: string; port?: number };
const url = (engine: ServerEngine, query: string, { user = ADMIN[engine], host = engine === 'mysql' ? 'localhost' : '127.0.0.1', port = PORTS[engine] }: Target = {}) =>
  `${engine}://${user}@${host}:${port}/test?${query}`;

async function tlsProblem(): Promise<string | undefined> {
  if (!existsSync(CA)) return `${CA} is missing (run scripts/testTls.sh)`;
  for (const engine of ['postgres', 'mysql'] as const) {
    const outcome = await failure(engine, url(engine, `sslmode=verify-full&sslrootcert=${CA}`));
    if (outcome !== 'connected') return `${engine} does not accept TLS (run scripts/testTls.sh): ${outcome}`;
  }
  return undefined;
}

const problem = await tlsProblem();
if (problem && process.env.CI) throw new Error(`CI needs TLS on the local servers: ${problem}`);
if (problem) console.log(`skipping the TLS suite: ${problem}`);

describe.skipIf(problem !== undefined).each(['postgres', 'mysql'] as const)('TLS to %s', (engine) => {
  const name = engine === 'postgres' ? 'PostgreSQL' : 'MySQL';
  /** A TCP forwarder on 127.0.0.2, an address the server's certificate does not name. */
  let forwarder: Server;
  let forwarded: number;
  const piped = new Set<Socket>();

  beforeAll(async () => {
    forwarder = createServer((client) => {
      const upstream = connect(PORTS[engine], '127.0.0.1');
      piped.add(client).add(upstream);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.2', resolve));
    forwarded = (forwarder.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of piped) socket.destroy();
    await new Promise<void>((resolve) => forwarder.close(() => resolve()));
  });

  it('verify-full with the test CA: the session is encrypted with TLS 1.3', async () => {
    expect(await run(engine, url(engine, `sslmode=verify-full&sslrootcert=${CA}`), SESSION_SQL[engine])).toEqual([
      [engine === 'postgres' ? true : 1, 'TLSv1.3', ADMIN[engine]],
    ]);
  });

  it('verify-ca reaches the server by its address', async () => {
    expect(await run(engine, url(engine, `sslmode=verify-ca&sslrootcert=${CA}`, { host: '127.0.0.1' }), SESSION_SQL[engine])).toEqual([
      [engine === 'postgres' ? true : 1, 'TLSv1.3', ADMIN[engine]],
    ]);
  });

  it('sslmode=disable, and no sslmode, stay plain', async () => {
    const plain = [[engine === 'postgres' ? false : 0, '', ADMIN[engine]]];
    expect(await run(engine, url(engine, 'sslmode=disable'), SESSION_SQL[engine])).toEqual(plain);
    expect(await run(engine, `${engine}://${ADMIN[engine]}@127.0.0.1:${PORTS[engine]}/test`, SESSION_SQL[engine])).toEqual(plain);
  });

  it('require encrypts without verifying: an unrelated CA is not consulted', async () => {
    const rows = await run(engine, url(engine, 'sslmode=require'), SESSION_SQL[engine]);
    expect(rows).toEqual([[engine === 'postgres' ? true : 1, 'TLSv1.3', ADMIN[engine]]]);
  });

  it('a CA that did not sign the server certificate fails with a certificate error', async () => {
    for (const mode of ['verify-ca', 'verify-full']) {
      expect(await failure(engine, url(engine, `sslmode=${mode}&sslrootcert=${OTHER_CA}`))).toBe(
        `cannot reach the ${name} server: self-signed certificate in certificate chain`,
      );
    }
  });

  it('verify-full refuses an address the certificate does not name; verify-ca checks only the chain', async () => {
    expect(await failure(engine, url(engine, `sslmode=verify-full&sslrootcert=${CA}`, { host: '127.0.0.2', port: forwarded }))).toBe(
      engine === 'postgres'
        ? `cannot reach the ${name} server: Hostname/IP does not match certificate's altnames: IP: 127.0.0.2 is not in the cert's list: 127.0.0.1`
        : "sslmode=verify-full needs the server's host name for MySQL, not the address 127.0.0.2: use the name in its certificate, or sslmode=verify-ca",
    );
    expect(await run(engine, url(engine, `sslmode=verify-ca&sslrootcert=${CA}`, { host: '127.0.0.2', port: forwarded }), SESSION_SQL[engine])).toEqual([
      [engine === 'postgres' ? true : 1, 'TLSv1.3', ADMIN[engine]],
    ]);
  });

  it('presents the client certificate: sluice_tls_cert gets in with it and not without', async () => {
    expect(await run(engine, url(engine, `sslmode=verify-full&sslrootcert=${CA}&${CLIENT}`, { user: 'sluice_tls_cert' }), SESSION_SQL[engine])).toEqual([
      [engine === 'postgres' ? true : 1, 'TLSv1.3', 'sluice_tls_cert'],
    ]);
    const without = await failure(engine, url(engine, `sslmode=verify-full&sslrootcert=${CA}`, { user: 'sluice_tls_cert' }));
    expect(without).toBe(
      engine === 'postgres'
        ? `cannot reach the ${name} server: connection requires a valid client certificate`
        : `cannot reach the ${name} server: Access denied for user 'sluice_tls_cert'@'127.0.0.1' (using password: ***)`,
    );
  });

  it('a CA file that is missing fails the connection naming it', async () => {
    expect(await failure(engine, url(engine, `sslmode=verify-full&sslrootcert=${DIR}/missing.pem`))).toBe(
      `the sslrootcert file ${DIR}/missing.pem does not exist`,
    );
  });
});
