/**
 * Where things are in a JSON text, for messages that name a line: `JSON.parse` gives values without
 * places. Both functions read text `JSON.parse` accepted (or, for `lineOfOffset`, an offset it reported).
 */

/** The 1-based line of the character at `offset`. */
export function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The line a `JSON.parse` error points at, when its message names a position; 1 otherwise. */
export function lineOfParseError(text: string, error: Error): number {
  const position = /position (\d+)/.exec(error.message)?.[1];
  if (position !== undefined) return lineOfOffset(text, Number(position));
  const line = /line (\d+)/.exec(error.message)?.[1];
  return line !== undefined ? Number(line) : 1;
}

/**
 * The line each element of the array under the top-level object's `field` starts on, in order: a scan
 * that follows strings and nesting only, which is all valid JSON needs.
 */
export function entryLines(text: string, field: string): number[] {
  const lines: number[] = [];
  /** Open containers; for an object, the key last read at its level. */
  const stack: { kind: '{' | '['; key?: string }[] = [];
  let line = 1;
  let lastString: string | undefined;
  let i = 0;
  const inEntries = () => stack.length === 2 && stack[1]?.kind === '[' && stack[0]?.key === field;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '\n') line++;
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (inEntries()) lines.push(line);
      lastString = JSON.parse(text.slice(i, end)) as string;
      i = end;
      continue;
    }
    if (ch === ':' && stack.at(-1)?.kind === '{') (stack.at(-1) as { key?: string }).key = lastString;
    else if (ch === '{' || ch === '[') {
      if (inEntries()) lines.push(line);
      stack.push({ kind: ch });
    } else if (ch === '}' || ch === ']') stack.pop();
    else if (inEntries() && /[-0-9tfn]/.test(ch) && !/[-0-9a-z.+eE]/.test(text[i - 1] ?? ' ')) lines.push(line);
    i++;
  }
  return lines;
}

/** The index just past the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}
