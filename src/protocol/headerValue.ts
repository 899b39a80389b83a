import { headerMismatch } from '../core/errors.js';

const WRAPPED = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
// A leading U+FEFF is part of the value, not a byte-order mark to drop.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes a mirrored header value: printable ASCII is taken as it is; anything else travels as
 * `=?base64?<base64 of UTF-8>?=`. A malformed wrapper or a control character is a header mismatch.
 */
export function decodeHeaderValue(name: string, raw: string): string {
  if (!PRINTABLE_ASCII.test(raw))
    throw headerMismatch(`Header ${name} contains a control or non-ASCII character`);
  if (!raw.startsWith('=?')) return raw;
  const match = WRAPPED.exec(raw);
  const payload = match?.[1];
  if (payload === undefined || payload.length % 4 !== 0) {
    throw headerMismatch(`Header ${name} has a malformed =?base64?…?= wrapper`);
  }
  try {
    return UTF8.decode(Buffer.from(payload, 'base64'));
  } catch {
    throw headerMismatch(`Header ${name} does not wrap valid UTF-8`);
  }
}

/** The sender's side of the rule above: printable ASCII without edge spaces plain, anything else wrapped. */
export function encodeHeaderValue(value: string): string {
  const plain = PRINTABLE_ASCII.test(value) && value.trim() === value && !value.startsWith('=?');
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
