// A value exactly as the database holds it (db/keptWrites.ts, ExactValue), shown as a dialog shows a
// bound value: text in double quotes with every invisible character a marked escape, numbers as the
// engine wrote them, bytes in hex, null as null.

import { h } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';

/** base64 → `x'00ff…'`; text that is not base64 is shown as it came, escaped. */
function bytesText(base64) {
  try {
    const binary = atob(base64);
    return `x'${[...binary].map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('')}'`;
  } catch {
    return `base64 ${base64}`;
  }
}

/** One exact value as a `<code>` element (`data-exact` says its kind: text, integer, float, bytes or null). */
export function exactValueNode(value) {
  if (value === null) return h('code', { 'data-exact': 'null' }, 'null');
  if (typeof value === 'string') return h('code', { 'data-exact': 'text' }, '"', visibleNodes(value), '"');
  if (typeof value !== 'object') return h('code', {}, visibleNodes(JSON.stringify(value)));
  if ('i' in value) return h('code', { 'data-exact': 'integer' }, visibleNodes(value.i));
  if ('f' in value) return h('code', { 'data-exact': 'float' }, visibleNodes(value.f));
  return h('code', { 'data-exact': 'bytes' }, visibleNodes(bytesText(value.b)));
}
