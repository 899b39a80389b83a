// 8. Activity log: taking a write back. A write whose rows Sluice kept has an Undo button; the person
// confirms in the page's own dialog, which then shows what happened: the rows put back, or, when rows
// changed since the write, those rows (nothing was changed) and the choice to undo anyway.

import { post } from './api.js';
import { announce, setError } from './feedback.js';
import { numberFormat, timeFormat, toTime, validTime } from './format.js';
import { scheduleRefresh } from './refresh.js';
import { $, $$, h } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';
import { differencesTable } from './undoDifferences.js';

/** The activity row the dialog is about, and the button that opened it. */
let asking;
let opener;

const rowsText = (n) => `${numberFormat.format(n)} ${n === 1 ? 'row' : 'rows'}`;
const whenText = (row) => (validTime(row.time) ? timeFormat.format(toTime(row.time)) : 'an unknown time');

/** The row's Undo button while its write can be taken back, `undone` once it was; nothing otherwise. */
export function undoControl(row) {
  if (row.undo === 'done') return h('span', { class: 'tag', 'data-undone': '' }, 'undone');
  if (row.undo !== 'available') return null;
  return h(
    'button',
    { type: 'button', class: 'button button-small', 'data-action': 'undo', 'aria-label': `Undo the write of ${whenText(row)}`, onclick: (event) => askUndo(row, event.currentTarget) },
    'Undo',
  );
}

/** Which of the dialog's parts show: asking, done, differs (rows changed since), failed. */
function showStep(dialog, step) {
  dialog.dataset.step = step;
  const shown = { cancel: step !== 'done' && step !== 'failed', undo: step === 'asking', force: step === 'differs', close: step === 'done' || step === 'failed' };
  for (const button of $$('.actions button', dialog)) {
    button.hidden = !shown[button.dataset.action];
    button.disabled = false;
  }
  $('[data-undo-differs]', dialog).hidden = step !== 'differs';
  $('[data-undo-outcome]', dialog).hidden = step !== 'done';
}

function askUndo(row, button) {
  const dialog = $('#activity-undo-dialog');
  asking = row;
  opener = button;
  $('[data-undo-what]', dialog).replaceChildren(
    'Puts back the rows changed by ',
    h('code', {}, visibleNodes(row.action)),
    ...(row.connection_id ? [' on ', h('code', {}, visibleNodes(row.connection_id))] : []),
    ` at ${whenText(row)} (activity ${row.seq}: `,
    h('code', {}, `sluice undo ${row.seq}`),
    ' does the same). The undo is itself a write: it is logged, and can be undone in turn.',
  );
  setError($('[data-error="undo"]', dialog), '');
  showStep(dialog, 'asking');
  dialog.showModal();
}

/** Sends the undo (forced or not) and shows its outcome in the dialog. */
async function undo(dialog, force) {
  const row = asking;
  setError($('[data-error="undo"]', dialog), '');
  for (const button of $$('.actions button', dialog)) button.disabled = true;
  try {
    const result = await post('activity.undo', { seq: row.seq, force });
    if (result.ok) {
      const outcome = $('[data-undo-outcome]', dialog);
      outcome.textContent = `Undone: ${rowsText(result.rowsAffected)} put back.`;
      showStep(dialog, 'done');
      outcome.focus();
      announce(outcome.textContent);
    } else {
      showDifferences(dialog, result);
    }
  } catch (e) {
    failed(dialog, `Could not undo: ${e.message}`);
  } finally {
    scheduleRefresh(0);
  }
}

function failed(dialog, message) {
  setError($('[data-error="undo"]', dialog), message);
  showStep(dialog, 'failed');
  $('[data-action="close"]', dialog).focus();
}

function showDifferences(dialog, result) {
  const n = result.differs.length;
  $('[data-undo-stopped]', dialog).textContent =
    `Nothing was changed: ${rowsText(n)} ${n === 1 ? 'is' : 'are'} no longer as this write left ${n === 1 ? 'it' : 'them'}. ` +
    'Undo anyway puts back the rows as they were before the write, overwriting these changes.';
  $('[data-undo-differs-table]', dialog).replaceChildren(differencesTable(result));
  showStep(dialog, 'differs');
  $('[data-undo-stopped]', dialog).focus();
  announce(`The undo stopped: ${rowsText(n)} changed since the write.`);
}

export function wireUndoDialog() {
  const dialog = $('#activity-undo-dialog');
  for (const action of ['cancel', 'close']) $(`[data-action="${action}"]`, dialog).addEventListener('click', () => dialog.close());
  $('[data-action="undo"]', dialog).addEventListener('click', () => undo(dialog, false));
  $('[data-action="force"]', dialog).addEventListener('click', () => undo(dialog, true));
  dialog.addEventListener('close', () => {
    asking = undefined;
    // The row's button is gone once the list was drawn again: the keyboard goes on from the section's heading.
    if (!opener?.isConnected) {
      const heading = $('#activity-title');
      heading.setAttribute('tabindex', '-1');
      heading.focus();
    }
  });
}
