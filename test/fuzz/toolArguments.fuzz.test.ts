/**
 * No tool argument, resource URI or prompt argument ever gives -32603 (issue 16, finding 10): an
 * unknown schema on SQLite once did, through the table-list and table resources. On each engine, for
 * each tool a readOnly token sees, arguments are generated from the tool's own inputSchema — the
 * fixture's real names, unknown ones, hostile strings, wrong types, nulls, nested objects — and every
 * answer must be a result (a tool error's text starting with one of the contract's codes) or a
 * protocol error of the contract other than -32603. Resource templates and prompts get the same.
 * Nothing can be written: the token is readOnly.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableEngines, startFixtureApp } from '../helpers/engines.js';
import { mcp, mintToken, type TestApp } from '../helpers/testApp.js';
import { text } from './arbitraries.js';
import { CaseTally, fuzzParameters, share, timeoutFor } from './fuzzBudget.js';

type Schema = { type?: string | string[]; enum?: unknown[]; items?: Schema; properties?: Record<string, Schema>; minimum?: number; maximum?: number };

// internal_failure is left out on purpose: it means Sluice itself threw, which no input may cause.
const TOOL_ERROR_CODES = ['invalid_argument', 'not_connected', 'not_found', 'denied', 'timeout', 'unsupported', 'query_failed', 'user_cancelled'];
const ALLOWED_ERRORS = new Set([-32602, -33007, -33003, -33010, -33000]);
const NAMES = ['books', 'authors', 'book_titles', 'sluice_canary', 'nope', 'BOOKS', 'main', 'public', 'test', 'information_schema', 'pg_catalog', 'sqlite_schema', 'id', 'title', 'author_id'];

/** Names and values the fixture has, unknown ones, and hostile text. */
const stringArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NAMES, 'db') },
  { weight: 2, arbitrary: text(60) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '"', "'", '`', '\\', '%', '_', '\u0000', 'x'.repeat(5_000), 'a.b', '"books"', '[books]', 'books; DROP TABLE books', '../../etc/passwd') },
);
const hostile: fc.Arbitrary<unknown> = fc.oneof(fc.constant(null), fc.integer(), fc.double(), fc.boolean(), fc.constant([]), fc.constant({}), fc.constant({ nested: { deep: [1, { x: 'y' }] } }), stringArb);

/** A value for `schema`: mostly one that fits, sometimes anything. */
function valueFor(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 3) return hostile;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const fitting: fc.Arbitrary<unknown>[] = [];
  if (schema.enum) fitting.push(fc.constantFrom(...schema.enum));
  if (types.includes('string')) fitting.push(stringArb);
  if (types.includes('integer')) fitting.push(fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 100_000, 100_000) }), fc.constantFrom(-1, 0, 2 ** 53, 1.5));
  if (types.includes('number')) fitting.push(fc.double({ noNaN: true }));
  if (types.includes('boolean')) fitting.push(fc.boolean());
  if (types.includes('array')) fitting.push(fc.array(valueFor(schema.items, depth + 1), { maxLength: 4 }));
  if (types.includes('object') && schema.properties) fitting.push(objectFor(schema, depth + 1));
  if (fitting.length === 0) return hostile;
  return fc.oneof({ weight: 6, arbitrary: fc.oneof(...fitting) }, { weight: 1, arbitrary: hostile });
}

function objectFor(schema: Schema, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(schema.properties ?? {}).map(([key, property]) => [key, valueFor(property, depth)] as const);
  return fc.record(Object.fromEntries(entries), { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
}

const engines = await availableEngines();

describe.each(engines)('tool, resource and prompt arguments on %s never give -32603', (engine) => {
  let app: TestApp;
  let dispose: () => Promise<void>;
  let headers: Record<string, string>;
  const tally = new CaseTally(`tool arguments (${engine})`);
  const runs = share(0.02);

  const expectContractAnswer = (res: { status: number; json: any }, what: string) => {
    if ('error' in (res.json ?? {})) {
      expect(res.json.error.code, `${what}: ${res.json.error.message}`).not.toBe(-32603);
      expect(ALLOWED_ERRORS, `${what}: ${JSON.stringify(res.json.error)}`).toContain(res.json.error.code);
      return `rpc ${res.json.error.code}`;
    }
    expect(res.status, what).toBe(200);
    const result = res.json.result;
    if (result?.isError) {
      const code = String(result.content[0].text).split(':')[0] ?? '';
      expect(TOOL_ERROR_CODES, `${what}: ${result.content[0].text}`).toContain(code);
      return code;
    }
    return 'result';
  };

  beforeAll(async () => {
    ({ app, dispose } = await startFixtureApp(engine, { auth: true, callerLimits: { requestsPerWindow: 1_000_000_000, windowSeconds: 60, concurrent: 8 } }));
    headers = mintToken(app, 'fuzz', 'readOnly').headers;
  });
  afterAll(async () => {
    tally.print();
    await dispose?.();
  });

  it('every tool, with arguments from its inputSchema', async () => {
    const tools = (await mcp(app, 'tools/list', {}, { headers })).json.result.tools as { name: string; inputSchema: Schema }[];
    expect(tools.length).toBeGreaterThan(5);
    for (const tool of tools) {
      await fc.assert(
        fc.asyncProperty(
          fc.boolean(),
          objectFor(tool.inputSchema),
          tally.count(tool.name, async (onFixture, generated) => {
            const args = onFixture ? { connection_id: 'db', ...generated } : generated;
            const res = await mcp(app, 'tools/call', { name: tool.name, arguments: args }, { headers });
            tally.outcome(tool.name, expectContractAnswer(res, `${tool.name}(${JSON.stringify(args).slice(0, 300)})`));
          }),
        ),
        fuzzParameters(runs),
      );
    }
  }, timeoutFor(runs * 12, 40));

  it('every resource template and prompt, with hostile variables and arguments', async () => {
    const templates = ['sluice://connections/{c}/schema', 'sluice://connections/{c}/tables?schema={s}', 'sluice://connections/{c}/tables/{t}?schema={s}', 'sluice://connections/{c}/tables/{t}/ddl?schema={s}', 'sluice://connections/{c}/history?limit={s}&search={t}'];
    const prompts = (await mcp(app, 'prompts/list', {}, { headers })).json.result.prompts as { name: string; arguments?: { name: string }[] }[];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...templates), fc.constantFrom('db', 'nope', ''), stringArb, stringArb, tally.count('resources/read', async (template, c, s, t) => {
        const uri = template.replace('{c}', encodeURIComponent(c)).replace('{s}', encodeURIComponent(s)).replace('{t}', encodeURIComponent(t));
        const res = await mcp(app, 'resources/read', { uri }, { headers });
        tally.outcome('resources/read', expectContractAnswer(res, `resources/read ${uri.slice(0, 200)}`));
      })),
      fuzzParameters(runs),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...prompts), fc.boolean(), fc.dictionary(fc.constantFrom('connection_id', 'schema', 'table', 'question', 'sql', 'change', 'goal'), stringArb), tally.count('prompts/get', async (prompt, onFixture, generated) => {
        const args = onFixture ? { connection_id: 'db', ...generated } : generated;
        const res = await mcp(app, 'prompts/get', { name: prompt.name, arguments: args }, { headers });
        tally.outcome('prompts/get', expectContractAnswer(res, `prompts/get ${prompt.name} ${JSON.stringify(args).slice(0, 200)}`));
      })),
      fuzzParameters(runs),
    );
  }, timeoutFor(runs * 2, 40));
});
