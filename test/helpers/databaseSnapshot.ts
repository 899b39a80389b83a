import { readdirSync } from 'node:fs';
import type { EngineFixture } from './engines.js';

/** Files a bypass would have written, by the corpus's naming. */
export const canaryFiles = () =>
  readdirSync('/tmp')
    .filter((name) => name.startsWith('sluice-canary-'))
    .sort();

/**
 * Everything a read-only bypass could change in a fixture, read on the fixture's own connection (not
 * through Sluice): the canary's rows, the objects of the database (temporary ones included), routines,
 * extensions, the sequence, advisory and named locks, and files under /tmp/sluice-canary-*.
 */
export async function databaseSnapshot(fixture: EngineFixture) {
  const canary = await fixture.query('SELECT id, note FROM sluice_canary ORDER BY id');
  const files = canaryFiles();
  if (fixture.engine === 'sqlite') {
    return {
      canary,
      files,
      objects: await fixture.query("SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"),
      userVersion: await fixture.query('PRAGMA user_version'),
      journalMode: await fixture.query('PRAGMA journal_mode'),
    };
  }
  if (fixture.engine === 'postgres') {
    return {
      canary,
      files,
      // Temporary tables of Sluice's own sessions included (pg_temp_N).
      relations: await fixture.query(
        `SELECT n.nspname, c.relname, c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
         ORDER BY 1, 2`,
      ),
      routines: await fixture.query(
        "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY 1",
      ),
      extensions: await fixture.query('SELECT extname FROM pg_extension ORDER BY 1'),
      sequence: await fixture.query('SELECT last_value, is_called FROM sluice_canary_seq'),
      advisoryLocks: await fixture.query(
        "SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      ),
    };
  }
  if (fixture.engine === 'duckdb') {
    return {
      canary,
      files,
      // Temporary objects live in a connection's own catalog, gone with it: every statement has one.
      objects: await fixture.query(
        `SELECT database_name, schema_name, table_name, 'table' FROM duckdb_tables()
         UNION ALL SELECT database_name, schema_name, view_name, 'view' FROM duckdb_views() WHERE NOT internal
         UNION ALL SELECT database_name, schema_name, index_name, 'index' FROM duckdb_indexes()
         UNION ALL SELECT database_name, schema_name, function_name, 'macro' FROM duckdb_functions() WHERE NOT internal
         ORDER BY ALL`,
      ),
      columns: await fixture.query("SELECT column_name FROM duckdb_columns() WHERE table_name = 'sluice_canary' ORDER BY column_index"),
      sequence: await fixture.query("SELECT last_value FROM duckdb_sequences() WHERE sequence_name = 'sluice_canary_seq'"),
      databases: await fixture.query('SELECT database_name FROM duckdb_databases() ORDER BY ALL'),
    };
  }
  return {
    canary,
    files,
    tables: await fixture.query(
      'SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME',
      [fixture.database],
    ),
    columns: await fixture.query(
      "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'sluice_canary' ORDER BY ORDINAL_POSITION",
      [fixture.database],
    ),
    routines: await fixture.query(
      'SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ? ORDER BY ROUTINE_NAME',
      [fixture.database],
    ),
    namedLock: await fixture.query("SELECT IS_USED_LOCK('sluice_canary')"),
  };
}

