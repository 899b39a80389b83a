// How many pairings and statements wait for an answer: in the navigation and the page title.

import { isOpenSheet } from './approvals.js';
import { $ } from './shared/dom.js';
import { state } from './state.js';

export function renderCounts() {
  const counts = { approvals: state.sheets.filter(isOpenSheet).length, dialogs: state.dialogs.length };
  for (const [name, count] of Object.entries(counts)) {
    const el = $(`[data-nav-count="${name}"]`);
    el.hidden = count === 0;
    el.textContent = count === 0 ? '' : String(count);
    el.setAttribute('aria-label', `${count} waiting`);
  }
  const waiting = counts.approvals + counts.dialogs;
  document.title = waiting > 0 ? `(${waiting}) Sluice console` : 'Sluice console';
}
