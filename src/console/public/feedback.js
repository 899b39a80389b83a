// How the console tells the user things: a section's error line, its empty state, and the announcer
// that screen readers read out. Messages often quote a name or a database's error, so the one rule of
// invisible characters applies to them too.

import { visibleText } from './core/visibleText.js';
import { $ } from './shared/dom.js';

export function setError(name, message) {
  const el = typeof name === 'string' ? $(`[data-error="${name}"]`) : name;
  if (el) el.textContent = visibleText(message ?? '');
}

export function announce(message) {
  const el = $('[data-announcer]');
  el.textContent = '';
  // A fresh text node after a tick makes screen readers announce repeated messages too.
  setTimeout(() => {
    el.textContent = visibleText(message);
  }, 50);
}

export function setEmpty(name, isEmpty) {
  const empty = $(`[data-empty="${name}"]`);
  if (empty) empty.hidden = !isEmpty;
  const wrap = $(`[data-table-wrap="${name}"]`);
  if (wrap) wrap.hidden = isEmpty;
}
