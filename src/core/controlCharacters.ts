/**
 * Control characters: Unicode's category Cc, that is C0 (U+0000–U+001F), DEL (U+007F) and C1
 * (U+0080–U+009F). No client string holding one reaches a driver's connection options or a file path:
 * PostgreSQL's start-up message and MySQL's handshake end each value at a NUL, so a NUL in a database
 * name adds settings of the caller's choosing; the others have no place in a name and some are read as
 * separators somewhere. Format characters (bidi controls, zero-width ones) are not in Cc and pass.
 */
const CONTROL_CHARACTER = /\p{Cc}/u;

/** The first character of `text` that `pattern` matches, as `U+XXXX`; undefined when none does. */
export function firstCodePoint(pattern: RegExp, text: string): string | undefined {
  const found = pattern.exec(text)?.[0];
  return found === undefined ? undefined : `U+${(found.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The first control character of `text` as `U+XXXX`; undefined when it has none. */
export const controlCharacterIn = (text: string) => firstCodePoint(CONTROL_CHARACTER, text);
