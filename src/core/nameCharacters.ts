import { firstCodePoint } from './controlCharacters.js';
import { CUSTOM_TOOLS } from './contract.js';

/**
 * What a name may not hold, a connection's, a token's or a pairing client's: control characters (C0,
 * DEL, C1), the line and paragraph separators, and the bidirectional controls (the marks, embeddings,
 * overrides and isolates), which break a name's line or reorder the text around it wherever it is shown
 * without Sluice's escapes (a terminal reading config.json, a client's own list); and lone surrogates,
 * which are no text at all. Zero-width joiners and the like stay: emoji and several scripts need them,
 * and every screen of Sluice's shows them escaped (`visibleText`).
 */
const NOT_IN_NAMES = /[\p{Cc}\p{Cs}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** The first character of `name` a name may not hold, as `U+XXXX`; undefined when it has none. */
export const nameCharacterIn = (name: string) => firstCodePoint(NOT_IN_NAMES, name);

/** Why `name` is refused, in a sentence whose subject is `field` (`name`, `--name`); undefined when it is not. */
export function nameRefusal(field: string, name: string): string | undefined {
  const found = nameCharacterIn(name);
  return found && `${field} must not contain control characters, line separators or bidirectional controls (it holds ${found})`;
}

/** MCP's tool-name rule, which a custom tool's name follows: letters, digits, `_`, `-` and `.`, within the bound. */
export const TOOL_NAME = new RegExp(`^[A-Za-z0-9_.-]{1,${CUSTOM_TOOLS.maxNameChars}}$`);
