/**
 * Fuzzing the JSON-RPC envelope of POST /mcp (issue 9, item 2; wire-contract.md "Request envelope",
 * "Protocol errors", "Versioning"). Every answer must pass the shared checker (wireRules.ts): a listed
 * status, the code that goes with it, the id echo rule, the result envelope of the era, no leaked
 * internals, and an answer within 5 s. On top of that:
 *
 * - anything that is not JSON is -32700; JSON that is not one well-formed JSON-RPC message is -32600;
 *   a well-formed notification is 202; a modern request is never refused as an envelope problem;
 * - one fault at a time in a valid request gives the contract's code for that fault;
 * - legacy requests in a session get legacy results, and are never refused for the session itself;
 * - an argument a tool does not declare is -32602 (decisions.md), whatever its name.
 *
 * Subscriptions (`subscriptions/listen`) are read up to their acknowledgement and then left, as a
 * client may; progress streams are read to their last frame. At the end the live actors are back at
 * their baseline (plus the legacy sessions fuzzed initialize calls opened, which live until the server
 * stops, at most 16).
 *
 * Headers are mirrored from the body (encodeHeaderValue, as a client following the contract does), so
 * that a fuzzed body gets past the header mirror to the version, authentication and method layers.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCapabilities } from '../../src/capabilities/registry.js';
import { encodeHeaderValue } from '../../src/protocol/headerValue.js';
import {
  ARGUMENT_NAMES,
  hostileObject,
  HOSTILE_KEYS,
  isWellFormed,
  jsonish,
  jsonLeaf,
  jsonObject,
  METHODS,
  nonObject,
  nonString,
  PROMPT_NAMES,
  text,
  TOOL_NAMES,
  VERSIONS,
} from './arbitraries.js';
import { type FuzzApp, settle, startFuzzApp } from './fuzzApp.js';
import { CaseTally, FUZZ_RUNS, fuzzParameters, share, timeoutFor } from './fuzzBudget.js';
import {
  checkMcpReply,
  codeOf,
  echoesOf,
  isPlainObject,
  labelOf,
  META_CAPABILITIES,
  META_VERSION,
  MODERN_VERSION,
  type Outcome,
  type RequestFacts,
  requestFacts,
} from './wireRules.js';

const RUNS = {
  json: share(0.1),
  bytes: share(0.1),
  mutated: share(0.3),
  legacy: share(0.12),
  hostile: share(0.12),
  undeclared: share(0.04),
  faults: FUZZ_RUNS - share(0.1) - share(0.1) - share(0.3) - share(0.12) - share(0.12) - share(0.04),
};

let f: FuzzApp;
const tally = new CaseTally('envelope');
/** Outcome labels per property, for the closing note. */
let current = '';
let sessionsOpened = 0;
let lastSessionId = '';
const LEGACY_VERSION = '2025-11-25';
const MODERN_ONLY = new Set(['server/discover', 'subscriptions/listen']);

beforeAll(async () => {
  f = await startFuzzApp();
});
afterAll(async () => {
  tally.print();
  await f?.dispose();
});

type Headers = Record<string, string>;

/** The headers a client following the contract sends with `value`: mirrored from it where it can be. */
function mirrorOf(value: unknown): Headers {
  const headers: Headers = { 'Content-Type': 'application/json' };
  if (!isPlainObject(value)) return { ...headers, 'MCP-Protocol-Version': MODERN_VERSION, 'Mcp-Method': 'tools/list' };
  const { method } = value;
  const params = isPlainObject(value.params) ? value.params : {};
  const meta = isPlainObject(params._meta) ? params._meta : undefined;
  const mirror = (name: string, v: unknown) => {
    if (typeof v === 'string' && isWellFormed(v)) headers[name] = encodeHeaderValue(v);
  };
  mirror('Mcp-Method', method);
  if (meta && META_VERSION in meta) mirror('MCP-Protocol-Version', meta[META_VERSION]);
  if (method === 'tools/call' || method === 'prompts/get') mirror('Mcp-Name', params.name);
  if (method === 'resources/read') mirror('Mcp-Name', params.uri);
  return headers;
}

type Sent = { facts: RequestFacts; outcome: Outcome; authed: boolean };

/** Sends one body, checks the answer against the contract, and returns what it was. */
async function send(body: string | Uint8Array, headers: Headers, authed = true): Promise<Sent> {
  const sent = authed ? { ...headers, Authorization: `Bearer ${f.token}` } : headers;
  const reply = await f.client.send({ body, headers: sent });
  const facts = requestFacts(body);
  const outcome = checkMcpReply(reply, facts, { echoes: echoesOf(facts.value, sent), sent: `${JSON.stringify(headers)} ${typeof body === 'string' ? body : `0x${Buffer.from(body).toString('hex')}`}` });
  if (reply.headers['mcp-session-id'] !== undefined) {
    sessionsOpened += 1;
    lastSessionId = reply.headers['mcp-session-id'];
  }
  tally.outcome(current, labelOf(outcome));
  return { facts, outcome, authed };
}

/** Opens a legacy session of the token the contract's way (initialize) and returns its id. */
async function openLegacySession(): Promise<string> {
  const opened = await send(json({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'fuzz' } } }), { 'Content-Type': 'application/json' });
  expect(opened.outcome.kind).toBe('result');
  expect(lastSessionId).toMatch(/./);
  return lastSessionId;
}

/** The envelope rules every answer obeys, whatever the body. */
function expectEnvelopeRules({ facts, outcome, authed }: Sent): void {
  const code = codeOf(outcome);
  const unauthenticated = !authed && code === -33009;
  if (!facts.parsed) {
    expect(unauthenticated || code === -32700, 'a body that is not JSON → -32700').toBe(true);
  } else if (!facts.wellFormed) {
    expect(unauthenticated || code === -32600, 'JSON that is not one JSON-RPC message → -32600').toBe(true);
  } else if (facts.notification && authed) {
    expect(outcome.kind, 'an authenticated notification → 202').toBe('accepted');
  } else if (facts.era === 'modern') {
    expect([-32700, -32600], 'a well-formed modern request is not an envelope error').not.toContain(code);
  }
}

const json = (value: unknown) => JSON.stringify(value);

// ---------------------------------------------------------------------------------------------------
// Arbitraries: valid-looking requests of every method, and their mutations.

const ABSENT = Symbol('absent');
type Maybe<T> = T | typeof ABSENT;
/** `arb`, or (with the odds `1 : presence`) ABSENT. */
const maybe = <T>(arb: fc.Arbitrary<T>, presence = 1): fc.Arbitrary<Maybe<T>> =>
  fc.oneof({ weight: Math.round(presence * 20), arbitrary: arb }, { weight: 20, arbitrary: fc.constant(ABSENT) });
/** An object without the keys whose value is ABSENT. */
function present(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== ABSENT));
}

const connectionId = fc.oneof({ weight: 4, arbitrary: fc.constant('demo') }, text(12));
const tableName = fc.oneof(fc.constantFrom('books', 'authors', 'orders', 'customers', 'sqlite_master'), text(12));
const sqlText = fc.oneof(
  fc.constantFrom(
    'SELECT 1',
    'SELECT * FROM books LIMIT 3',
    'select count(*) from orders',
    'DELETE FROM books',
    'DROP TABLE books',
    'SELECT 1; SELECT 2',
    'PRAGMA table_info(books)',
    'WITH x AS (SELECT 1) SELECT * FROM x',
    '',
    '-- comment only',
  ),
  text(60),
);
const argumentValue = fc.oneof(connectionId, tableName, sqlText, jsonLeaf, jsonish(2));
const toolArguments = fc.oneof(
  { weight: 3, arbitrary: fc.dictionary(fc.constantFrom(...ARGUMENT_NAMES, ...HOSTILE_KEYS), argumentValue, { maxKeys: 4 }) },
  { weight: 1, arbitrary: jsonObject(2) },
  { weight: 1, arbitrary: nonObject },
);
const resourceUri = fc.oneof(
  fc.constantFrom(
    'sluice://connections',
    'sluice://connections/demo/schema',
    'sluice://connections/demo/tables',
    'sluice://connections/demo/tables/books',
    'sluice://connections/demo/tables/books/ddl',
    'sluice://connections/demo/history?limit=5',
    'sluice://connections/%ZZ/schema',
    'sluice://connections/demo/tables/%E0%A4%A',
    'sluice://connections/demo/tables?schema=main&x=1',
    'sluice://connections#frag',
    'file:///etc/passwd',
    'http://127.0.0.1/',
  ),
  text(40).map((t) => `sluice://connections/${t}`),
  text(40),
);
const cursorValue = fc.oneof(fc.base64String({ maxLength: 80 }), text(30), nonString);

/** The params a method takes, mostly well typed, sometimes not. */
function paramsFor(method: string): fc.Arbitrary<Record<string, unknown>> {
  switch (method) {
    case 'tools/call':
      return fc
        .record({
          name: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...TOOL_NAMES) }, text(20), nonString),
          arguments: maybe(toolArguments, 4),
          requestState: maybe(fc.oneof(fc.base64String({ maxLength: 60 }), text(20), nonString), 0.2),
          inputResponses: maybe(fc.oneof(jsonObject(3), nonObject), 0.2),
        })
        .map(present);
    case 'prompts/get':
      return fc
        .record({
          name: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PROMPT_NAMES) }, text(20), nonString),
          arguments: maybe(fc.oneof(fc.dictionary(fc.constantFrom(...ARGUMENT_NAMES), fc.oneof(connectionId, tableName, sqlText, jsonLeaf), { maxKeys: 3 }), nonObject), 4),
        })
        .map(present);
    case 'resources/read':
      return fc.record({ uri: fc.oneof({ weight: 5, arbitrary: resourceUri }, nonString) });
    case 'completion/complete':
      return fc
        .record({
          ref: fc.oneof(
            fc.record({ type: fc.constant('ref/prompt'), name: fc.oneof(fc.constantFrom(...PROMPT_NAMES), text(10), nonString) }),
            fc.record({
              type: fc.constant('ref/resource'),
              uri: fc.oneof(fc.constantFrom('sluice://connections/{connection_id}/tables/{table}{?schema}', 'sluice://connections/{connection_id}/schema'), text(20), nonString),
            }),
            jsonObject(2),
            nonObject,
          ),
          argument: fc.oneof(
            { weight: 3, arbitrary: fc.record({ name: fc.oneof(fc.constantFrom(...ARGUMENT_NAMES), text(10), nonString), value: fc.oneof(text(10), nonString) }) },
            nonObject,
          ),
          context: maybe(fc.oneof(fc.record({ arguments: fc.oneof(fc.dictionary(fc.constantFrom(...ARGUMENT_NAMES), fc.oneof(connectionId, jsonLeaf)), nonObject) }), nonObject)),
        })
        .map(present);
    case 'tools/list':
    case 'resources/list':
    case 'resources/templates/list':
    case 'prompts/list':
      return fc.record({ cursor: maybe(cursorValue, 0.3) }).map(present);
    case 'logging/setLevel':
      return fc.record({ level: fc.oneof(fc.constantFrom('debug', 'info', 'error', 'emergency'), text(10), nonString) });
    case 'initialize':
      return fc
        .record({
          protocolVersion: fc.oneof(fc.constantFrom(...VERSIONS), text(12), nonString),
          capabilities: maybe(fc.oneof(jsonObject(2), nonObject)),
          clientInfo: maybe(fc.oneof(fc.record({ name: text(10), version: text(5) }), jsonObject(1), nonObject)),
        })
        .map(present);
    case 'notifications/cancelled':
      return fc.record({ requestId: maybe(fc.oneof(fc.integer(), text(10), nonString)), reason: maybe(fc.oneof(text(20), nonString)) }).map(present);
    case 'subscriptions/listen':
      return fc.record({
        notifications: fc.oneof(
          fc.record({ resourcesListChanged: fc.boolean(), resourceSubscriptions: maybe(fc.oneof(fc.array(resourceUri, { maxLength: 2 }), nonObject)) }).map(present),
          jsonObject(2),
          nonObject,
        ),
      });
    default:
      return jsonObject(2);
  }
}

/** A valid modern `_meta`, with any of the optional keys. */
const validMetaArb = fc
  .record({
    [META_VERSION]: fc.constant(MODERN_VERSION),
    [META_CAPABILITIES]: fc.constantFrom({}, { elicitation: {} }, { sampling: {}, roots: { listChanged: true } }),
    'io.modelcontextprotocol/clientInfo': maybe(fc.record({ name: text(10), title: text(10), version: text(5) }), 0.3),
    progressToken: maybe(fc.oneof(fc.integer(), text(10)), 0.15),
    traceparent: maybe(text(55), 0.1),
  })
  .map(present);

/** `_meta`: mostly the modern one, with any of its keys mistyped, missing or extended. */
const metaArb: fc.Arbitrary<Maybe<unknown>> = fc.oneof(
  { weight: 12, arbitrary: validMetaArb },
  {
    weight: 8,
    arbitrary: fc
      .record({
        [META_VERSION]: fc.oneof(
          { weight: 10, arbitrary: fc.constant(MODERN_VERSION) },
          fc.constantFrom(...VERSIONS, ''),
          text(12),
          nonString,
          fc.constant(ABSENT),
        ),
        [META_CAPABILITIES]: fc.oneof(
          { weight: 10, arbitrary: fc.constant({}) },
          fc.constant({ elicitation: {} }),
          jsonObject(2),
          nonObject,
          fc.constant(ABSENT),
        ),
        'io.modelcontextprotocol/clientInfo': maybe(fc.oneof(fc.record({ name: text(10), title: text(10), version: text(5) }), jsonObject(1), nonObject), 0.3),
        progressToken: maybe(fc.oneof(fc.integer(), text(10), nonString), 0.15),
        traceparent: maybe(fc.oneof(text(55), nonString), 0.1),
        baggage: maybe(fc.oneof(text(20), nonString), 0.1),
        extra: maybe(jsonish(2), 0.1),
      })
      .map(present),
  },
  { weight: 1, arbitrary: fc.constant(ABSENT) },
  { weight: 1, arbitrary: nonObject },
);

const methodArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...METHODS) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'tools/call/', 'Tools/List', 'tools/list ', 'rpc.discover') },
  { weight: 2, arbitrary: text(20) },
  { weight: 1, arbitrary: nonString },
);

const idArb: fc.Arbitrary<Maybe<unknown>> = fc.oneof(
  { weight: 12, arbitrary: fc.integer() },
  { weight: 4, arbitrary: text(12) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1e21, -1e21, 1.5, -0.25) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.boolean(), jsonObject(1), fc.array(jsonLeaf, { maxLength: 2 })) },
  { weight: 2, arbitrary: fc.constant(ABSENT) },
);

/** A well-formed request of a known method, its params (and `_meta`) possibly mistyped. */
const knownRequest: fc.Arbitrary<unknown> = fc.constantFrom(...METHODS).chain((method) =>
  fc
    .record({ id: fc.oneof(fc.integer(), text(12)), params: paramsFor(method), meta: metaArb })
    .map(({ id, params, meta }) => ({ jsonrpc: '2.0', id, method, params: meta === ABSENT ? params : { ...params, _meta: meta } })),
);

/** One request of any method, each part (jsonrpc, id, method, params, _meta) possibly mutated. */
const anyRequest: fc.Arbitrary<unknown> = methodArb.chain((method) =>
  fc
    .record({
      jsonrpc: fc.oneof({ weight: 30, arbitrary: fc.constant('2.0') }, fc.constantFrom('1.0', '2', 2, null, '', ' 2.0', ABSENT)),
      id: idArb,
      params: fc.oneof(
        { weight: 20, arbitrary: fc.tuple(paramsFor(typeof method === 'string' ? method : ''), metaArb).map(([p, m]) => (m === ABSENT ? p : { ...p, _meta: m })) },
        { weight: 1, arbitrary: fc.oneof(nonObject, fc.constant(ABSENT)) },
      ),
    })
    .map(({ jsonrpc, id, params }) => present({ jsonrpc, id, method, params })),
);

const mutatedRequest = fc.oneof({ weight: 3, arbitrary: knownRequest }, { weight: 2, arbitrary: anyRequest });

/** A JSON-RPC response sent to the server. */
const responseMessage = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.oneof(fc.integer(), text(8), fc.constant(null)),
  outcome: fc.oneof(
    jsonish(2).map((result) => ({ result })),
    fc.record({ code: fc.integer(), message: text(10), data: maybe(jsonish(1), 0.3) }).map((error) => ({ error: present(error) })),
  ),
}).map(({ outcome, ...rest }) => ({ ...rest, ...outcome }));

describe('envelope fuzzing: every answer is a contract-conformant result or error', () => {
  it(
    'arbitrary JSON values as the body (headers mirrored from it where they can be)',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(jsonish(4), fc.jsonValue(), jsonObject(3)),
          fc.integer({ min: 0, max: 19 }),
          tally.count('json values', async (value, die) => {
            current = 'json values';
            // Mostly with the token; one case in twenty without.
            expectEnvelopeRules(await send(json(value), mirrorOf(value), die !== 0));
          }),
        ),
        fuzzParameters(RUNS.json),
      );
    },
    timeoutFor(RUNS.json),
  );

  it(
    'arbitrary bytes and text as the body: -32700 unless it happens to be JSON',
    async () => {
      const valid = json({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { [META_VERSION]: MODERN_VERSION, [META_CAPABILITIES]: {} } } });
      const bodies: fc.Arbitrary<string | Uint8Array> = fc.oneof(
        fc.uint8Array({ maxLength: 200 }),
        text(200),
        // A valid request cut short, or with one byte changed, inserted or removed.
        fc.nat({ max: valid.length - 1 }).map((n) => valid.slice(0, n)),
        fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.constantFrom('replace', 'insert', 'delete')).map(([at, byte, how]) => {
          const bytes = [...Buffer.from(valid)];
          if (how === 'replace') bytes[at] = byte;
          else if (how === 'insert') bytes.splice(at, 0, byte);
          else bytes.splice(at, 1);
          return Uint8Array.from(bytes);
        }),
        // A BOM, a NUL, surrounding whitespace, two messages back to back.
        fc.constantFrom(`\ufeff${valid}`, `${valid}\u0000`, ` \n${valid}\t\r\n`, `${valid}${valid}`, `${valid},`, `[${valid}]`, 'null', '""', '{}', '[]', '{"jsonrpc":"2.0"}'),
      );
      await fc.assert(
        fc.asyncProperty(
          bodies,
          tally.count('bytes', async (body) => {
            current = 'bytes';
            expectEnvelopeRules(await send(body, mirrorOf(requestFacts(body).value)));
          }),
        ),
        fuzzParameters(RUNS.bytes),
      );
    },
    timeoutFor(RUNS.bytes),
  );

  it(
    'mutated requests of every method: ids, jsonrpc, method strings, params and _meta shapes, batches, responses',
    async () => {
      const bodies = fc.oneof(
        { weight: 12, arbitrary: mutatedRequest },
        { weight: 1, arbitrary: fc.array(mutatedRequest, { maxLength: 3 }) },
        { weight: 1, arbitrary: responseMessage },
      );
      await fc.assert(
        fc.asyncProperty(
          bodies,
          fc.integer({ min: 0, max: 19 }),
          tally.count('mutated requests', async (value, die) => {
            current = 'mutated requests';
            const sent = await send(json(value), mirrorOf(value), die !== 0);
            expectEnvelopeRules(sent);
            // Mirrored faithfully, a modern request never disagrees with its headers (when its names are strings).
            const params = isPlainObject(value) && isPlainObject(value.params) ? value.params : {};
            const named = (value as { method?: unknown }).method;
            const needsName = named === 'tools/call' || named === 'prompts/get' ? params.name : named === 'resources/read' ? params.uri : '';
            const meta = isPlainObject(params._meta) ? params._meta : {};
            if (sent.facts.era === 'modern' && typeof needsName === 'string' && typeof meta[META_VERSION] === 'string') {
              expect(codeOf(sent.outcome), 'faithfully mirrored headers are never -32020').not.toBe(-32020);
            }
          }),
        ),
        fuzzParameters(RUNS.mutated),
      );
    },
    timeoutFor(RUNS.mutated),
  );

  it(
    'one fault at a time in a valid request gives the contract’s code for it',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          baseRequest,
          faultArb,
          tally.count('single faults', async (base, fault) => {
            current = 'single faults';
            const { body, value } = fault.build(base);
            const sent = await send(body, mirrorOf(value ?? base));
            expectEnvelopeRules(sent);
            const code = codeOf(sent.outcome);
            if (fault.expect === 'result') {
              expect(sent.outcome.kind, `${fault.label}: a valid request gets its result`).toBe('result');
            } else {
              expect(fault.expect, `${fault.label}: the contract's code`).toContain(code);
            }
            if (code === -32022 && sent.outcome.kind === 'error') {
              expect((sent.outcome.data as { supported: string[] }).supported).toContain(MODERN_VERSION);
            }
          }),
        ),
        fuzzParameters(RUNS.faults),
      );
    },
    timeoutFor(RUNS.faults),
  );

  it(
    'legacy requests in a session (no protocol version in _meta): results without resultType or serverInfo',
    async () => {
      const session = await openLegacySession();
      const legacyMeta = fc.oneof(
        { weight: 3, arbitrary: fc.constant(ABSENT) },
        { weight: 2, arbitrary: fc.record({ progressToken: maybe(fc.oneof(fc.integer(), text(8), nonString), 0.5), traceparent: maybe(fc.oneof(text(30), nonString), 0.3), other: maybe(jsonish(1), 0.3) }).map(present) },
        { weight: 1, arbitrary: nonObject },
      );
      const legacyRequest = fc.constantFrom(...METHODS).chain((method) =>
        fc
          .record({ id: fc.oneof(fc.integer(), text(10)), params: paramsFor(method), meta: legacyMeta })
          .map(({ id, params, meta }) => ({ jsonrpc: '2.0', id, method, params: meta === ABSENT ? params : { ...params, _meta: meta } })),
      );
      const sessionHeader = fc.oneof({ weight: 12, arbitrary: fc.constant<string | undefined>(session) }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.oneof(fc.uuid(), fc.string({ unit: fc.constantFrom(...'abcdef0123456789-'.split('')), maxLength: 36 })) });
      const versionHeader = fc.oneof({ weight: 6, arbitrary: fc.constant<string | undefined>(undefined) }, { weight: 6, arbitrary: fc.constant(LEGACY_VERSION) }, { weight: 1, arbitrary: fc.constantFrom(...VERSIONS) });
      await fc.assert(
        fc.asyncProperty(
          legacyRequest,
          sessionHeader,
          versionHeader,
          tally.count('legacy session', async (value, sessionId, version) => {
            current = 'legacy session';
            const headers: Headers = { 'Content-Type': 'application/json' };
            if (sessionId !== undefined) headers['Mcp-Session-Id'] = sessionId;
            if (version !== undefined) headers['MCP-Protocol-Version'] = version;
            const sent = await send(json(value), headers);
            expectEnvelopeRules(sent);
            const code = codeOf(sent.outcome);
            const inSession = sessionId === session && (version === undefined || version === LEGACY_VERSION);
            if (sent.facts.era === 'legacy' && !sent.facts.notification) {
              if (inSession) expect([-32600, -33001, -32020], 'a request in its own session is never refused for the session').not.toContain(code);
              // (With a broken _meta, -32602 may come first: the contract does not order the checks.)
              const metaFree = !('_meta' in value.params);
              if (inSession && metaFree && MODERN_ONLY.has(value.method)) expect(code, `${value.method} is modern-only`).toBe(-32601);
              // An unknown session is -33001 (or -32602 when _meta is invalid too: the contract does not order the two).
              if (sessionId !== session && sessionId !== undefined && sessionId !== '' && value.method !== 'initialize') expect([-33001, -32602], 'an unknown session').toContain(code);
            }
          }),
        ),
        fuzzParameters(RUNS.legacy),
      );
    },
    timeoutFor(RUNS.legacy),
  );

  it(
    'a value that cannot be turned into text (such as {"toString":0}) anywhere in params is never a 500',
    async () => {
      const legacy = await openLegacySession();
      /** Every path to a value in `value` (object keys and array indexes), the root excluded. */
      const pathsOf = (value: unknown, prefix: (string | number)[] = []): (string | number)[][] => {
        if (Array.isArray(value)) return value.flatMap((item, i) => [[...prefix, i], ...pathsOf(item, [...prefix, i])]);
        if (isPlainObject(value)) return Object.entries(value).flatMap(([k, item]) => [[...prefix, k], ...pathsOf(item, [...prefix, k])]);
        return [];
      };
      const replaced = (value: unknown, path: (string | number)[], by: unknown): unknown => {
        if (path.length === 0) return by;
        const [head, ...rest] = path;
        if (Array.isArray(value)) return value.map((item, i) => (i === head ? replaced(item, rest, by) : item));
        if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, k === head ? replaced(item, rest, by) : item]));
        return value;
      };
      const cases = fc.constantFrom(...METHODS).chain((method) =>
        fc.record({
          method: fc.constant(method),
          params: paramsFor(method),
          era: fc.constantFrom<'modern' | 'legacy'>('modern', 'legacy'),
          at: fc.nat(),
          // Mostly a field that holds text: where a server is likeliest to put the value into a message.
          textField: fc.nat({ max: 3 }).map((n) => n > 0),
          by: hostileObject,
        }),
      );
      await fc.assert(
        fc.asyncProperty(
          cases,
          tally.count('hostile values', async ({ method, params, era, at, textField, by }) => {
            current = 'hostile values';
            const full = era === 'modern' ? { ...params, _meta: validMeta() } : params;
            const all = [...pathsOf(full), ...(era === 'modern' ? [['_meta', META_VERSION], ['_meta', META_CAPABILITIES], ['_meta', 'progressToken']] : [])];
            const texts = all.filter((p) => typeof p.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], full) === 'string');
            const paths = textField && texts.length > 0 ? texts : all;
            const path = paths[at % Math.max(1, paths.length)] ?? [];
            const value = { jsonrpc: '2.0', id: 1, method, params: path.length > 0 ? replaced(full, path, by) : full };
            const headers = era === 'modern' ? mirrorOf(value) : { 'Content-Type': 'application/json', 'Mcp-Session-Id': legacy };
            // The shared checker refuses a 500 (client input must never cause an internal error).
            expectEnvelopeRules(await send(json(value), headers));
          }),
        ),
        fuzzParameters(RUNS.hostile),
      );
    },
    timeoutFor(RUNS.hostile),
  );

  it(
    'an argument a tool does not declare is -32602, whatever its name',
    async () => {
      // decisions.md, "Catalogue": each tool declares its input JSON Schema; unknown arguments are -32602.
      const calls: [string, Record<string, unknown>][] = [
        ['list_connections', {}],
        ['list_schemas', { connection_id: 'demo' }],
        ['list_tables', { connection_id: 'demo' }],
        ['count_rows', { connection_id: 'demo', table: 'books' }],
      ];
      const declared = (tool: string) => Object.keys(builtinCapabilities.tools.find((t) => t.name === tool)?.inputSchema.properties ?? {});
      const undeclaredName = fc.oneof(
        { weight: 1, arbitrary: fc.constantFrom(...Object.getOwnPropertyNames(Object.prototype)) },
        { weight: 3, arbitrary: fc.oneof(fc.string({ maxLength: 16 }), text(16), fc.constantFrom('Connection_id', 'connection-id', 'sql ', 'TABLE', 'then', 'prototype')) },
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...calls),
          undeclaredName,
          jsonLeaf,
          tally.count('undeclared arguments', async ([tool, args], name, value) => {
            current = 'undeclared arguments';
            fc.pre(!declared(tool).includes(name));
            // JSON.parse, as the server reads it: "__proto__" becomes an own key like any other.
            const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${json(tool)},"arguments":${json(args).slice(0, -1)}${Object.keys(args).length > 0 ? ',' : ''}${json(name)}:${json(value) ?? 'null'}},"_meta":${json(validMeta())}}}`;
            const sent = await send(body, mirrorOf(JSON.parse(body)));
            expect(codeOf(sent.outcome), `${tool} with the undeclared argument ${json(name)}`).toBe(-32602);
          }),
        ),
        fuzzParameters(RUNS.undeclared),
      );
    },
    timeoutFor(RUNS.undeclared),
  );

  it('afterwards the server still answers, and every request actor is gone', async () => {
    const reply = await send(json({ jsonrpc: '2.0', id: 'after', method: 'tools/list', params: { _meta: { [META_VERSION]: MODERN_VERSION, [META_CAPABILITIES]: {} } } }), {
      'Content-Type': 'application/json',
      'MCP-Protocol-Version': MODERN_VERSION,
      'Mcp-Method': 'tools/list',
    });
    expect(reply.outcome.kind).toBe('result');
    // Legacy sessions opened by a fuzzed initialize live until the server stops (at most 16 of them).
    const allowed = f.baseline + Math.min(16, sessionsOpened);
    expect(await settle(() => f.app.liveActors(), allowed)).toBeLessThanOrEqual(allowed);
    tally.note(`live actors at the end: ${f.app.liveActors()} (baseline ${f.baseline}, legacy sessions opened ${sessionsOpened})`);
  });
});

// ---------------------------------------------------------------------------------------------------
// Single faults: a valid request of a method the readOnly token may call, and one thing wrong with it.

type Message = { jsonrpc: '2.0'; id: number; method: string; params: Record<string, unknown> };

const validMeta = () => ({ [META_VERSION]: MODERN_VERSION, [META_CAPABILITIES]: {} });
const BASES: [string, Record<string, unknown>][] = [
  ['server/discover', {}],
  ['tools/list', {}],
  ['resources/list', {}],
  ['resources/templates/list', {}],
  ['prompts/list', {}],
  ['tools/call', { name: 'list_connections', arguments: {} }],
  ['tools/call', { name: 'count_rows', arguments: { connection_id: 'demo', table: 'books' } }],
  ['resources/read', { uri: 'sluice://connections' }],
  ['prompts/get', { name: 'explain_schema', arguments: { connection_id: 'demo' } }],
];
const baseRequest: fc.Arbitrary<Message> = fc
  .tuple(fc.constantFrom(...BASES), fc.integer({ min: 1, max: 1_000_000 }))
  .map(([[method, params], id]) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: validMeta() } }));

type Fault = {
  label: string;
  build(base: Message): { body: string | Uint8Array; value?: unknown };
  /** The codes the contract allows for this fault (more than one where it leaves the order of checks open). */
  expect: readonly number[] | 'result';
};

const KNOWN_METHODS = new Set<string>(METHODS);
const SUPPORTED = new Set(['2026-07-28', '2025-11-25', '2025-06-18']);
const show = (v: unknown) => (v === ABSENT ? 'absent' : JSON.stringify(v));
const withKey = (o: Record<string, unknown>, key: string, v: unknown) => {
  const copy = { ...o };
  if (v === ABSENT) delete copy[key];
  else copy[key] = v;
  return copy;
};
const withMeta = (m: Message, key: string, v: unknown) => ({ ...m, params: { ...m.params, _meta: withKey(m.params._meta as Record<string, unknown>, key, v) } });
const asJson = (value: unknown) => ({ body: json(value), value });
const parses = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

const faultArb: fc.Arbitrary<Fault> = fc.oneof(
  fc.constant<Fault>({ label: 'no fault', build: asJson, expect: 'result' }),
  fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 53 - 1, -(2 ** 53 - 1)), text(16)).map<Fault>((id) => ({
    label: `a usable id ${show(id)} (echoed)`,
    build: (m) => asJson({ ...m, id }),
    expect: 'result',
  })),
  fc.constantFrom<unknown>(ABSENT, '1.0', '2', 2, null, '', ' 2.0', '2.0 ', '2.00', true, {}, ['2.0']).map<Fault>((v) => ({
    label: `jsonrpc ${show(v)}`,
    build: (m) => asJson(withKey(m, 'jsonrpc', v)),
    expect: [-32600],
  })),
  fc
    .oneof(fc.constantFrom<unknown>(1.5, -0.5, 2 ** 53, -(2 ** 53), 1e21, null, true, false, {}, [], [1]), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isSafeInteger(d)), jsonObject(1))
    .map<Fault>((id) => ({ label: `an unusable id ${show(id)}`, build: (m) => asJson({ ...m, id }), expect: [-32600] })),
  fc.array(fc.constant(null), { maxLength: 3 }).map<Fault>((slots) => ({
    label: `a batch of ${slots.length}`,
    build: (m) => asJson(slots.map((_, i) => ({ ...m, id: m.id + i }))),
    expect: [-32600],
  })),
  fc.oneof(jsonish(2).map((result) => ({ result })), fc.record({ code: fc.integer(), message: text(10) }).map((error) => ({ error }))).map<Fault>((outcome) => ({
    label: 'a JSON-RPC response sent to the server',
    build: (m) => asJson({ jsonrpc: '2.0', id: m.id, ...outcome }),
    expect: [-32600],
  })),
  fc.oneof(fc.constant(''), nonString, fc.constant(ABSENT)).map<Fault>((method) => ({
    label: `method ${show(method)}`,
    build: (m) => asJson(withKey(m, 'method', method)),
    expect: [-32600],
  })),
  fc
    .oneof(text(30), fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'Tools/List', 'tools/list/', 'rpc.discover', 'initialize', 'ping'))
    // initialize and ping are legacy-only: a modern request for them is -32601 too.
    .filter((method) => (method.length > 0 && isWellFormed(method) && !KNOWN_METHODS.has(method)) || method === 'initialize' || method === 'ping')
    .map<Fault>((method) => ({
      label: `method ${show(method)} (not a modern method)`,
      build: (m) => asJson({ ...m, method, params: { _meta: m.params._meta } }),
      expect: [-32601],
    })),
  nonObject.map<Fault>((params) => ({ label: `params ${show(params)}`, build: (m) => asJson({ ...m, params }), expect: [-32600] })),
  nonObject.map<Fault>((meta) => ({
    label: `_meta ${show(meta)}`,
    build: (m) => asJson({ ...m, params: { ...m.params, _meta: meta } }),
    // Invalid params, or (when read as no protocol version at all) a legacy request without a session.
    expect: [-32602, -32600, -33001],
  })),
  fc.constant<Fault>({
    label: 'no protocolVersion in _meta (legacy, without a session)',
    build: (m) => asJson(withMeta(m, META_VERSION, ABSENT)),
    expect: [-32602, -32600, -33001],
  }),
  fc.oneof(fc.constant(''), nonString).map<Fault>((v) => ({
    label: `protocolVersion ${show(v)}`,
    build: (m) => asJson(withMeta(m, META_VERSION, v)),
    expect: [-32602, -32020],
  })),
  fc
    .oneof(fc.constantFrom('2025-03-26', '2024-11-05', '2026-07-29', '2026-07-28 ', 'latest', '1'), text(16))
    .filter((v) => v.length > 0 && isWellFormed(v) && !SUPPORTED.has(v))
    .map<Fault>((v) => ({ label: `protocolVersion ${show(v)} (unsupported)`, build: (m) => asJson(withMeta(m, META_VERSION, v)), expect: [-32022] })),
  fc.constantFrom('2025-11-25', '2025-06-18').map<Fault>((v) => ({
    label: `legacy protocolVersion ${v} in _meta`,
    build: (m) => asJson(withMeta(m, META_VERSION, v)),
    expect: [-32022, -32600, -33001],
  })),
  fc.oneof(nonObject, fc.constant(ABSENT)).map<Fault>((v) => ({
    label: `clientCapabilities ${show(v)}`,
    build: (m) => asJson(withMeta(m, META_CAPABILITIES, v)),
    expect: [-32602],
  })),
  text(60)
    .filter((s) => !parses(s))
    .map<Fault>((s) => ({ label: `a body that is not JSON ${show(s)}`, build: () => ({ body: s }), expect: [-32700] })),
  fc.nat().map<Fault>((n) => ({
    label: 'a valid request cut short',
    build: (m) => {
      const whole = json(m);
      return { body: whole.slice(0, n % whole.length), value: m };
    },
    expect: [-32700],
  })),
  fc.tuple(fc.nat(), fc.constantFrom(0xff, 0xfe, 0xc0, 0x80, 0xed)).map<Fault>(([n, byte]) => ({
    label: `a byte 0x${byte.toString(16)} that is not UTF-8`,
    build: (m) => {
      const bytes = Buffer.from(json(m));
      const at = n % bytes.length;
      return { body: Buffer.concat([bytes.subarray(0, at), Buffer.from([byte]), bytes.subarray(at)]), value: m };
    },
    expect: [-32700],
  })),
);
