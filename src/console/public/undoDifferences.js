// The rows that stopped an undo: each row's key, then its line as it is now above its line as the write
// left it, the cells that differ marked, every value made visible as a dialog's values are.

import { changedCells } from './core/statementText.js';
import { exactValueNode } from './exactValues.js';
import { h } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';

const SIDES = [
  { name: 'now', label: 'now' },
  { name: 'expected', label: 'expected' },
];

/** One side of a differing row: its cells, or `no row` across the table when there is none. */
function sideRow(difference, side, columns, first) {
  const values = difference[side.name];
  const marked = changedCells({ before: difference.now, after: difference.expected });
  const cells = values
    ? values.map((value, i) =>
        marked[i] && difference.now && difference.expected
          ? h('td', { class: 'cell-changed', 'data-changed': '' }, exactValueNode(value), h('span', { class: 'visually-hidden' }, ' (differs)'))
          : h('td', {}, exactValueNode(value)),
      )
    : [h('td', { colspan: columns.length, class: 'muted', 'data-no-row': '' }, 'no row')];
  return h(
    'tr',
    { 'data-side': side.name },
    first ? h('th', { scope: 'rowgroup', rowspan: SIDES.length, 'data-key': '' }, difference.key.flatMap((v, i) => (i > 0 ? [', ', exactValueNode(v)] : [exactValueNode(v)]))) : null,
    h('th', { scope: 'row', class: 'muted' }, side.label),
    cells,
  );
}

/**
 * `activity.undo`'s `{ columns, keys, differs: [{ key, now, expected }] }` as a table (now or expected
 * null: no such row); the key's heading names its columns.
 */
export function differencesTable({ columns, keys, differs }) {
  const keyNames = keys.map((i) => columns[i]).join(', ');
  return h(
    'table',
    { class: 'params changes', 'data-differs': '' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Key (', visibleNodes(keyNames), ')'), h('td', {}), columns.map((name) => h('th', { scope: 'col' }, visibleNodes(name))))),
    differs.map((difference, i) => h('tbody', { 'data-row': i + 1 }, SIDES.map((side, j) => sideRow(difference, side, columns, j === 0)))),
  );
}
