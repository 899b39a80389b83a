import { describe, expect, it } from 'vitest';
import { parseServerUrl, type ServerAddress } from '../../../src/db/connections/connectionUrl.js';
import { DriverFailure } from '../../../src/db/driverFailure.js';
import { MysqlDatabase } from '../../../src/db/engines/mysql/mysqlDatabase.js';
import { PostgresDatabase } from '../../../src/db/engines/postgres/postgresDatabase.js';
import { sessionsThrough } from '../../../src/db/reach/tunneledSessions.js';

/**
 * The db layer's own guard (issue 27, finding 2): an address option holding a control character is
 * never given to a driver, whatever path the address took (a call's `database` is refused before this,
 * in the capabilities). It fails as a DriverFailure of kind `invalid_argument`, before any session opens.
 */

const address = parseServerUrl('postgres://app@127.0.0.1:9/shop') as ServerAddress;
const neverOpened = () => {
  throw new Error('the driver was given the address');
};

async function refusal(promise: Promise<unknown>): Promise<DriverFailure> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(DriverFailure);
  return error as DriverFailure;
}

describe('sessionsThrough', () => {
  it.each([
    ['database', '0000'],
    ['database', '001F'],
    ['database', '007F'],
    ['database', '0085'],
    ['user', '0000'],
    ['host', '000A'],
  ] as const)('refuses a %s holding U+%s without calling the driver', async (option, code) => {
    const value = `a${String.fromCodePoint(parseInt(code, 16))}b`;
    const failure = await refusal(sessionsThrough({ ...address, [option]: value }, undefined, neverOpened));
    expect(failure.kind).toBe('invalid_argument');
    expect(failure.message).toBe(`the connection's ${option} holds a control character (U+${code}); it is never sent to the server`);
  });

  it('passes an address without one to the driver, format characters included', async () => {
    const sessions = { check: neverOpened, read: neverOpened, readPages: neverOpened, write: neverOpened, rehearse: neverOpened, keepWrite: neverOpened, restoreRows: neverOpened, close: async () => {} };
    const given: ServerAddress[] = [];
    const open = (reached: ServerAddress) => (given.push(reached), sessions);
    await expect(sessionsThrough({ ...address, database: 'shop\u200b 2025 é' }, undefined, open)).resolves.toBe(sessions);
    expect(given.map((a) => a.database)).toEqual(['shop\u200b 2025 é']);
  });
});

describe('a driver given a URL whose database holds a NUL', () => {
  const signal = new AbortController().signal;
  // Port 9 (discard) has no database server: were the driver given the address, it would fail to connect instead.
  it.each([
    ['PostgreSQL', () => new PostgresDatabase(parseServerUrl('postgres://app@127.0.0.1:9/shop%00default_transaction_read_only%00off') as ServerAddress)],
    ['MySQL', () => new MysqlDatabase(parseServerUrl('mysql://app@127.0.0.1:9/shop%00x') as ServerAddress)],
  ])('%s refuses it before connecting', async (_engine, make) => {
    const db = make();
    const failure = await refusal(db.listSchemas(signal));
    expect(failure.kind).toBe('invalid_argument');
    expect(failure.message).toMatch(/^the connection's database holds a control character \(U\+0000\)/);
    await db.close();
  });
});
