import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectToolSuccess } from '../helpers/rpcAssertions.js';
import { availableServers, startFixtureApp } from '../helpers/engines.js';
import { callTool, type TestApp } from '../helpers/testApp.js';

/**
 * How many rows each FETCH of a PostgreSQL read asks for. Narrow rows keep the growing batches (100,
 * 400, 1,600, then 2,000); wide ones are fetched about 1 MiB of the budget at a time, so that no
 * batch's rows hold the event loop for long while Sluice converts and measures them (with 20 cells of
 * 2,000 characters a row, the second FETCH asked for 400 rows, some 32 MB of budget, in one go).
 */

const servers = await availableServers();

describe.runIf(servers.includes('postgres'))('the FETCH sizes of a postgres read', () => {
  let app: TestApp;
  let dispose: () => Promise<void>;
  const fetches: number[] = [];

  beforeAll(async () => {
    ({ app, dispose } = await startFixtureApp('postgres'));
    const query = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const text = (args[0] as { text?: unknown } | undefined)?.text;
      const fetched = typeof text === 'string' ? /^FETCH FORWARD (\d+) FROM sluice_rows$/.exec(text) : null;
      if (fetched) fetches.push(Number(fetched[1]));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await dispose?.();
  });

  const read = async (sql: string) => {
    fetches.length = 0;
    return expectToolSuccess(await callTool(app, 'execute_query', { connection_id: 'db', sql, max_rows: 10_000, max_bytes: 16 * 1_048_576 }));
  };

  it('narrow rows are fetched 100, 400, 1,600, then 2,000 at a time; wide ones, after the first 100, about 1 MiB of the budget at a time', async () => {
    const narrow = await read("SELECT x, 'row ' || x AS label FROM generate_series(1, 10000) AS x");
    // The driver reads all 10,000 (and one to learn there is no more); the answer is then cut to the token budget.
    expect(narrow).toMatchObject({ is_truncated: true, truncated_reason: 'max_tokens' });
    expect(fetches).toEqual([100, 400, 1_600, 2_000, 2_000, 2_000, 1_901]);
    const cells = Array.from({ length: 20 }, (_, i) => `repeat('x', 2000) AS c${i}`).join(', ');
    const wide = await read(`SELECT ${cells} FROM generate_series(1, 10000)`);
    // The driver stops at max_bytes (209 rows, ten FETCHes); the answer is then cut to the token budget.
    expect(wide).toMatchObject({ is_truncated: true, truncated_reason: 'max_tokens' });
    // A row takes about 80 KB of the answer's budget (its JSON and its text): 13 rows make 1 MiB.
    expect(fetches).toEqual([100, ...Array<number>(9).fill(13)]);
  });
});
