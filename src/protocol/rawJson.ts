import { randomBytes } from 'node:crypto';

/**
 * JSON text serialised already (query rows serialised in the query process), written into a message
 * as it stands by `toJsonText`, so that a large result is never turned back into objects only to be
 * serialised again. Serialised any other way, it is parsed back: correct, only slower.
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    if (!splicing) return JSON.parse(this.text);
    splicing.push(this);
    return `${MARKER}${splicing.length - 1}`;
  }
}

// A random marker per process: no value a client sends can collide with it.
const MARKER = `\u0000raw-json-${randomBytes(12).toString('hex')}:`;
/** The RawJson values met by the `JSON.stringify` under way in `toJsonText`, in order. */
let splicing: RawJson[] | undefined;

/** `JSON.stringify(value)`, with each RawJson's text in place of the value. */
export function toJsonText(value: unknown): string {
  const pieces = toJsonPieces(value);
  return pieces.length === 1 ? (pieces[0] as string) : pieces.join('');
}

/**
 * `toJsonText(value)` as the pieces it is made of, in order, not joined: the text around the RawJson
 * values and each one's text, so that a large body is never copied into one string.
 */
export function toJsonPieces(value: unknown): string[] {
  const outer = splicing;
  const found: RawJson[] = [];
  splicing = found;
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    splicing = outer;
  }
  if (found.length === 0) return [text];
  // The placeholders appear in the order their values were met: one pass.
  const pieces: string[] = [];
  let from = 0;
  for (let i = 0; i < found.length; i++) {
    const placeholder = JSON.stringify(`${MARKER}${i}`);
    const at = text.indexOf(placeholder, from);
    // Not where it should be (a toJSON of the value stringified it on its own): serialise the slow way.
    if (at < 0) return [JSON.stringify(value)];
    pieces.push(text.slice(from, at), (found[i] as RawJson).text);
    from = at + placeholder.length;
  }
  pieces.push(text.slice(from));
  return pieces;
}
