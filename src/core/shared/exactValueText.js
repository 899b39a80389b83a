// A value exactly as the database holds it (db/keptWrites.ts, ExactValue), as a person reads it: the
// same in `sluice undo`'s table of the rows that stopped an undo and in the console's (served at
// /core/exactValueText.js). Its invisible characters are left for the caller to escape (visibleText,
// or the console's marked escapes).

/** @typedef {null | string | { i: string } | { f: string } | { b: string }} ExactValue */

/**
 * Bytes given in base64 as `x'…'` hex; text that is not base64 as `base64 <text>`.
 * @param {string} base64
 * @returns {string}
 */
function bytesText(base64) {
  let binary;
  try {
    binary = globalThis.atob(base64);
  } catch {
    return `base64 ${base64}`;
  }
  return `x'${Array.from(binary, (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('')}'`;
}

/**
 * An exact value's kind and its text: text in double quotes (so its spaces show), a number as the
 * engine wrote it, bytes as `x'…'` hex, `null`.
 * @param {ExactValue} value
 * @returns {{ kind: 'null' | 'text' | 'integer' | 'float' | 'bytes', text: string }}
 */
export function exactValueText(value) {
  if (value === null) return { kind: 'null', text: 'null' };
  if (typeof value === 'string') return { kind: 'text', text: `"${value}"` };
  if ('i' in value) return { kind: 'integer', text: value.i };
  if ('f' in value) return { kind: 'float', text: value.f };
  return { kind: 'bytes', text: bytesText(value.b) };
}
