import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionCatalog } from '../../src/db/connections/connectionCatalog.js';
import type { Database } from '../../src/db/database.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';

/**
 * Schema polling asks each engine its own cheap question on a session it keeps (issue 16, finding 13):
 * it once sent SQLite's PRAGMA to PostgreSQL and MySQL every 5 s, failing and opening a new session
 * each time. A change made outside Sluice — a table created, a column added, a table dropped — still
 * changes the fingerprint.
 */

const engines = await availableEngines();

/** The server-side ids of Sluice's sessions on the fixture database. */
const SESSIONS: Record<string, string> = {
  postgres: "SELECT pid || ':' || backend_start FROM pg_stat_activity WHERE application_name = 'sluice' AND datname = current_database()",
  mysql: 'SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID()',
};

describe.each(engines)('schema polling on %s', (engine) => {
  skipListed('schemaPolling', engine);
  let fixture: EngineFixture;
  let db: Database;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    fixture = await createFixture(engine);
    db = new ConnectionCatalog([fixture.connection]).database(fixture.connection);
  });
  afterAll(async () => {
    await db?.close();
    await fixture?.drop();
  });

  it('twenty polls answer the same fingerprint, on the same session', async () => {
    const first = await db.schemaVersion(signal);
    const sessions = SESSIONS[engine] && (await fixture.query(SESSIONS[engine])).map(([id]) => String(id));
    for (let i = 0; i < 20; i++) expect(await db.schemaVersion(signal)).toBe(first);
    if (sessions) {
      expect(sessions).toHaveLength(1);
      expect((await fixture.query(SESSIONS[engine] as string)).map(([id]) => String(id))).toEqual(sessions);
    }
  });

  it('a table created, a column added and a table dropped elsewhere each change it', async () => {
    const seen = [await db.schemaVersion(signal)];
    for (const sql of ['CREATE TABLE made_elsewhere (x INTEGER)', 'ALTER TABLE made_elsewhere ADD COLUMN y INTEGER', 'DROP TABLE made_elsewhere']) {
      await fixture.query(sql);
      seen.push(await db.schemaVersion(signal));
    }
    // Each change differs from the state before it (a drop may return to the very first state).
    for (let i = 1; i < seen.length; i++) expect(seen[i]).not.toBe(seen[i - 1]);
  });
});
