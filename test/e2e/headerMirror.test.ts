import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilityModules, Tool } from '../../src/capabilities/types.js';
import { rawMcp } from '../helpers/rawHttp.js';
import { expectModernSuccess, expectRpcError } from '../helpers/rpcAssertions.js';
import { callTool, MODERN, mcp, startTestApp, type TestApp } from '../helpers/testApp.js';

/** Contract, "Required headers (modern era)": any missing, malformed or disagreeing header gives -32020. */

/** A tool whose arguments nest objects, so that `Mcp-Param-<field>` has to descend to find a field. */
const nestedEcho: Tool = {
  name: 'nested_echo',
  title: 'Echo nested arguments',
  description: 'Returns its arguments; a fixture for the header mirror tests.',
  inputSchema: {
    type: 'object',
    properties: {
      regionCode: { type: 'string' },
      target: {
        type: 'object',
        properties: {
          region: { type: 'string' },
          depth: { type: 'integer' },
          inner: { type: 'object', properties: { zone: { type: 'string' } } },
        },
      },
      tags: { type: 'array', items: { type: 'string' } },
    },
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { echoed: { type: 'object', properties: {} } } },
  annotations: { readOnlyHint: true, destructiveHint: false },
  scopes: [],
  async run(args) {
    return { echoed: args };
  },
};

const fixtures: CapabilityModules = { tools: [nestedEcho as Tool<never>], resources: [], prompts: [] };

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ extraCapabilities: [fixtures] });
});
afterAll(() => app.dispose());

const wrap = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
const expectMismatch = (res: Awaited<ReturnType<typeof mcp>>, id: unknown = 1) =>
  expectRpcError(res, 400, -32020, id);

const nestedArgs = {
  regionCode: 'EU-West',
  target: { region: 'eu', depth: 3, inner: { zone: 'z1' } },
  tags: ['a'],
};

/** A `tools/list` over node:http, which adds no headers of its own: `headers` replace the mirrored ones. */
const rawList = (headers: Record<string, string | string[] | null>) => rawMcp(app, 'tools/list', {}, headers);

describe('Content-Type', () => {
  it('missing (with a JSON body) → 400 -32020', async () => {
    expectMismatch(await rawList({ 'Content-Type': null }));
  });

  const REFUSED = '(with a JSON body) → 400 -32020';
  const ACCEPTED = 'is accepted';

  // The body is JSON every time: only a JSON media type (any case, any parameters, a +json suffix) passes.
  it.each([
    ['text/plain', REFUSED],
    ['text/plain;charset=UTF-8', REFUSED],
    ['application/xml', REFUSED],
    ['application/jsonx', REFUSED],
    ['application/x-www-form-urlencoded', REFUSED],
    ['multipart/form-data; boundary=x', REFUSED],
    ['json', REFUSED],
    ['application/json', ACCEPTED],
    ['application/json; charset=utf-8', ACCEPTED],
    ['application/json;charset=UTF-8', ACCEPTED],
    ['Application/JSON', ACCEPTED],
    ['application/vnd.api+json', ACCEPTED],
    ['application/ld+json', ACCEPTED],
  ])('%s %s', async (contentType, outcome) => {
    const res = await rawList({ 'Content-Type': contentType });
    if (outcome === ACCEPTED) expectModernSuccess(res);
    else expectMismatch(res);
  });
});

describe.each([
  [
    'MCP-Protocol-Version',
    {
      differing: ['2025-11-25', '2025-06-18', '2026-07-29', 'garbage', ''],
      from: 'the version in _meta',
      twice: [MODERN, '2025-11-25'],
    },
  ],
  [
    'Mcp-Method',
    {
      // (Edge whitespace cannot be tested here: HTTP strips it from header values before the server sees them.)
      differing: ['tools/call', 'Tools/List', 'tools/list/', 'resources/list', ''],
      from: 'the method of a tools/list body',
      // Sent twice even with the same value.
      twice: ['tools/list', 'tools/list'],
    },
  ],
])('%s', (header, { differing, from, twice }) => {
  it('missing → 400 -32020', async () => {
    expectMismatch(await mcp(app, 'tools/list', {}, { headers: { [header]: null } }));
  });

  it.each(differing)(`%j, differing from ${from} → 400 -32020`, async (value) => {
    expectMismatch(await mcp(app, 'tools/list', {}, { headers: { [header]: value } }));
  });

  it(`sent twice (${twice.join(', ')}) → 400 -32020`, async () => {
    expectMismatch(await rawList({ [header]: twice }));
  });
});

describe('Mcp-Method', () => {
  it('is checked before the method table: a wrong Mcp-Method on an unknown method is still -32020', async () => {
    expectMismatch(await mcp(app, 'no/such', {}, { headers: { 'mcp-method': 'tools/list' } }));
  });
});

describe('Mcp-Name', () => {
  it('tools/call: missing → 400 -32020', async () => {
    expectMismatch(await callTool(app, 'list_connections', {}, { headers: { 'mcp-name': null } }));
  });

  it('tools/call: differing from params.name → 400 -32020', async () => {
    expectMismatch(await callTool(app, 'list_connections', {}, { headers: { 'mcp-name': 'list_tables' } }));
  });

  it('tools/call: matching → success', async () => {
    const result = expectModernSuccess(await callTool(app, 'list_connections', {}));
    expect(result.isError).toBe(false);
  });

  const promptParams = { name: 'explain_table', arguments: { connection_id: 'demo', table: 'books' } };

  it('prompts/get: missing → 400 -32020', async () => {
    expectMismatch(await mcp(app, 'prompts/get', promptParams, { headers: { 'mcp-name': null } }));
  });

  it('prompts/get: differing from params.name → 400 -32020', async () => {
    expectMismatch(
      await mcp(app, 'prompts/get', promptParams, { headers: { 'mcp-name': 'explain_schema' } }),
    );
  });

  it('prompts/get: matching → success', async () => {
    expectModernSuccess(await mcp(app, 'prompts/get', promptParams));
  });

  const readParams = { uri: 'sluice://connections' };

  it('resources/read: missing → 400 -32020', async () => {
    expectMismatch(await mcp(app, 'resources/read', readParams, { headers: { 'mcp-name': null } }));
  });

  it.each(['sluice://connections/demo/schema', 'connections', 'sluice://connections/'])(
    'resources/read: %j differing from params.uri → 400 -32020',
    async (name) => {
      expectMismatch(await mcp(app, 'resources/read', readParams, { headers: { 'mcp-name': name } }));
    },
  );

  it('resources/read: matching params.uri → success', async () => {
    expectModernSuccess(await mcp(app, 'resources/read', readParams));
  });

  it('tools/call without params.name and with an Mcp-Name → 400 -32020', async () => {
    const res = await mcp(
      app,
      'tools/call',
      { arguments: {} },
      { headers: { 'mcp-name': 'list_connections' } },
    );
    expectMismatch(res);
  });
});

describe('Mcp-Param-<field>', () => {
  const countArgs = { connection_id: 'demo', table: 'books', exact: true };

  it('is validated only when sent: no Mcp-Param headers is fine', async () => {
    const result = expectModernSuccess(await callTool(app, 'count_rows', countArgs));
    expect(result.isError).toBe(false);
  });

  it('the field name is case-insensitive: Mcp-Param-CONNECTION_ID (as sent on the wire) matches connection_id', async () => {
    const params = { name: 'count_rows', arguments: countArgs };
    expectModernSuccess(await rawMcp(app, 'tools/call', params, { 'Mcp-Param-CONNECTION_ID': 'demo' }));
  });

  it('the field name is case-insensitive against a camelCase body key (regionCode)', async () => {
    const res = await callTool(app, 'nested_echo', nestedArgs, {
      headers: { 'Mcp-Param-REGIONCODE': 'EU-West' },
    });
    expectModernSuccess(res);
  });

  it('string values compare as text, case-sensitively: a different value → -32020', async () => {
    expectMismatch(
      await callTool(app, 'count_rows', countArgs, { headers: { 'Mcp-Param-Connection_Id': 'Demo' } }),
    );
    expectMismatch(
      await callTool(app, 'nested_echo', nestedArgs, { headers: { 'Mcp-Param-RegionCode': 'eu-west' } }),
    );
  });

  it('descends into nested objects: target.region and target.inner.zone', async () => {
    expectModernSuccess(
      await callTool(app, 'nested_echo', nestedArgs, { headers: { 'Mcp-Param-Region': 'eu' } }),
    );
    expectModernSuccess(
      await callTool(app, 'nested_echo', nestedArgs, { headers: { 'Mcp-Param-Zone': 'z1' } }),
    );
    expectModernSuccess(
      await callTool(app, 'nested_echo', nestedArgs, { headers: { 'Mcp-Param-Depth': '3' } }),
    );
  });

  it('a nested field with a different value → -32020', async () => {
    expectMismatch(await callTool(app, 'nested_echo', nestedArgs, { headers: { 'Mcp-Param-Region': 'us' } }));
    expectMismatch(await callTool(app, 'nested_echo', nestedArgs, { headers: { 'Mcp-Param-Zone': 'z2' } }));
  });

  it.each(['5', '5.0', '5.00', '5e0'])(
    'numbers compare numerically: max_rows 5 matches %j',
    async (header) => {
      const args = { connection_id: 'demo', sql: 'SELECT 1 AS one', max_rows: 5 };
      const res = await callTool(app, 'execute_query', args, { headers: { 'Mcp-Param-Max_Rows': header } });
      const result = expectModernSuccess(res);
      expect(result.isError).toBe(false);
    },
  );

  it.each(['6', '4.9', 'five', '5abc', ''])(
    'numbers: max_rows 5 does not match %j → -32020',
    async (header) => {
      const args = { connection_id: 'demo', sql: 'SELECT 1 AS one', max_rows: 5 };
      expectMismatch(
        await callTool(app, 'execute_query', args, { headers: { 'Mcp-Param-Max_Rows': header } }),
      );
    },
  );

  it('booleans compare as true/false: exact true matches "true"', async () => {
    expectModernSuccess(
      await callTool(app, 'count_rows', countArgs, { headers: { 'Mcp-Param-Exact': 'true' } }),
    );
    const falseArgs = { ...countArgs, exact: false };
    expectModernSuccess(
      await callTool(app, 'count_rows', falseArgs, { headers: { 'Mcp-Param-Exact': 'false' } }),
    );
  });

  it.each(['1', 'false', 'yes', ''])('booleans: exact true does not match %j → -32020', async (header) => {
    expectMismatch(await callTool(app, 'count_rows', countArgs, { headers: { 'Mcp-Param-Exact': header } }));
  });

  it('an array value never matches → -32020', async () => {
    const args = { connection_id: 'demo', sql: 'SELECT ? AS v', params: [1] };
    expectMismatch(await callTool(app, 'execute_query', args, { headers: { 'Mcp-Param-Params': '1' } }));
    expectMismatch(await callTool(app, 'execute_query', args, { headers: { 'Mcp-Param-Params': '[1]' } }));
    expectMismatch(await callTool(app, 'nested_echo', nestedArgs, { headers: { 'Mcp-Param-Tags': 'a' } }));
  });

  it('an object value never matches → -32020', async () => {
    const json = JSON.stringify(nestedArgs.target);
    expectMismatch(await callTool(app, 'nested_echo', nestedArgs, { headers: { 'Mcp-Param-Target': json } }));
    expectMismatch(
      await callTool(app, 'nested_echo', nestedArgs, { headers: { 'Mcp-Param-Inner': '[object Object]' } }),
    );
  });

  it('a null value never matches → -32020', async () => {
    const nullArgs = { ...nestedArgs, regionCode: null };
    // nested_echo would reject null for a string, but the header mirror runs first.
    expectMismatch(
      await callTool(app, 'nested_echo', nullArgs, { headers: { 'Mcp-Param-RegionCode': 'null' } }),
    );
  });

  it('a header naming a field absent from the body → -32020', async () => {
    expectMismatch(await callTool(app, 'count_rows', countArgs, { headers: { 'Mcp-Param-Schema': 'main' } }));
  });

  it('tools/call fields are matched against arguments, not params (Mcp-Param-Name) → -32020', async () => {
    expectMismatch(
      await callTool(app, 'count_rows', countArgs, { headers: { 'Mcp-Param-Name': 'count_rows' } }),
    );
  });

  it('one bad header among good ones → -32020', async () => {
    const res = await callTool(app, 'count_rows', countArgs, {
      headers: { 'Mcp-Param-Connection_Id': 'demo', 'Mcp-Param-Table': 'books', 'Mcp-Param-Exact': 'false' },
    });
    expectMismatch(res);
  });

  it('several matching headers → success', async () => {
    const res = await callTool(app, 'count_rows', countArgs, {
      headers: { 'Mcp-Param-Connection_Id': 'demo', 'Mcp-Param-Table': 'books', 'Mcp-Param-Exact': 'true' },
    });
    expectModernSuccess(res);
  });

  it('other methods match against params: Mcp-Param-Cursor on tools/list', async () => {
    // A matching header passes the mirror; the cursor itself is then refused by the handler (-32602).
    const same = await mcp(app, 'tools/list', { cursor: 'abc' }, { headers: { 'Mcp-Param-Cursor': 'abc' } });
    expectRpcError(same, 400, -32602, 1);
    const other = await mcp(app, 'tools/list', { cursor: 'abc' }, { headers: { 'Mcp-Param-Cursor': 'abd' } });
    expectMismatch(other);
    const absent = await mcp(app, 'tools/list', {}, { headers: { 'Mcp-Param-Cursor': 'abc' } });
    expectMismatch(absent);
  });

  it('other methods match against params: Mcp-Param-Uri on resources/read', async () => {
    const params = { uri: 'sluice://connections' };
    expectModernSuccess(
      await mcp(app, 'resources/read', params, { headers: { 'Mcp-Param-Uri': params.uri } }),
    );
    expectMismatch(await mcp(app, 'resources/read', params, { headers: { 'Mcp-Param-Uri': 'sluice://x' } }));
  });

  it('other methods descend into params: Mcp-Param-Table on prompts/get finds params.arguments.table', async () => {
    const params = { name: 'explain_table', arguments: { connection_id: 'demo', table: 'books' } };
    expectModernSuccess(
      await mcp(app, 'prompts/get', params, { headers: { 'Mcp-Param-Name': 'explain_table' } }),
    );
    expectModernSuccess(await mcp(app, 'prompts/get', params, { headers: { 'Mcp-Param-Table': 'books' } }));
    expectMismatch(await mcp(app, 'prompts/get', params, { headers: { 'Mcp-Param-Table': 'authors' } }));
  });
});

describe('non-ASCII values: the =?base64?…?= wrapper', () => {
  const cafeArgs = { connection_id: 'demo', sql: "SELECT 'café' AS word" };

  it('a wrapped non-ASCII tool argument matches, and the call runs', async () => {
    const res = await callTool(app, 'execute_query', cafeArgs, {
      headers: { 'Mcp-Param-Sql': wrap(cafeArgs.sql) },
    });
    const result = expectModernSuccess(res);
    expect(result.isError).toBe(false);
    expect(JSON.stringify(result.structuredContent)).toContain('café');
  });

  it('a wrapped value that decodes to something else → -32020', async () => {
    const res = await callTool(app, 'execute_query', cafeArgs, {
      headers: { 'Mcp-Param-Sql': wrap("SELECT 'cafe' AS word") },
    });
    expectMismatch(res);
  });

  it('a non-ASCII value sent raw (not wrapped) → -32020', async () => {
    // fetch sends the string as Latin-1 bytes; either way the server sees a non-ASCII header value.
    const res = await callTool(app, 'execute_query', cafeArgs, {
      headers: { 'Mcp-Param-Sql': cafeArgs.sql },
    });
    expectMismatch(res);
  });

  it('a non-ASCII value sent raw as UTF-8 bytes → -32020', async () => {
    const params = { name: 'execute_query', arguments: cafeArgs };
    expectMismatch(await rawMcp(app, 'tools/call', params, { 'Mcp-Param-Sql': cafeArgs.sql }));
  });

  it('a value with edge spaces, wrapped, matches', async () => {
    const args = { connection_id: 'demo', sql: '  SELECT 1 AS one ' };
    const res = await callTool(app, 'execute_query', args, { headers: { 'Mcp-Param-Sql': wrap(args.sql) } });
    expectModernSuccess(res);
  });

  it('a wrapped value that starts with U+FEFF (a byte order mark) matches', async () => {
    const args = { ...nestedArgs, regionCode: '\uFEFFEU' };
    const res = await callTool(app, 'nested_echo', args, {
      headers: { 'Mcp-Param-RegionCode': wrap(args.regionCode) },
    });
    expect(expectModernSuccess(res).structuredContent.echoed.regionCode).toBe('\uFEFFEU');
  });

  const bookArgs = { connection_id: 'demo', table: 'books' };

  it('a wrapped Mcp-Name works', async () => {
    const res = await callTool(app, 'count_rows', bookArgs, { headers: { 'mcp-name': wrap('count_rows') } });
    expect(expectModernSuccess(res).isError).toBe(false);
  });

  it('a wrapped Mcp-Name with a non-ASCII resource URI is compared after decoding', async () => {
    const uri = 'sluice://connections/demo/tables/café';
    // The mirror passes (the decoded name equals the URI); the unknown table is then -32602, not -32020.
    const wrapped = await mcp(app, 'resources/read', { uri }, { headers: { 'mcp-name': wrap(uri) } });
    expectRpcError(wrapped, 400, -32602, 1);
    const wrappedWrong = await mcp(
      app,
      'resources/read',
      { uri },
      { headers: { 'mcp-name': wrap(`${uri}s`) } },
    );
    expectMismatch(wrappedWrong);
  });

  it('a wrapped Mcp-Name that differs → -32020', async () => {
    const res = await callTool(app, 'count_rows', bookArgs, { headers: { 'mcp-name': wrap('list_tables') } });
    expectMismatch(res);
  });

  it.each([
    ['not base64', '=?base64?!!!?='],
    ['bad padding (length not a multiple of 4)', '=?base64?Y2Fmw6k?='],
    ['too much padding', '=?base64?Y2Fmw6k===?='],
    ['padding in the middle', '=?base64?Y2=mw6k=?='],
    ['not closed', '=?base64?Y2Fmw6k='],
    ['not closed, no trailing =', '=?base64?Y2Fmw6k=?'],
    ['another encoding', '=?utf-8?Y2Fmw6k=?='],
    ['base64 of invalid UTF-8', '=?base64?/w==?='],
    ['text after the wrapper', '=?base64?Y2Fmw6k=?=x'],
    ['an opening only', '=?'],
  ])('a malformed wrapper (%s) → -32020', async (_label, value) => {
    const res = await callTool(app, 'execute_query', cafeArgs, { headers: { 'Mcp-Param-Sql': value } });
    expectMismatch(res);
  });

  it('a malformed wrapper on Mcp-Name → -32020', async () => {
    const res = await callTool(app, 'list_connections', {}, { headers: { 'mcp-name': '=?base64?bGlzdA?=' } });
    expectMismatch(res);
  });

  it('a control character (tab) inside a header value → -32020, and the same value wrapped matches', async () => {
    // Node's HTTP client and server refuse every control character except HTAB (see
    // test/unit/protocol/headerValue.test.ts for the others); a tab inside the value reaches the server.
    const args = { connection_id: 'demo', sql: "SELECT 'a\tb' AS v" };
    expectMismatch(await callTool(app, 'execute_query', args, { headers: { 'Mcp-Param-Sql': args.sql } }));
    const res = await callTool(app, 'execute_query', args, { headers: { 'Mcp-Param-Sql': wrap(args.sql) } });
    expect(expectModernSuccess(res).isError).toBe(false);
  });

  it('a control character (tab) inside Mcp-Method equal to the body’s method → -32020 (not -32601)', async () => {
    // mcp() mirrors the body's method, tab included, into Mcp-Method.
    expectMismatch(await mcp(app, 'tools/\tlist'));
  });
});
