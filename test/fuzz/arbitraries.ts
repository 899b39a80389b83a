/** fast-check arbitraries shared by the fuzzing properties: hostile text, JSON with hostile keys, and the catalogue's names. */
import fc from 'fast-check';
import { READ_TOOLS } from '../helpers/catalogue.js';

/** Keys that have tripped JavaScript code before: prototype names, and look-alikes of the envelope's own keys. */
export const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'then',
  'length',
  '_meta',
  'id',
  'jsonrpc',
  'method',
  'params',
  'name',
  'uri',
  'arguments',
  'cursor',
  'requestState',
  'inputResponses',
  '',
] as const;

export const TOOL_NAMES = [...READ_TOOLS, 'confirm_destructive_operation'] as const;

export const PROMPT_NAMES = ['explain_schema', 'explain_table', 'question_to_sql', 'review_query', 'write_migration'] as const;

export const ARGUMENT_NAMES = [
  'connection_id',
  'sql',
  'params',
  'max_rows',
  'timeout_seconds',
  'schema',
  'table',
  'database',
  'query',
  'limit',
  'offset',
  'order_by',
  'where',
  'exact',
  'max_results',
  'statement',
  'question',
  'change',
] as const;

export const METHODS = [
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'subscriptions/listen',
  'initialize',
  'ping',
  'logging/setLevel',
  'notifications/cancelled',
  'notifications/initialized',
  'notifications/progress',
] as const;

export const VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** Control characters, line and paragraph separators, bidi controls, BOM, NUL, lone surrogates' neighbours. */
const nastyChar = fc.constantFrom(
  '\u0000',
  '\u0001',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u200b',
  '\u200e',
  '\u202e',
  '\u2028',
  '\u2029',
  '\u2066',
  '\ufeff',
  '\uffff',
  '😀',
  'é',
  '日',
  '"',
  '\\',
  '%',
  '/',
  ' ',
  '=?',
  '?=',
);

/** One control character (Unicode Cc): C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F; NUL one case in nine. */
export const controlCharacter: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: fc.constant('\u0000') },
  { weight: 8, arbitrary: fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0x9f })).map((code) => String.fromCodePoint(code)) },
);

/** Text of every kind: ASCII, any Unicode scalar values, graphemes, and control-laden strings. */
export const text = (maxLength = 40): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength: Math.max(1, Math.floor(maxLength / 2)) }),
    fc.string({ unit: fc.oneof(nastyChar, fc.string({ minLength: 1, maxLength: 1 })), maxLength }),
  );

export const jsonKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_KEYS, ...ARGUMENT_NAMES) },
  { weight: 1, arbitrary: text(12) },
);

/** A JSON leaf: null, booleans, integers of every size, doubles (including -0 and the extremes), and text. */
export const jsonLeaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(0, -0, 1, -1, 2 ** 53, -(2 ** 53), 2 ** 53 - 1, 1e21, 1.5, -1e-7, Number.MAX_VALUE, Number.MIN_VALUE),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  text(),
);

/** JSON values whose object keys include the hostile ones. */
export const jsonish = (maxDepth = 3): fc.Arbitrary<unknown> =>
  fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth, withCrossShrink: true },
      jsonLeaf,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(jsonKey, tie('value'), { maxKeys: 5 }),
    ),
  })).value;

/** A JSON object whose keys include the hostile ones. */
export const jsonObject = (maxDepth = 2): fc.Arbitrary<Record<string, unknown>> =>
  fc.dictionary(jsonKey, jsonish(maxDepth), { maxKeys: 5 });

/**
 * Objects JavaScript cannot turn into text: `String(x)` or `${x}` on `{"toString":0}` throws a TypeError
 * (neither toString nor valueOf gives a primitive). A server that puts a client's value into a message
 * that way must not answer 500.
 */
export const hostileObject: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<Record<string, unknown>>(
      { toString: 0 },
      { toString: null, valueOf: null },
      { toString: {}, valueOf: [] },
      { valueOf: 0, toString: 'x' },
      { toJSON: 0 },
      { constructor: 0 },
      { then: 0 },
      { length: 1e9 },
    ),
  },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('toString', 'valueOf', 'toJSON', 'constructor', 'then', 'length', 'hasOwnProperty'), jsonLeaf, { minKeys: 1, maxKeys: 3 }) },
);

/** Every JSON value that is not an object (what a field declared as an object must never be). */
export const nonObject: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 10 }),
  fc.array(jsonLeaf, { maxLength: 3 }),
);

/** Every JSON value that is not a string. */
export const nonString: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.array(jsonLeaf, { maxLength: 3 }),
  jsonObject(1),
  hostileObject,
);

/** True when `s` has no lone surrogate (it has a UTF-8 encoding). */
export const isWellFormed = (s: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
