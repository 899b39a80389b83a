import { expect } from 'vitest';

/** An answer's text: its data fence (capabilities/dataFence.ts), what lies inside, and the note after it, if any. */
const FENCED = /^<(data-[0-9a-f]{16})>\n([\s\S]*)\n<\/\1>(?:\n([^\n]*))?$/;

/** The parts of a fenced text; fails the test when the text is not fenced. */
export function fenceParts(text: string): { name: string; inside: string; note: string | undefined } {
  const match = FENCED.exec(text);
  expect(match, `not fenced: ${text.slice(0, 200)}`).not.toBeNull();
  return { name: match![1]!, inside: match![2]!, note: match![3] };
}

/** What lies inside a fenced text. */
export const unfenced = (text: string): string => fenceParts(text).inside;

/** A tool error's text `<code>: <message>`, its message out of the fence when the database wrote it. */
export function errorText(text: string): string {
  const match = /^([a-z_]+): <(data-[0-9a-f]{16})>\n([\s\S]*)\n<\/\2>$/.exec(text);
  return match ? `${match[1]}: ${match[3]}` : text;
}

/** `json` with each data fence's random name blanked (`data-…`): two answers of the same data then compare equal. */
export const fenceNamesBlanked = <T>(json: T): T => JSON.parse(JSON.stringify(json).replace(/data-[0-9a-f]{16}/g, 'data-…')) as T;
