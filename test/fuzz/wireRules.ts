/**
 * The wire contract (../shared/spec/wire-contract.md) as one checker, shared by every fuzzing property:
 * given what was sent and what came back from `POST /mcp`, it asserts that the answer is a
 * contract-conformant result or error and says which one it was. It is written from the contract, not
 * from the server's code: the status set, the code ↔ status table, the id echo rule, the result envelope
 * of each era, the refusals outside JSON-RPC, and no leaked internals.
 */
import type { WireReply } from './fuzzHttp.js';

export type RequestId = string | number;

/** Every status the contract lets `/mcp` answer with (500 only pairs with -32603, never due to client input). */
export const CONTRACT_STATUSES: ReadonlySet<number> = new Set([200, 202, 204, 400, 401, 403, 404, 405, 413, 429, 431, 503]);

/** Contract, "Protocol errors": code → HTTP status. -32603 (500) is left out: client input must never cause it. */
export const STATUS_OF_CODE: ReadonlyMap<number, number> = new Map([
  [-32700, 400],
  [-32600, 400],
  [-32601, 404],
  [-32602, 400],
  [-32020, 400],
  [-32021, 400],
  [-32022, 400],
  [-33000, 503],
  [-33001, 404],
  [-33002, 200],
  [-33003, 200],
  [-33005, 413],
  [-33006, 503],
  [-33007, 403],
  [-33008, 401],
  [-33009, 401],
  [-33010, 429],
]);

/** Refusals outside JSON-RPC (`{error, error_description}`) and their statuses. */
export const HTTP_ERRORS: ReadonlyMap<string, number> = new Map([
  ['forbidden_host', 403],
  ['forbidden_origin', 403],
  ['method_not_allowed', 405],
  ['not_found', 404],
]);

export const MODERN_VERSION = '2026-07-28';
export const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
/** Contract, "Cache hints": the only methods whose results may carry `ttlMs` / `cacheScope`. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'prompts/list',
  'resources/templates/list',
  'tools/list',
  'resources/list',
  'resources/read',
]);

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a request body was, judged by JSON-RPC 2.0 and the contract's envelope rules. */
export type RequestFacts = {
  /** The body decoded as UTF-8 and parsed as JSON; false: the answer to it can only be -32700 (or an earlier refusal). */
  parsed: boolean;
  value?: unknown;
  /** The id to echo: the envelope's when it is usable (a string or an integer), else null. */
  id: RequestId | null;
  /** A well-formed JSON-RPC notification (no `id`): accepted with 202 once authenticated. */
  notification: boolean;
  /** A well-formed request or notification. */
  wellFormed: boolean;
  method: string | undefined;
  /** Of a well-formed message: modern when `params._meta` names a protocol version. */
  era: 'modern' | 'legacy' | undefined;
};

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const WRAPPED_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const usableId = (id: unknown): id is RequestId =>
  typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

export function requestFacts(body: string | Uint8Array): RequestFacts {
  let value: unknown;
  try {
    // As the bytes travel: a string is sent as UTF-8 (a lone surrogate becomes U+FFFD), and decoding drops a leading BOM.
    value = JSON.parse(UTF8.decode(typeof body === 'string' ? Buffer.from(body, 'utf8') : body));
  } catch {
    return { parsed: false, id: null, notification: false, wellFormed: false, method: undefined, era: undefined };
  }
  if (!isPlainObject(value)) {
    return { parsed: true, value, id: null, notification: false, wellFormed: false, method: undefined, era: undefined };
  }
  const id = usableId(value.id) ? value.id : null;
  const { method, params } = value;
  const wellFormed =
    value.jsonrpc === '2.0' &&
    typeof method === 'string' &&
    method.length > 0 &&
    (!('params' in value) || isPlainObject(params)) &&
    (!('id' in value) || id !== null);
  const meta = isPlainObject(params) ? params._meta : undefined;
  return {
    parsed: true,
    value,
    id,
    notification: wellFormed && !('id' in value),
    wellFormed,
    method: wellFormed ? (method as string) : undefined,
    era: wellFormed ? (isPlainObject(meta) && META_VERSION in meta ? 'modern' : 'legacy') : undefined,
  };
}

/** What an answer turned out to be, once the checker found it conformant. */
export type Outcome =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'error'; code: number; message: string; data: unknown }
  | { kind: 'accepted' }
  | { kind: 'refused'; error: string }
  | { kind: 'headerLimit' }
  | { kind: 'stream'; final: Outcome | undefined; frames: number };

export class WireViolation extends Error {
  constructor(rule: string, reply: WireReply) {
    const body = reply.text.length > 600 ? `${reply.text.slice(0, 600)}…` : reply.text;
    super(`${rule}\n  got ${reply.status} ${JSON.stringify(reply.headers)}\n  ${body}`);
    this.name = 'WireViolation';
  }
}

/**
 * Stack frames, source paths and Node internals must never leave the process. Text the request itself
 * carried (echoed in an error message, say) is taken out first, so that a fuzzed method name that happens
 * to contain `/src/` is not mistaken for a leak.
 */
const LEAKS: readonly RegExp[] = [/ {4}at /, /\n\s*at \S+ \(/, /\/src\//, /\.ts:/, /\.js:\d+/, /node:internal/, /file:\/\//];

function leakIn(text: string, echoes: readonly string[]): RegExp | undefined {
  let rest = text;
  for (const echo of echoes) if (echo.length > 0 && rest.includes(echo)) rest = rest.split(echo).join('\u0000');
  return LEAKS.find((pattern) => pattern.test(rest));
}

function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      stringsOf(item, out);
    }
  }
  return out;
}

/** Every string a request carried (keys and values of its JSON, header values), for the leak check. */
export function echoesOf(value: unknown, headers: Record<string, string | string[]> = {}): string[] {
  const fromHeaders = Object.values(headers).flatMap((v) => (Array.isArray(v) ? v : [v]));
  return [...new Set([...stringsOf(value), ...fromHeaders])].sort((a, b) => b.length - a.length);
}

function assertNoLeak(reply: WireReply, json: unknown, echoes: readonly string[]): void {
  const texts = json === undefined ? [reply.text] : stringsOf(json);
  for (const text of texts) {
    const leak = leakIn(text, echoes);
    if (leak) throw new WireViolation(`the answer leaks internals (${leak}): ${JSON.stringify(text.slice(0, 300))}`, reply);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `id` echoed exactly (numbers by value; JSON cannot tell -0 from 0). */
function sameId(got: unknown, expected: RequestId | null): boolean {
  return typeof got === 'number' && typeof expected === 'number' ? got === expected : Object.is(got, expected);
}

export type CheckOptions = {
  /** Strings the request carried; the answer may repeat them. */
  echoes?: readonly string[];
  /** The HTTP method sent (POST unless given). */
  httpMethod?: string;
  /** What was sent, quoted in a violation's message. */
  sent?: string;
};

/** Asserts one JSON-RPC response object (a whole body, or the last frame of a stream). */
function checkRpcResponse(
  reply: WireReply,
  body: unknown,
  facts: RequestFacts,
  status: number | undefined,
): Outcome {
  if (!isPlainObject(body)) throw new WireViolation('a JSON-RPC answer must be one JSON object', reply);
  if (body.jsonrpc !== '2.0') throw new WireViolation('jsonrpc must be "2.0"', reply);
  const keys = Object.keys(body).sort().join(',');
  if ('error' in body) {
    if (keys !== 'error,id,jsonrpc') throw new WireViolation(`an error answer has exactly jsonrpc, id, error (got ${keys})`, reply);
    const { error } = body;
    if (!isPlainObject(error)) throw new WireViolation('error must be an object', reply);
    const extra = Object.keys(error).filter((k) => !['code', 'message', 'data'].includes(k));
    if (extra.length > 0) throw new WireViolation(`error has only code, message, data (got ${extra.join(', ')})`, reply);
    const { code, message, data } = error;
    if (typeof code !== 'number' || !Number.isInteger(code)) throw new WireViolation('error.code must be an integer', reply);
    if (typeof message !== 'string' || message.length === 0) throw new WireViolation('error.message must be a non-empty string', reply);
    if (code === -32603) throw new WireViolation('-32603 (internal error) in answer to client input', reply);
    const paired = STATUS_OF_CODE.get(code);
    if (paired === undefined) throw new WireViolation(`error code ${code} is not in the contract's table`, reply);
    if (status !== undefined && status !== paired) {
      throw new WireViolation(`error ${code} goes with HTTP ${paired}, not ${status}`, reply);
    }
    // The id echo rule; a refusal before the body is read (server off, stopping, too many connections) cannot know it.
    const beforeBody = code === -33006 || code === -33000 || code === -33005;
    if (!sameId(body.id, facts.id) && !(beforeBody && body.id === null)) {
      throw new WireViolation(`the error's id must be ${JSON.stringify(facts.id)} (the envelope's usable id, else null)`, reply);
    }
    checkErrorExtras(reply, code, data, status !== undefined);
    return { kind: 'error', code, message, data };
  }
  if (keys !== 'id,jsonrpc,result') throw new WireViolation(`a result answer has exactly jsonrpc, id, result (got ${keys})`, reply);
  if (status !== undefined && status !== 200) throw new WireViolation(`a result comes with 200, not ${status}`, reply);
  if (facts.id === null || !sameId(body.id, facts.id)) {
    throw new WireViolation(`a result must echo the request's id ${JSON.stringify(facts.id)}`, reply);
  }
  const { result } = body;
  if (!isPlainObject(result)) throw new WireViolation('result must be an object', reply);
  checkResultEnvelope(reply, result, facts);
  return { kind: 'result', result };
}

function checkErrorExtras(reply: WireReply, code: number, data: unknown, whole: boolean): void {
  const challenge = reply.headers['www-authenticate'];
  if (whole && (code === -33009 || code === -33008)) {
    if (!challenge?.startsWith('Bearer realm="sluice"')) {
      throw new WireViolation('a 401 carries WWW-Authenticate: Bearer realm="sluice"…', reply);
    }
    if (code === -33008 && !(challenge.includes('error="invalid_token"') && challenge.includes('error_description="token expired"'))) {
      throw new WireViolation('-33008 carries error="invalid_token", error_description="token expired"', reply);
    }
  }
  if (whole && code === -33010 && !/^[1-9][0-9]*$/.test(reply.headers['retry-after'] ?? '')) {
    throw new WireViolation('-33010 carries Retry-After in whole seconds', reply);
  }
  if (code === -33007 && isPlainObject(data) && 'requiredScopes' in data) {
    if (!Array.isArray(data.requiredScopes)) throw new WireViolation('data.requiredScopes must be a list', reply);
    if (whole && !challenge?.includes('error="insufficient_scope"')) {
      throw new WireViolation('a scope failure carries Bearer error="insufficient_scope"', reply);
    }
  }
  if (code === -32022 && !(isPlainObject(data) && Array.isArray(data.supported))) {
    throw new WireViolation('-32022 lists the accepted versions in data.supported', reply);
  }
  if (code === -32021 && !(isPlainObject(data) && isPlainObject(data.requiredCapabilities))) {
    throw new WireViolation('-32021 names the capability in data.requiredCapabilities', reply);
  }
}

function checkResultEnvelope(reply: WireReply, result: Record<string, unknown>, facts: RequestFacts): void {
  const meta = result._meta;
  if (facts.era === 'modern') {
    if (result.resultType !== 'complete' && result.resultType !== 'input_required') {
      throw new WireViolation('a modern result has resultType complete or input_required', reply);
    }
    const info = isPlainObject(meta) ? meta[SERVER_INFO] : undefined;
    if (!isPlainObject(info) || info.name !== 'sluice' || typeof info.version !== 'string') {
      throw new WireViolation(`a modern result has _meta["${SERVER_INFO}"] {name: "sluice", version}`, reply);
    }
    if ('ttlMs' in result || 'cacheScope' in result) {
      if (!CACHEABLE_METHODS.has(facts.method ?? '')) throw new WireViolation(`${facts.method} carries no cache hint`, reply);
      if (!Number.isInteger(result.ttlMs) || (result.ttlMs as number) < 0) throw new WireViolation('ttlMs is an integer ≥ 0', reply);
      if (result.cacheScope !== 'public' && result.cacheScope !== 'private') {
        throw new WireViolation('cacheScope is public or private, and only with ttlMs', reply);
      }
    }
  } else if (facts.era === 'legacy') {
    const leaked = ['resultType', 'ttlMs', 'cacheScope'].filter((k) => k in result);
    if (leaked.length > 0 || (isPlainObject(meta) && SERVER_INFO in meta)) {
      throw new WireViolation(`a legacy result has no resultType, cache hints or serverInfo (got ${leaked.join(', ')})`, reply);
    }
  }
}

/** A progress stream: unnamed frames of `notifications/progress` with rising `progress`, the response last. */
function checkStream(reply: WireReply, facts: RequestFacts): Outcome {
  if (reply.status !== 200) throw new WireViolation('an event stream is a 200', reply);
  const frames = (reply.frames ?? []).map((data) => {
    const value = parseJson(data);
    if (!isPlainObject(value) || value.jsonrpc !== '2.0') throw new WireViolation(`a frame is one JSON-RPC object: ${data}`, reply);
    return value;
  });
  if (reply.cut) {
    const [ack] = frames;
    const meta = isPlainObject(ack?.params) ? ack.params._meta : undefined;
    if (ack?.method !== 'notifications/subscriptions/acknowledged' || !isPlainObject(meta)) {
      throw new WireViolation('a subscription starts with notifications/subscriptions/acknowledged', reply);
    }
    if (!sameId(meta['io.modelcontextprotocol/subscriptionId'], facts.id)) {
      throw new WireViolation('a subscription frame carries the request id as its subscriptionId', reply);
    }
    return { kind: 'stream', final: undefined, frames: frames.length };
  }
  const last = frames.pop();
  if (last === undefined) throw new WireViolation('an event stream ends with the JSON-RPC response', reply);
  let previous = Number.NEGATIVE_INFINITY;
  for (const frame of frames) {
    const params = frame.params;
    if (frame.method !== 'notifications/progress' || !isPlainObject(params) || typeof params.progress !== 'number') {
      throw new WireViolation(`only notifications/progress precede the response: ${JSON.stringify(frame)}`, reply);
    }
    if (params.progress <= previous) throw new WireViolation('progress must increase', reply);
    previous = params.progress;
  }
  return { kind: 'stream', final: checkRpcResponse(reply, last, facts, undefined), frames: frames.length + 1 };
}

/**
 * THE check: the answer to one POST /mcp is a contract-conformant result or error. Throws a
 * `WireViolation` naming the broken rule, or returns what the answer was.
 */
export function checkMcpReply(reply: WireReply, facts: RequestFacts, options: CheckOptions = {}): Outcome {
  try {
    return checkReply(reply, facts, options);
  } catch (error) {
    if (error instanceof WireViolation && options.sent !== undefined) {
      const sent = options.sent.length > 600 ? `${options.sent.slice(0, 600)}…` : options.sent;
      error.message = `${error.message}\n  sent: ${sent}`;
    }
    throw error;
  }
}

function checkReply(reply: WireReply, facts: RequestFacts, options: CheckOptions): Outcome {
  const { echoes = [], httpMethod = 'POST' } = options;
  const { status } = reply;
  if (status === 500) throw new WireViolation('HTTP 500: client input must never cause an internal error', reply);
  if (!CONTRACT_STATUSES.has(status)) throw new WireViolation(`HTTP ${status} is not a status the contract lists`, reply);
  const json = parseJson(reply.text);
  assertNoLeak(reply, json, echoes);

  if (status === 431) return { kind: 'headerLimit' };
  if (status === 204) {
    if (httpMethod !== 'OPTIONS') throw new WireViolation('204 only answers the CORS preflight', reply);
    return { kind: 'accepted' };
  }
  if (status === 202) {
    if (reply.text !== '') throw new WireViolation('202 has an empty body', reply);
    if (!facts.notification) throw new WireViolation('202 answers notifications only', reply);
    return { kind: 'accepted' };
  }
  if ((reply.headers['content-type'] ?? '').startsWith('text/event-stream')) return checkStream(reply, facts);
  if (!(reply.headers['content-type'] ?? '').startsWith('application/json')) {
    throw new WireViolation('an answer with a body is application/json (or a progress stream)', reply);
  }
  if (!isPlainObject(json)) throw new WireViolation('the body is one JSON object', reply);
  if ('jsonrpc' in json) return checkRpcResponse(reply, json, facts, status);

  // Outside JSON-RPC: {error, error_description}.
  const keys = Object.keys(json).sort().join(',');
  if (keys !== 'error,error_description' || typeof json.error !== 'string' || typeof json.error_description !== 'string') {
    throw new WireViolation('a refusal outside JSON-RPC is exactly {error, error_description}', reply);
  }
  if (HTTP_ERRORS.get(json.error) !== status) {
    throw new WireViolation(`refusal ${json.error} is not one the contract lists with ${status}`, reply);
  }
  if (status === 405 && reply.headers.allow !== 'POST, OPTIONS') throw new WireViolation('405 on /mcp carries Allow: POST, OPTIONS', reply);
  return { kind: 'refused', error: json.error };
}

/** The error code of an outcome, when it is one (a stream's final frame included). */
export function codeOf(outcome: Outcome): number | undefined {
  if (outcome.kind === 'error') return outcome.code;
  if (outcome.kind === 'stream' && outcome.final) return codeOf(outcome.final);
  return undefined;
}

/** Describes an outcome briefly, for tallies. */
export function labelOf(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'error':
      return String(outcome.code);
    case 'stream':
      return outcome.final ? `stream:${labelOf(outcome.final)}` : 'stream:listen';
    case 'refused':
      return outcome.error;
    default:
      return outcome.kind;
  }
}

// ---------------------------------------------------------------------------------------------------
// Mirrored header values (contract, "Required headers" / "Non-ASCII values"), as the receiver sees them.

/** HTTP strips optional whitespace (SP, HTAB) around a field value before anyone sees it (RFC 9110 §5.5). */
export const received = (sent: string): string => sent.replace(/^[ \t]+|[ \t]+$/g, '');

/**
 * What a mirrored header value means under the contract: printable ASCII is the value itself; a value
 * starting `=?` must be a well-formed `=?base64?<base64 of UTF-8>?=` wrapper; a control character or a
 * non-ASCII byte makes it malformed. `undefined`: malformed (→ -32020).
 */
export function contractDecode(value: string): string | undefined {
  if (!/^[\x20-\x7e]*$/.test(value)) return undefined;
  if (!value.startsWith('=?')) return value;
  const match = /^=\?base64\?([A-Za-z0-9+/]*)(={0,2})\?=$/.exec(value);
  if (!match) return undefined;
  const payload = `${match[1]}${match[2]}`;
  if (payload.length % 4 !== 0) return undefined;
  try {
    // The wrapped text is exactly what was encoded: a leading U+FEFF is part of it, not a byte order mark.
    return WRAPPED_UTF8.decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}

/** Mcp-Param comparison (contract): strings as text, numbers numerically, booleans as true/false; never arrays or objects. */
export function paramVerdict(bodyValue: unknown, header: string): 'match' | 'mismatch' | 'unknown' {
  switch (typeof bodyValue) {
    case 'string':
      return bodyValue === header ? 'match' : 'mismatch';
    case 'boolean':
      return header === String(bodyValue) ? 'match' : 'mismatch';
    case 'number': {
      // A JSON number literal compares by value; other spellings (hex, a leading +, spaces) are left open.
      if (/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(header)) return Number(header) === bodyValue ? 'match' : 'mismatch';
      return Number.isNaN(Number(header)) || header.trim() === '' ? 'mismatch' : 'unknown';
    }
    default:
      return 'mismatch';
  }
}

/** All values of `field` (case-insensitively) in `source` and the objects nested in it. */
export function fieldValues(source: unknown, field: string): unknown[] {
  const found: unknown[] = [];
  const visit = (value: unknown) => {
    if (!isPlainObject(value)) return;
    for (const [key, item] of Object.entries(value)) {
      if (key.toLowerCase() === field.toLowerCase()) found.push(item);
      visit(item);
    }
  };
  visit(source);
  return found;
}
