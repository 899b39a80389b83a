// A value exactly as the database holds it, shown as a dialog shows a bound value: in words by the
// rule `sluice undo` follows too (/core/exactValueText.js), every invisible character a marked escape.

import { exactValueText } from './core/exactValueText.js';
import { h } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';

/** One exact value as a `<code>` element (`data-exact` says its kind: text, integer, float, bytes or null). */
export function exactValueNode(value) {
  const { kind, text } = exactValueText(value);
  return h('code', { 'data-exact': kind }, visibleNodes(text));
}
