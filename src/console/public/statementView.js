// What a write's dialog shows of the statement and its values, with every invisible character made
// visible (an escape such as ⟨U+202E⟩, marked), so nothing can push or hide part of what will run.

import { ENGINE_NAMES } from './core/engineNames.js';
import { changedCells, placeholderOf, valueType } from './core/statementText.js';
import { visibleLines } from './core/visibleText.js';
import { h } from './shared/dom.js';
import { pieceNodes, visibleNodes } from './shared/visible.js';

export const engineName = (engine) => ENGINE_NAMES[engine] ?? String(engine ?? '—');

/**
 * The statement as numbered lines (the number drawn by CSS from `data-line`), each ending in its line
 * feed so that the text copied, or read, is the statement's; returns the lines and the escapes shown.
 */
export function statementLines(statement) {
  const lines = visibleLines(statement);
  const escapes = lines.flat().filter((p) => p.escaped).length;
  const nodes = lines.map((pieces, i) =>
    h('span', { class: 'line', 'data-line': i + 1 }, pieceNodes(pieces), i < lines.length - 1 ? '\n' : ''),
  );
  return { nodes, count: lines.length, escapes };
}

/** A value in a table cell: a string in quotes (so its spaces show), anything else as JSON writes it. */
const valueNodes = (value) => h('code', {}, typeof value === 'string' ? ['"', ...visibleNodes(value), '"'] : visibleNodes(JSON.stringify(value)));

/** The bound values: placeholder, type and value (a string in quotes, so its spaces show). */
export function paramsTable(placeholders, params) {
  if (params.length === 0) return h('p', { class: 'muted', 'data-params': 'none' }, 'No bound values.');
  return h(
    'table',
    { class: 'params', 'data-params': '' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Placeholder'), h('th', { scope: 'col' }, 'Type'), h('th', { scope: 'col' }, 'Value'))),
    h(
      'tbody',
      {},
      params.map((value, i) =>
        h(
          'tr',
          { 'data-param': i + 1 },
          h('th', { scope: 'row' }, h('code', {}, placeholderOf(placeholders, i))),
          h('td', { 'data-type': '' }, valueType(value)),
          h('td', { 'data-value': '' }, valueNodes(value)),
        ),
      ),
    ),
  );
}

/** The rows an insert would add: columns × rows, the first ones shown, then how many more there are. */
export function rowsTable(preview) {
  const more = preview.total - preview.shown.length;
  return [
    h(
      'table',
      { class: 'params', 'data-rows': '' },
      h('thead', {}, h('tr', {}, preview.columns.map((name) => h('th', { scope: 'col' }, visibleNodes(name))))),
      h('tbody', {}, preview.shown.map((row, i) => h('tr', { 'data-row': i + 1 }, row.map((value) => h('td', {}, valueNodes(value)))))),
    ),
    ...(more > 0 ? [h('p', { class: 'muted', 'data-rows-more': more }, `and ${more} more ${more === 1 ? 'row' : 'rows'}`)] : []),
  ];
}

/**
 * A tried write's changed rows: each row's line before and after, one above the other, every value
 * made visible as a bound value is; the changed cells of the line after marked (`data-changed`, and
 * said in words for a screen reader), and `and N more rows` past those shown.
 */
export function changesTable(effect) {
  const side = (change, which) => {
    const changed = changedCells(change);
    const values = change[which];
    return h(
      'tr',
      { 'data-change': which },
      h('th', { scope: 'row', class: 'muted' }, which),
      values.map((value, i) =>
        which === 'after' && change.before && changed[i]
          ? h('td', { class: 'cell-changed', 'data-changed': '' }, valueNodes(value), h('span', { class: 'visually-hidden' }, ' (changes)'))
          : h('td', {}, valueNodes(value)),
      ),
    );
  };
  const more = effect.rows - effect.changes.length;
  return [
    h(
      'table',
      { class: 'params changes', 'data-changes': '' },
      h('thead', {}, h('tr', {}, h('td', {}), effect.columns.map((name) => h('th', { scope: 'col' }, visibleNodes(name))))),
      effect.changes.map((change, i) =>
        h('tbody', { 'data-row': i + 1 }, change.before ? side(change, 'before') : [], change.after ? side(change, 'after') : []),
      ),
    ),
    ...(more > 0 ? [h('p', { class: 'muted', 'data-changes-more': more }, `and ${more} more ${more === 1 ? 'row' : 'rows'}`)] : []),
  ];
}

/** Where an export writes: a new file, or one it replaces (marked), in the format named; the path's invisible characters shown. */
export const destinationNodes = (destination) => {
  const format = String(destination.format).toUpperCase();
  return [
    destination.replaces ? `${format}, replacing the file ` : `a new ${format} file `,
    h('code', { 'data-destination-path': '' }, visibleNodes(destination.path)),
    ...(destination.replaces ? [' ', h('span', { class: 'tag tag-warn', 'data-replaces': '' }, 'replaces')] : []),
  ];
};
