import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { ACCEPTED, CONSENT_KEY, ELICITATION_META, repeatToolCall } from '../helpers/consentRoundTrip.js';
import { unfenced } from '../helpers/dataFence.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import { POLICY_RULES, PRIVATE_TABLES, probesFor, SECRETS } from '../helpers/privateColumnCorpus.js';
import { expectModernSuccess } from '../helpers/rpcAssertions.js';
import { callTool, mcp, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';
import { callControl } from '../../src/cli/controlClient.js';

/**
 * Private columns (issue 30) on each engine: a token under the connection's policy cannot learn a
 * private value by any statement of the corpus (each refused, or answered masked), on every path a value
 * leaves by; an exempt token reads the values as they are.
 */

const engines = await availableEngines();

/**
 * The answer as text without what is random or timed: a duration, a hashed value's 16 hex digits, the
 * fence's name, a cursor (any of them could spell a secret's digits by chance: a hash held "7946" once).
 */
const answerText = (body: unknown) =>
  JSON.stringify(body)
    .replace(/"execution_time_ms":[0-9.]+/g, '')
    .replace(/h:[0-9a-f]{16}/g, 'h:…')
    .replace(/data-[0-9a-f]{16}/g, 'data-…')
    .replace(/"next_cursor":"[^"]*"/g, '"next_cursor":"…"');
const expectNoSecret = (body: unknown) => {
  const text = answerText(body).toLowerCase();
  for (const secret of SECRETS) expect(text, `the answer holds "${secret}"`).not.toContain(secret);
};

describe.each(engines)('private columns on %s', (engine) => {
  skipListed('privateColumns', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;
  let exempt: Record<string, string>;

  beforeAll(async () => {
    fixture = await createFixture(engine);
    // SQLite holds a read (next_cursor) only in WAL mode, as the demo database is.
    if (engine === 'sqlite') await fixture.query('PRAGMA journal_mode = WAL');
    for (const sql of PRIVATE_TABLES) await fixture.query(sql);
    dataDir = mkdtempSync(join(tmpdir(), `sluice-private-${engine}-`));
    writeConfig(dataDir, { connections: [{ ...fixture.connection, columnPolicy: { rules: [...POLICY_RULES], exemptTokens: ['placeholder'] } }] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} model`).headers;
    const owner = mintToken(app, `${engine} owner`);
    exempt = owner.headers;
    // The owner's token exempt: the policy names it, so Sluice restarts on the changed file.
    await app.dispose();
    writeConfig(dataDir, { connections: [{ ...fixture.connection, columnPolicy: { rules: [...POLICY_RULES], exemptTokens: [owner.id] } }] });
    app = await startTestApp({ dataDir, auth: true });
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (tool: string, args: Record<string, unknown>, as = headers) => {
    const res = await callTool(app, tool, { connection_id: 'db', ...args }, { headers: as });
    return expectModernSuccess(res);
  };
  const query = (sql: string, as = headers) => call('execute_query', { sql }, as);
  /** A call that asks for the user's consent, and its answer once they accept. */
  const consented = async (tool: string, args: Record<string, unknown>) => {
    const asked = await callTool(app, tool, { connection_id: 'db', ...args }, { headers, extraMeta: ELICITATION_META });
    expect(asked.json.result.resultType).toBe('input_required');
    const roundTrip = { requestState: asked.json.result.requestState, inputResponses: { [CONSENT_KEY]: ACCEPTED } };
    return expectModernSuccess(await repeatToolCall(app, tool, { connection_id: 'db', ...args }, roundTrip, { headers, extraMeta: ELICITATION_META }));
  };

  it.each(probesFor(engine))('$outcome: $sql', async ({ sql, outcome }) => {
    const result = await query(sql);
    expectNoSecret(result);
    if (outcome === 'denied') {
      expect(result.isError, JSON.stringify(result)).toBe(true);
      expect(result.content[0].text).toMatch(/^denied: /);
    } else {
      expect(result.isError, JSON.stringify(result)).toBe(false);
      expect(result.structuredContent.row_count).toBeGreaterThan(0);
    }
  });

  it('masks keeping the shape, hashes stably, hides ssn; the refusal names the column and the policy', async () => {
    const result = (await query('SELECT id, email, phone, ssn, login_email FROM people ORDER BY id')).structuredContent;
    expect(result.columns.map((c: { name: string }) => c.name.toLowerCase())).toEqual(['id', 'email', 'phone', 'login_email']);
    const [ada, grace] = result.rows;
    expect(ada.slice(1, 3)).toEqual(['a***@e***.org', '+** ** **** ****']);
    expect(grace[1]).toBe('g***@n***.example');
    expect(ada[3]).toMatch(/^h:[0-9a-f]{16}$/);
    const again = (await query('SELECT buyer_email FROM orders ORDER BY id')).structuredContent.rows;
    expect(again.map((r: unknown[]) => r[0])).toEqual([ada[3], grace[3], ada[3]]);
    const refused = await query("SELECT id FROM people WHERE email LIKE 'a%'");
    expect(refused.content[0].text).toMatch(/^denied: column email is private under this connection's policy \(mask, pattern email\)/);
  });

  it('list_connections tells the model which columns are private, and not an exempt token', async () => {
    const listed = async (as: Record<string, string>) => expectModernSuccess(await callTool(app, 'list_connections', {}, { headers: as })).structuredContent.connections[0];
    expect((await listed(headers)).private_columns).toEqual(POLICY_RULES);
    expect(await listed(exempt)).not.toHaveProperty('private_columns');
  });

  it('a cut answer reads on from its next_cursor, each page masked as the first; a change to the policy closes the read', async () => {
    const reads: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['execute_query', { sql: 'SELECT id, email, ssn FROM people ORDER BY id', max_rows: 1 }, { max_rows: 1 }],
      ['browse_table', { table: 'people', order_by: [{ column: 'id' }], limit: 1 }, { limit: 1 }],
    ];
    for (const [tool, args, page] of reads) {
      const first = await call(tool, args);
      expect(first.structuredContent).toMatchObject({ row_count: 1, is_truncated: true, next_cursor: expect.any(String) });
      const second = await call(tool, { cursor: first.structuredContent.next_cursor, ...page });
      expect(second.structuredContent).toMatchObject({ row_count: 1, columns: first.structuredContent.columns });
      expect(second.structuredContent.rows[0][0]).not.toEqual(first.structuredContent.rows[0][0]);
      expect(second.structuredContent.columns.map((c: { name: string }) => c.name)).not.toContain('ssn');
      expectNoSecret(first);
      expectNoSecret(second);
    }
    const open = await call('execute_query', { sql: 'SELECT id, name FROM people ORDER BY id', max_rows: 1 });
    await callControl(dataDir, 'connections.mask', { id: 'db', change: { rule: { pattern: 'name', action: 'hash' } } });
    try {
      const closed = await call('execute_query', { cursor: open.structuredContent.next_cursor, max_rows: 1 });
      expect(closed.content[0].text).toMatch(/^invalid_argument: the cursor is closed/);
    } finally {
      await callControl(dataDir, 'connections.mask', { id: 'db', change: { remove: 'name' } });
    }
  });

  it('an exempt token reads the values as they are', async () => {
    const result = (await query("SELECT email, ssn FROM people WHERE email LIKE 'ada%'", exempt)).structuredContent;
    expect(result.rows).toEqual([['ada.lovelace@example.org', '078-05-1120']]);
  });

  it('the query history shows another token’s statements without their values, and is searched as shown', async () => {
    await query("SELECT id FROM people WHERE email = 'ada.lovelace@example.org' AND id = 1078", exempt);
    const read = async (search: string) =>
      expectModernSuccess(await mcp(app, 'resources/read', { uri: `sluice://connections/db/history?search=${encodeURIComponent(search)}` }, { headers }));
    const shown = await read('WHERE email');
    expectNoSecret(shown);
    expect(JSON.parse(unfenced(shown.contents[0].text)).entries[0].sql).toBe('SELECT id FROM people WHERE email = ? AND id = ?');
    expect(JSON.parse(unfenced((await read('lovelace')).contents[0].text)).entries).toEqual([]);
    const owner = expectModernSuccess(await mcp(app, 'resources/read', { uri: `sluice://connections/db/history?search=${encodeURIComponent("lovelace@example.org' AND id = 1078")}` }, { headers: exempt }));
    expect(JSON.parse(unfenced(owner.contents[0].text)).entries).toHaveLength(1);
  });

  it('browse_table masks, and refuses a filter or an order on a private column', async () => {
    const browsed = await call('browse_table', { table: 'people', order_by: [{ column: 'id' }] });
    expectNoSecret(browsed);
    expect(browsed.structuredContent.columns.map((c: { name: string }) => c.name.toLowerCase())).toEqual(['id', 'name', 'email', 'phone', 'login_email']);
    expect(browsed.structuredContent.rows[0][2]).toBe('a***@e***.org');
    const chosen = await call('browse_table', { table: 'people', columns: ['id', 'ssn', 'login_email'], order_by: [{ column: 'id' }] });
    expect(chosen.structuredContent.columns.map((c: { name: string }) => c.name.toLowerCase())).toEqual(['id', 'login_email']);
    expect(chosen.structuredContent.rows[0][1]).toMatch(/^h:[0-9a-f]{16}$/);
    for (const args of [{ filters: [{ column: 'email', op: 'like', value: 'a%' }] }, { order_by: [{ column: 'ssn' }] }]) {
      const refused = await call('browse_table', { table: 'people', ...args });
      expect(refused.content[0].text).toMatch(/^denied: column (email|ssn) is private/);
    }
  });

  it('explain_query refuses what a run would refuse', async () => {
    const refused = await call('explain_query', { sql: "SELECT id FROM people WHERE email LIKE 'a%'", analyze: true });
    expect(refused.content[0].text).toMatch(/^denied: column email is private/);
  });

  it('INSERT … RETURNING gives the new row masked and hidden as a read would', async () => {
    const answered = await consented('execute_query', { sql: "INSERT INTO people (id, name, email, ssn, phone) VALUES (9, 'Zed', 'zed.lovelace@example.org', '078-05-1120', '+44 20 7946 0958') RETURNING id, email, ssn, phone" });
    expect(answered.isError, JSON.stringify(answered)).toBe(false);
    expectNoSecret(answered);
    expect(answered.structuredContent.columns.map((c: { name: string }) => c.name.toLowerCase())).toEqual(['id', 'email', 'phone']);
    expect(answered.structuredContent.rows).toEqual([[9, 'z***@e***.org', '+** ** **** ****']]);
    await fixture.query('DELETE FROM people WHERE id = 9');
  });

  it('a write’s consent shows the rows it would change with their private values masked', async () => {
    const asked = await callTool(app, 'execute_query', { connection_id: 'db', sql: "UPDATE people SET name = 'Ada L.' WHERE id = 1" }, { headers, extraMeta: ELICITATION_META });
    expect(asked.json.result.resultType).toBe('input_required');
    expectNoSecret(asked.json);
    expect(JSON.stringify(asked.json)).toContain('a***@e***.org');
  });

  it('a unique violation does not quote the private value it collides with', async () => {
    await fixture.query("INSERT INTO people (id, name, email) VALUES (3, 'Eve', 'ada.lovelace@example.org')");
    await fixture.query('CREATE UNIQUE INDEX people_name_email ON people (name, email)');
    const answered = await consented('execute_query', { sql: "UPDATE people SET name = 'Ada' WHERE id = 3" });
    expect(answered.isError, JSON.stringify(answered)).toBe(true);
    expectNoSecret(answered);
  });

  it('export_data writes masked values', async () => {
    const path = join(dataDir, 'people.csv');
    const exported = await consented('export_data', { sql: 'SELECT * FROM people', format: 'csv', path });
    expect(exported.isError, JSON.stringify(exported)).toBe(false);
    const written = readFileSync(path, 'utf8');
    expect(written).toContain('a***@e***.org');
    for (const secret of SECRETS) expect(written.toLowerCase()).not.toContain(secret);
    expect(written.split('\n')[0]?.toLowerCase()).not.toContain('ssn');
  });
});
