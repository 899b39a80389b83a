/**
 * No tool argument, resource URI or prompt argument ever gives -32603 (issue 16, finding 10): an
 * unknown schema on SQLite once did, through the table-list and table resources. On each engine, for
 * each tool a readOnly token sees, arguments are generated from the tool's own inputSchema — the
 * fixture's real names, unknown ones, hostile strings, wrong types, nulls, nested objects — and every
 * answer must be a result (a tool error's text starting with one of the contract's codes) or a
 * protocol error of the contract other than -32603. Resource templates and prompts get the same.
 * Nothing can be written: the token is readOnly.
 *
 * Control characters (issue 27, finding 2): every string of every tool's arguments (a fullAccess token
 * sees every tool), every resource-template variable and every prompt argument, each in turn, is given
 * a control character in an otherwise fitting call. The answer is a clean one as above; a `database`
 * is `invalid_argument` naming it. Writes still ask first (the client declares elicitation and never
 * answers), so nothing is written here either.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ELICITATION_META } from '../helpers/consentRoundTrip.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, type EngineFixture, startFixtureApp } from '../helpers/engines.js';
import { mcp, mintToken, type TestApp } from '../helpers/testApp.js';
import { controlCharacter, text } from './arbitraries.js';
import { CaseTally, fuzzParameters, share, timeoutFor } from './fuzzBudget.js';
import { isPlainObject } from './wireRules.js';

type Schema = { type?: string | string[]; enum?: unknown[]; items?: Schema; properties?: Record<string, Schema>; required?: string[]; minimum?: number; maximum?: number };

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

/** Where one string of a call sits: property names and array indexes; `{ key }` is an object's key itself. */
type Step = string | number | { key: string };

/**
 * A call that fits `schema` with every property that holds text given (numbers and booleans only when
 * required): a fitting value by its name from `fitting`, else `x`; the first of an enum.
 */
function fittingValue(schema: Schema | undefined, name: string, fitting: Record<string, string>): unknown {
  const types = Array.isArray(schema?.type) ? schema.type : [schema?.type];
  if (schema?.enum) return schema.enum[0];
  if (types.includes('integer') || types.includes('number')) return schema?.minimum ?? 1;
  if (types.includes('boolean')) return false;
  if (types.includes('array')) return [fittingValue(schema?.items, name, fitting)];
  if (types.includes('object')) {
    const properties = Object.entries(schema?.properties ?? {});
    // An object of free keys (insert_rows' rows) is keyed by column names.
    if (properties.length === 0) return { [fitting.column as string]: 'x' };
    const given = properties.filter(([key, property]) => schema?.required?.includes(key) || !['integer', 'number', 'boolean'].includes(String(property.type)));
    return Object.fromEntries(given.map(([key, property]) => [key, fittingValue(property, key, fitting)]));
  }
  return fitting[name] ?? 'x';
}

/** Every string of `value`: string values, and the keys of objects `schema` declares no properties for. */
function stringPaths(schema: Schema | undefined, value: unknown, path: Step[] = []): Step[][] {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringPaths(schema?.items, item, [...path, i]));
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const property = schema?.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    return [...(property ? [] : [[...path, { key }]]), ...stringPaths(property, item, [...path, key])];
  });
}

/** `value` with `character` put into the string at `path`, `at` characters in (modulo its length + 1). */
function withControl(value: unknown, path: readonly Step[], character: string, at: number): unknown {
  const insert = (s: string) => {
    const i = at % (s.length + 1);
    return `${s.slice(0, i)}${character}${s.slice(i)}`;
  };
  const [step, ...rest] = path;
  if (step === undefined) return insert(value as string);
  if (typeof step === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k === step.key ? insert(k) : k, v]));
  }
  if (Array.isArray(value)) return value.map((item, i) => (i === step ? withControl(item, rest, character, at) : item));
  return { ...(value as Record<string, unknown>), [step]: withControl((value as Record<string, unknown>)[step], rest, character, at) };
}

const label = (path: readonly Step[]) => path.map((step) => (typeof step === 'object' ? `{${step.key}}` : String(step))).join('.');

/** What a `database` holding `character` is answered with (src/capabilities/connectionArgs.ts). */
const refusedDatabase = (character: string) =>
  `invalid_argument: database must not contain a control character (it holds U+${(character.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')})`;

/** An RFC 6570 template (`{a}`, `{?b,c}`) expanded with `values`. */
const expand = (template: string, values: Record<string, string>) =>
  template
    .replace(/\{\?([^}]+)\}/g, (_, names: string) => `?${names.split(',').map((n) => `${n}=${encodeURIComponent(values[n] as string)}`).join('&')}`)
    .replace(/\{([^}?]+)\}/g, (_, name: string) => encodeURIComponent(values[name] as string));

const templateVariables = (template: string) => [...template.matchAll(/\{\??([^}]+)\}/g)].flatMap((m) => (m[1] as string).split(','));

const engines = await availableEngines();

describe.each(engines)('tool, resource and prompt arguments on %s never give -32603', (engine) => {
  skipListed('toolArguments', engine);
  let app: TestApp;
  let fixture: EngineFixture;
  let dispose: () => Promise<void>;
  let headers: Record<string, string>;
  let everyTool: Record<string, string>;
  let exportDir: string;
  const tally = new CaseTally(`tool arguments (${engine})`);
  const runs = share(0.02);
  /** Cases per string of each call, besides a NUL at its start. */
  const perString = share(0.0008);

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
    ({ app, fixture, dispose } = await startFixtureApp(engine, { auth: true, callerLimits: { requestsPerWindow: 1_000_000_000, windowSeconds: 60, concurrent: 8 } }));
    headers = mintToken(app, 'fuzz', 'readOnly').headers;
    everyTool = mintToken(app, 'fuzz, every tool', 'fullAccess').headers;
    exportDir = mkdtempSync(join(tmpdir(), 'sluice-fuzz-export-'));
  });
  afterAll(async () => {
    tally.print();
    await dispose?.();
    rmSync(exportDir, { recursive: true, force: true });
  });

  /** A fitting value for each argument, variable and prompt argument by its name. */
  const fitting = (): Record<string, string> => ({
    connection_id: 'db',
    database: fixture.database,
    schema: { sqlite: 'main', postgres: 'public', mysql: fixture.database, duckdb: 'main' }[engine],
    table: 'books',
    view: 'book_titles',
    column: 'title',
    columns: 'title',
    query: 'book',
    sql: 'SELECT 1',
    path: join(exportDir, 'books.csv'),
    question: 'How many books are there?',
    change: 'Add a column for the publisher',
    limit: '10',
    kind: 'read',
    outcome: 'success',
  });

  /** Runs `send` with a control character at each string of `call` in turn; a `database` must be refused, anything else answered cleanly. */
  async function eachStringWithControl(name: string, call: unknown, schema: Schema | undefined, send: (call: unknown) => Promise<{ status: number; json: any }>) {
    for (const path of stringPaths(schema, call)) {
      await fc.assert(
        fc.asyncProperty(controlCharacter, fc.nat(), tally.count(`${name} (control characters)`, async (character, at) => {
          const changed = withControl(call, path, character, at);
          const res = await send(changed);
          const what = `${name} ${label(path)} with U+${(character.codePointAt(0) as number).toString(16)}: ${JSON.stringify(changed).slice(0, 300)}`;
          tally.outcome(`${name} (control characters)`, expectContractAnswer(res, what));
          if (path[path.length - 1] === 'database') {
            expect(res.json.result?.content?.[0]?.text ?? res.json.error?.message, what).toBe(refusedDatabase(character));
          }
        })),
        { ...fuzzParameters(perString), examples: [['\u0000', 0]] },
      );
    }
  }

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

  it('a control character in every string of every tool, resource template and prompt: database refused, never -32603', async () => {
    const tools = (await mcp(app, 'tools/list', {}, { headers: everyTool })).json.result.tools as { name: string; inputSchema: Schema }[];
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['insert_rows', 'export_data', 'confirm_destructive_operation']));
    for (const tool of tools) {
      await eachStringWithControl(tool.name, fittingValue(tool.inputSchema, '', fitting()), tool.inputSchema, (args) =>
        mcp(app, 'tools/call', { name: tool.name, arguments: args }, { headers: everyTool, extraMeta: ELICITATION_META }),
      );
    }
    const templates = (await mcp(app, 'resources/templates/list', {}, { headers })).json.result.resourceTemplates as { uriTemplate: string }[];
    for (const { uriTemplate } of templates) {
      const variables = Object.fromEntries(templateVariables(uriTemplate).map((v) => [v, fitting()[v] ?? 'x']));
      await eachStringWithControl(uriTemplate, variables, undefined, (values) =>
        mcp(app, 'resources/read', { uri: expand(uriTemplate, values as Record<string, string>) }, { headers }),
      );
    }
    const prompts = (await mcp(app, 'prompts/list', {}, { headers })).json.result.prompts as { name: string; arguments?: { name: string }[] }[];
    for (const prompt of prompts) {
      const args = Object.fromEntries((prompt.arguments ?? []).map((a) => [a.name, fitting()[a.name] ?? 'x']));
      await eachStringWithControl(prompt.name, args, undefined, (changed) => mcp(app, 'prompts/get', { name: prompt.name, arguments: changed }, { headers }));
    }
  }, timeoutFor(perString * 600, 60));
});
