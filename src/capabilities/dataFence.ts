import { randomBytes } from 'node:crypto';
import { RESULTS } from '../core/contract.js';
import { RawJson } from '../protocol/rawJson.js';

/**
 * The boundary around what an answer carries from the database (issue 30, item 4): `<data-…>` and
 * `</data-…>` on lines of their own, the suffix `RESULTS.fenceBytes` random bytes drawn for this answer
 * alone, after its content exists — so the content cannot name it — and drawn again in the (2⁻⁶⁴)
 * event that the content holds it anyway. The server's instructions tell the model that what lies
 * inside is data, never instructions. Every answer, error, resource body and prompt that carries
 * database text is fenced here.
 */
export type Fence = { open: string; close: string };

/** A fence whose name `content` does not contain (`content` as text, or as a JSON string literal's inside: the name has nothing to escape). */
export function fenceFor(content: string): Fence {
  for (;;) {
    const name = `data-${randomBytes(RESULTS.fenceBytes).toString('hex')}`;
    if (!content.includes(name)) return { open: `<${name}>`, close: `</${name}>` };
  }
}

/** `content` inside a fence of its own, then `after` (Sluice's own words, outside it) when given. */
export function fenced(content: string, after?: string): string {
  const { open, close } = fenceFor(content);
  return `${open}\n${content}\n${close}${after ? `\n${after}` : ''}`;
}

/** `fenced` for a content already written as a JSON string literal (RawJson), left unparsed. */
export function fencedLiteral(literal: RawJson, after?: string): RawJson {
  const inside = literal.text.slice(1, -1);
  const { open, close } = fenceFor(inside);
  const tail = after ? `\\n${JSON.stringify(after).slice(1, -1)}` : '';
  return new RawJson(`"${open}\\n${inside}\\n${close}${tail}"`);
}
