import { afterAll, beforeEach, expect } from 'vitest';
import type { Engine } from '../../src/db/database.js';

/**
 * What DuckDB leaves out of each shared engine suite, by feature (the suite) and test name, and why, as
 * hono runs one case file against every router and names what each router skips. Every other case of
 * those suites runs on DuckDB as on the other engines.
 */
const NO_STATISTICS = 'DuckDB keeps no per-table sizes or server counters: its module has no statistics (the suite checks the tools say unsupported)';

const NO_INDEX_ADVICE = 'DuckDB answers scans from its column statistics: its module gives no index advice (the last index_advice case checks the reason)';

const ONE_DATABASE = 'a DuckDB file is one database (naming it is the connection itself, naming another not_found: the cases before)';

export const DUCKDB_SKIPS: Record<string, Record<string, string>> = {
  engines: {
    'describe_table gives columns, primary key, indexes and foreign keys':
      'DuckDB has no ON DELETE actions, so its fixture key cannot be the CASCADE the test expects (test/e2e/duckdb.test.ts checks its keys)',
  },
  controlCharacters: {
    'a NUL in database is refused before any session is opened (the start-up message attack)': 'a DuckDB file has no start-up message (every database argument is refused the same way: the cases after it)',
  },
  exportData: {
    'cancelled mid-export (notifications/cancelled), ends with -33002 and leaves no file, not even a temp file':
      'DuckDB runs a condition a vector of rows at a time, so no condition is slow per row after the first page (exportMemory cancels a DuckDB export mid-way)',
  },
  otherDatabase: {
    'lists, describes and reads another database of the same server': ONE_DATABASE,
    'a write there asks first, and the question names that database': ONE_DATABASE,
    'making room for more databases lets a statement running on the one closed finish': ONE_DATABASE,
  },
  performanceTools: {
    'explain_query with analyze measures a SELECT, or says SQLite cannot':
      'Sluice does not read DuckDB’s EXPLAIN ANALYZE: explain_query says it cannot analyze on DuckDB',
    'index_advice proposes an index for a lookup by an unindexed column': NO_INDEX_ADVICE,
    'index_advice proposes nothing for a lookup by primary key, or through an alias on an indexed column': NO_INDEX_ADVICE,
  },
  resourcesCatalogue: {
    'the schemas resource reads another database of the server when given one': 'a DuckDB file is one database: naming another is not_found (otherDatabase checks it)',
  },
  statisticsTools: {
    'table_statistics of one table: rows, sizes and the engine’s own fields': NO_STATISTICS,
    'table_statistics of a schema lists its tables, not its views': NO_STATISTICS,
    'table_statistics refuses a view and an unknown table': NO_STATISTICS,
    'database_statistics: size, counts, version and the engine’s counters': NO_STATISTICS,
    'database_health finds the duplicate index and the table without a primary key': 'DuckDB keeps no usage counters for health checks: its module has none (the suite checks the tool says unsupported)',
  },
};

type Named = { name: string; type: string; tasks?: Named[] };
const testNames = (suite: Named): string[] => (suite.tasks ?? []).flatMap((task) => (task.type === 'suite' ? testNames(task) : [task.name]));

/**
 * In the describe block of the shared suite `feature` on `engine`: each test the skip list names is
 * skipped with its reason, and the block fails when the list names a test it does not have (a stale entry).
 */
export function skipListed(feature: string, engine: Engine): void {
  const skips = engine === 'duckdb' ? (DUCKDB_SKIPS[feature] ?? {}) : {};
  beforeEach((context) => {
    const why = skips[context.task.name];
    if (why !== undefined) context.skip(`skipped on ${engine}: ${why}`);
  });
  // eslint-disable-next-line no-empty-pattern -- vitest reads the first parameter's pattern as fixtures; the suite comes second
  afterAll(({}, suite) => {
    const names = new Set(testNames(suite as Named));
    expect(Object.keys(skips).filter((name) => !names.has(name)), `names in DUCKDB_SKIPS.${feature} that the suite does not have`).toEqual([]);
  });
}
