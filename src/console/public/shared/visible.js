// How both pages show text a client or a database supplied (a name, a value, a message): every
// invisible character as a marked escape (`⟨U+202E⟩`), by the one rule the server and the command line
// use too (/core/visibleText.js).

import { visiblePieces } from '../core/visibleText.js';
import { h } from './dom.js';

/** Nodes showing `pieces`: plain runs as text, each escape as a marked `<span class="escape">`. */
export const pieceNodes = (pieces) =>
  pieces.map((p) => (p.escaped ? h('span', { class: 'escape', title: `Invisible character ${p.text.slice(1, -1)}` }, p.text) : p.text));

/** Text a client or a database supplied, on one line, its invisible characters shown as marked escapes. */
export const visibleNodes = (text) => pieceNodes(visiblePieces(String(text ?? '')));
