import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESULTS } from '../../src/core/contract.js';
import { expectToolSuccess } from '../helpers/rpcAssertions.js';
import { availableServers, type EngineFixture, startFixtureApp } from '../helpers/engines.js';
import { callTool, type TestApp } from '../helpers/testApp.js';

/**
 * JSON values that JSON cannot carry back (issue 27, finding 5): a 5,000-deep jsonb once failed its row
 * with `not_connected: … Maximum call stack size exceeded`. A value nested deeper than
 * `RESULTS.jsonDepth`, or longer than a value may be, comes back as its text, cut like any long value,
 * and the result counts it in `values_as_text`; a shallow one is still JSON.
 */

const servers = await availableServers();
const DEEP = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
const CUT = /…\[cut: \d+ characters in all\]$/;

describe.runIf(servers.includes('postgres'))('deep and long json on postgres', () => {
  let app: TestApp;
  let dispose: () => Promise<void>;
  // The token budget at its cap: a 64 KiB value is about 8,100 tokens, and these are the byte limits' cases.
  const query = async (sql: string) => expectToolSuccess(await callTool(app, 'execute_query', { connection_id: 'db', sql, max_tokens: RESULTS.capTokens }));

  beforeAll(async () => {
    ({ app, dispose } = await startFixtureApp('postgres'));
  });
  afterAll(async () => {
    await dispose?.();
  });

  it.each(['jsonb', 'json'])('a 5,000-deep %s is its text, and the result says so', async (type) => {
    const result = await query(`SELECT '${DEEP}'::${type} AS deep, '{"a": [1, {"b": null}]}'::${type} AS shallow`);
    expect(result.rows[0][0] === DEEP).toBe(true);
    expect(result.rows[0][1]).toEqual({ a: [1, { b: null }] });
    expect(result).toMatchObject({ values_as_text: 1, is_truncated: false, cells_truncated: 0 });
  });

  it('a deep element of a jsonb[] makes the array its text', async () => {
    const result = await query(`SELECT ARRAY['${DEEP}'::jsonb, '1'::jsonb] AS deep, ARRAY['[1]'::jsonb] AS shallow`);
    expect(result.rows[0][0] === `{${DEEP},1}`).toBe(true);
    expect(result.rows[0][1]).toEqual([[1]]);
    expect(result.values_as_text).toBe(1);
  });

  it('a jsonb longer than a value may be is not parsed: its text, cut and marked', async () => {
    const result = await query(`SELECT jsonb_build_array(repeat('x', ${2 * RESULTS.cellBytes})) AS long`);
    expect(result.rows[0][0]).toMatch(/^\["x+…\[cut: \d+ characters in all\]$/);
    expect(result.rows[0][0]).toMatch(CUT);
    expect(result).toMatchObject({ values_as_text: 1, cells_truncated: 1, truncated_reason: 'cell_bytes' });
  });
});

describe.runIf(servers.includes('mysql'))('long JSON on MariaDB', () => {
  let fixture: EngineFixture;
  let app: TestApp;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ fixture, app, dispose } = await startFixtureApp('mysql'));
    await fixture.query('CREATE TABLE docs (id INT PRIMARY KEY, doc JSON)');
    await fixture.query(`INSERT INTO docs VALUES (1, '{"a": [1, {"b": null}]}'), (2, JSON_ARRAY(REPEAT('x', ${2 * RESULTS.cellBytes})))`);
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('a JSON value is JSON; one longer than a value may be is its text, cut and marked', async () => {
    const result = expectToolSuccess(await callTool(app, 'execute_query', { connection_id: 'db', sql: 'SELECT id, doc FROM docs ORDER BY id', max_tokens: RESULTS.capTokens }));
    expect(result.rows[0]).toEqual([1, { a: [1, { b: null }] }]);
    expect(result.rows[1][1]).toMatch(/^\["x+…\[cut: \d+ characters in all\]$/);
    expect(result).toMatchObject({ values_as_text: 1, cells_truncated: 1 });
  });
});
