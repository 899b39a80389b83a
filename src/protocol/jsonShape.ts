import { ErrorCode, ProtocolError } from '../core/errors.js';
import { TRANSPORT } from '../core/contract.js';

/**
 * How much structure one request body may carry. `JSON.parse` costs time in proportion to nesting and
 * to the number of values far more than to bytes (10 MB nested 5 million deep takes seconds; 10 MB of
 * one string, milliseconds), so these bound what a body can make the event loop do.
 */
export type JsonShapeLimits = { maxDepth: number; maxValues: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Watches a JSON body's bytes as they arrive and refuses it (`-32600`) as soon as it nests deeper than
 * `maxDepth` or holds more than `maxValues` values (counted from commas and opening brackets outside
 * strings). Each chunk is scanned when it arrives, so the cost is spread over the upload and the parse
 * that follows is bounded. UTF-8 never puts these ASCII bytes inside a multi-byte character. Malformed
 * text passes: `JSON.parse` then reports it.
 */
export class JsonShapeScanner {
  readonly #limits: JsonShapeLimits;
  #depth = 0;
  #values = 1;
  #inString = false;
  #escaped = false;

  constructor(limits: JsonShapeLimits = { maxDepth: TRANSPORT.maxJsonDepth, maxValues: TRANSPORT.maxJsonValues }) {
    this.#limits = limits;
  }

  push(bytes: Uint8Array): void {
    const { maxDepth, maxValues } = this.#limits;
    let inString = this.#inString;
    let escaped = this.#escaped;
    let depth = this.#depth;
    let values = this.#values;
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++depth > maxDepth) throw tooComplex(`nests deeper than ${maxDepth} levels`);
        values++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
      else if (c === COMMA && ++values > maxValues) throw tooComplex(`holds more than ${maxValues} values`);
    }
    this.#inString = inString;
    this.#escaped = escaped;
    this.#depth = depth;
    this.#values = values;
  }
}

const tooComplex = (what: string) => new ProtocolError(ErrorCode.InvalidRequest, `Invalid request: the body ${what}`);
