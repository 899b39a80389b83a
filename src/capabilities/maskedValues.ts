import { createHmac } from 'node:crypto';
import { MASKING } from '../core/contract.js';

/**
 * What a private column's value becomes (issue 30). `mask` keeps its shape: an e-mail address reads
 * `j***@e***.com`, other text keeps its separators and length with letters and digits starred (the first
 * character kept when there are at least MASKING.keepFirstFrom of them), a number its digits starred.
 * `hash` is `h:` and the first MASKING.hashHexDigits hex digits of HMAC-SHA-256 under the installation's
 * key: the same value hashes alike in every answer, so equality, grouping and joins still work.
 * NULL stays NULL.
 */

const EMAIL = /^([^@\s])[^@\s]*@([^@\s.])[^@\s]*\.([A-Za-z]{2,24})$/;
const ALPHANUMERIC = /[\p{L}\p{N}]/gu;

function maskText(text: string): string {
  const email = EMAIL.exec(text);
  if (email) return `${email[1]}***@${email[2]}***.${email[3]}`;
  const count = text.match(ALPHANUMERIC)?.length ?? 0;
  const starred = text.replace(ALPHANUMERIC, '*');
  const first = [...text][0] ?? '';
  return count >= MASKING.keepFirstFrom && /[\p{L}]/u.test(first) ? first + [...starred].slice(1).join('') : starred;
}

export function maskValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return maskText(value);
  if (typeof value === 'number' || typeof value === 'bigint') return String(value).replace(/[0-9]/g, '*');
  if (typeof value === 'boolean') return '*';
  return '***';
}

/** The value as text for hashing: the same value gives the same text whatever the driver made of it. */
const hashedText = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'bigint' ? value.toString() : JSON.stringify(value));

export function hashValue(key: Buffer, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  return `h:${createHmac('sha256', key).update(hashedText(value)).digest('hex').slice(0, MASKING.hashHexDigits)}`;
}
