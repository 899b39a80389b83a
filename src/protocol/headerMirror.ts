import { headerMismatch } from '../core/errors.js';
import { decodeHeaderValue } from './headerValue.js';
import { isPlainObject, type Params } from './jsonrpc.js';

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;
const PARAM_HEADER_PREFIX = 'mcp-param-';
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Each header's lines as they arrived (Node's `headersDistinct`): Node would join repeated ones with ", ". */
export type DistinctHeaders = NodeJS.Dict<string[]>;

function single(headers: DistinctHeaders, name: string): string | undefined {
  const lines = headers[name];
  if (lines && lines.length > 1) throw headerMismatch(`Header ${name} is sent more than once`);
  return lines?.[0];
}

function requireHeader(headers: DistinctHeaders, name: string, expected: string): void {
  const raw = single(headers, name);
  if (raw === undefined) throw headerMismatch(`Required header ${name} is missing`);
  if (decodeHeaderValue(name, raw) !== expected)
    throw headerMismatch(`Header ${name} does not match the body`);
}

export function isJsonContentType(value: string | undefined): boolean {
  const mediaType = value?.split(';', 1)[0]?.trim().toLowerCase();
  return mediaType !== undefined && JSON_MEDIA_TYPE.test(mediaType);
}

/**
 * The first value of each wanted field (names lower-case) in `source`, matched case-insensitively and
 * searched breadth-first into nested objects, in one pass however many fields are wanted.
 */
function findFields(source: Record<string, unknown>, wanted: ReadonlySet<string>): Map<string, unknown> {
  const found = new Map<string, unknown>();
  let level: Record<string, unknown>[] = [source];
  while (level.length > 0 && found.size < wanted.size) {
    const next: Record<string, unknown>[] = [];
    for (const object of level) {
      for (const key in object) {
        const value = object[key];
        const name = key.toLowerCase();
        if (wanted.has(name) && !found.has(name)) found.set(name, value);
        if (isPlainObject(value)) next.push(value);
      }
    }
    level = next;
  }
  return found;
}

function paramMatches(value: unknown, header: string): boolean {
  switch (typeof value) {
    case 'string':
      return value === header;
    case 'number':
      return JSON_NUMBER.test(header) && Number(header) === value;
    case 'boolean':
      return header === String(value);
    default:
      return false;
  }
}

/**
 * The modern era's header mirror: every required header present, well formed and equal to its copy in
 * the body; every `Mcp-Param-<field>` that was sent equal to its field.
 */
export function checkHeaderMirror(
  headers: DistinctHeaders,
  message: { method: string; params: Params },
  protocolVersion: string,
): void {
  if (!isJsonContentType(single(headers, 'content-type'))) {
    throw headerMismatch('Content-Type must be application/json or a +json type');
  }
  requireHeader(headers, 'mcp-protocol-version', protocolVersion);
  requireHeader(headers, 'mcp-method', message.method);
  const { method, params } = message;
  if (method === 'tools/call' || method === 'prompts/get') {
    requireHeader(headers, 'mcp-name', typeof params.name === 'string' ? params.name : '');
  } else if (method === 'resources/read') {
    requireHeader(headers, 'mcp-name', typeof params.uri === 'string' ? params.uri : '');
  }

  const mirrored = Object.keys(headers).filter((name) => name.startsWith(PARAM_HEADER_PREFIX));
  if (mirrored.length === 0) return;
  const source = method === 'tools/call' ? params.arguments : params;
  const fields = new Set(mirrored.map((name) => name.slice(PARAM_HEADER_PREFIX.length)));
  const found = isPlainObject(source) ? findFields(source, fields) : new Map<string, unknown>();
  for (const name of mirrored) {
    const field = name.slice(PARAM_HEADER_PREFIX.length);
    const header = decodeHeaderValue(name, single(headers, name) ?? '');
    if (field.length === 0 || !found.has(field) || !paramMatches(found.get(field), header)) {
      throw headerMismatch(`Header ${name} does not match the body`);
    }
  }
}
