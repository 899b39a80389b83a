// 3. Confirmation dialogs for writes: a client wants to run a statement that writes.

import { post } from './api.js';
import { announce, setEmpty, setError } from './feedback.js';
import { timeEl, timeFormat } from './format.js';
import { reconcile } from './reconcile.js';
import { scheduleRefresh } from './refresh.js';
import { effectText } from './core/statementText.js';
import { appNow } from './shared/clock.js';
import { $, $$, h, uid } from './shared/dom.js';
import { state } from './state.js';
import { visibleNodes } from './shared/visible.js';
import { changesTable, destinationNodes, engineName, paramsTable, rowsTable, statementLines } from './statementView.js';
import { LEVEL_LABELS, labelOf } from './words.js';

export function renderDialogs() {
  const list = $('[data-list="dialogs"]');
  reconcile(list, state.dialogs, (d) => d.id, createDialogCard, updateDialogCard);
  setEmpty('dialogs', state.dialogs.length === 0);
}

function createDialogCard(dialog) {
  const id = uid('dialog');
  const titleId = `${id}-title`;
  const approve = h('button', { type: 'button', class: 'button button-primary', 'data-action': 'approve', 'aria-describedby': titleId }, 'Approve');
  const deny = h('button', { type: 'button', class: 'button button-danger', 'data-action': 'deny', 'aria-describedby': titleId }, 'Deny');
  const meta = (label, key) => [h('dt', {}, label), h('dd', { [`data-${key}`]: '' })];
  const card = h(
    'article',
    { class: 'card dialog', 'data-dialog-id': dialog.id, 'aria-labelledby': titleId },
    h('h3', { id: titleId }, h('span', { 'data-title-client': '' }), ' wants to run a ', h('span', { 'data-title-kind': '' }), ' statement'),
    h(
      'dl',
      { class: 'meta' },
      [h('dt', {}, 'Client'), h('dd', {}, h('span', { 'data-client': '' }), ' ', h('span', { 'data-client-note': '' }))],
      meta('Token', 'token'),
      meta('Connection', 'connection'),
      meta('Database', 'database'),
      meta('Tool', 'tool'),
      meta('Classification', 'classification'),
      meta('Rows it would change', 'effect'),
      meta('Writes to', 'destination'),
      meta('Asked at', 'asked-at'),
    ),
    h('p', { class: 'statement-label', id: `${id}-statement`, 'data-statement-label': '' }, 'Full statement'),
    h('p', { class: 'statement-note', 'data-escapes-note': '', hidden: true }),
    h('pre', { class: 'statement', tabindex: '0', role: 'region', 'aria-labelledby': `${id}-statement`, 'data-statement': '' }),
    h('div', { 'data-rows-box': '', hidden: true }, h('p', { class: 'statement-label', 'data-rows-label': '' }), h('div', { 'data-rows-table': '' })),
    h('div', { 'data-changes-box': '', hidden: true }, h('p', { class: 'statement-label' }, 'Rows that will change, before and after'), h('div', { 'data-changes-table': '' })),
    h('p', { class: 'undo-line', 'data-undo': '', hidden: true }),
    h('p', { class: 'statement-label' }, 'Bound values'),
    h('div', { 'data-params-box': '' }),
    h('div', { class: 'error', role: 'alert', 'data-error': '' }),
    h('p', { class: 'outcome', 'data-outcome': '', tabindex: '-1', hidden: true }),
    h('div', { class: 'actions' }, approve, deny),
  );
  approve.addEventListener('click', () => answerDialog(card, 'approve'));
  deny.addEventListener('click', () => answerDialog(card, 'deny'));
  return card;
}

/** The parts of a dialog that never change while it waits, drawn once. */
function drawStatement(card, dialog) {
  const client = dialog.clientName || 'A client';
  $('[data-title-client]', card).replaceChildren(...visibleNodes(client));
  $('[data-title-kind]', card).textContent = dialog.statementKind || 'write';
  $('[data-client]', card).replaceChildren(...visibleNodes(client));
  $('[data-client-note]', card).replaceChildren(
    dialog.clientNameDeclared
      ? h('span', { class: 'tag tag-warn', 'data-self-declared': '', title: 'The client chose this name itself: nothing proves it' }, 'self-declared')
      : h('span', { class: 'muted' }, '(the client declared no name: its token’s name)'),
  );
  $('[data-token]', card).replaceChildren(...visibleNodes(dialog.tokenName ?? '—'), ' ', h('span', { class: 'muted', 'data-token-level': dialog.tokenLevel }, `(${labelOf(LEVEL_LABELS, dialog.tokenLevel)})`));
  $('[data-connection]', card).replaceChildren(
    ...visibleNodes(dialog.connectionName || dialog.connectionId || '—'),
    dialog.connectionId && dialog.connectionName && dialog.connectionId !== dialog.connectionName
      ? h('span', { class: 'muted' }, ' (', visibleNodes(dialog.connectionId), ')')
      : '',
  );
  $('[data-database]', card).replaceChildren(h('span', { 'data-engine': dialog.engine }, engineName(dialog.engine)), ': ', h('code', { 'data-database-name': '' }, visibleNodes(dialog.database ?? '—')));
  $('[data-tool]', card).replaceChildren(h('code', {}, dialog.tool ?? '—'));
  $('[data-classification]', card).replaceChildren(
    h('strong', { 'data-statement-kind': '' }, dialog.statementKind ?? '—'),
    ...(dialog.statementReason ? [' — ', h('span', { 'data-statement-reason': '' }, visibleNodes(dialog.statementReason))] : []),
  );
  const effect = $('[data-effect]', card);
  effect.replaceChildren(dialog.effect ? effectText(dialog.effect) : '');
  effect.previousElementSibling.hidden = effect.hidden = !dialog.effect;
  const destination = $('[data-destination]', card);
  destination.replaceChildren(...(dialog.destination ? destinationNodes(dialog.destination) : []));
  destination.previousElementSibling.hidden = destination.hidden = !dialog.destination;
  const changesBox = $('[data-changes-box]', card);
  changesBox.hidden = !dialog.effect?.changes?.length;
  if (!changesBox.hidden) $('[data-changes-table]', card).replaceChildren(...changesTable(dialog.effect));
  const rowsBox = $('[data-rows-box]', card);
  rowsBox.hidden = !dialog.rows;
  if (dialog.rows) {
    $('[data-rows-label]', card).replaceChildren('Rows to insert into ', ...visibleNodes(dialog.rows.table), ` (${dialog.rows.total})`);
    $('[data-rows-table]', card).replaceChildren(...rowsTable(dialog.rows));
  }

  const { nodes, count, escapes } = statementLines(dialog.statement ?? '');
  $('[data-statement]', card).replaceChildren(...nodes);
  const characters = [...(dialog.statement ?? '')].length;
  $('[data-statement-label]', card).textContent = `Full statement (${count} ${count === 1 ? 'line' : 'lines'}, ${characters} ${characters === 1 ? 'character' : 'characters'}, nothing left out)`;
  const note = $('[data-escapes-note]', card);
  note.hidden = escapes === 0;
  note.textContent = `It contains ${escapes} invisible or control ${escapes === 1 ? 'character' : 'characters'}, each shown as ⟨U+code⟩ and marked.`;
  $('[data-params-box]', card).replaceChildren(
    dialog.rows
      ? h('p', { class: 'muted', 'data-params': 'rows' }, 'The cells of the rows above, row by row.')
      : paramsTable(dialog.placeholders, dialog.params ?? []),
  );
}

/** Whether the write can be taken back once it ran, as decided before anyone approves it. */
function drawUndo(card, undo) {
  const line = $('[data-undo]', card);
  line.hidden = !undo;
  if (!undo) return;
  line.dataset.undo = undo.possible ? 'possible' : 'impossible';
  line.replaceChildren(
    ...(undo.possible
      ? ['You can take this back afterwards (Activity → Undo, or ', h('code', {}, 'sluice undo'), ').']
      : ['This write cannot be undone: ', ...visibleNodes(undo.why), '.']),
  );
}

function updateDialogCard(card, dialog) {
  if (!card._dialog) {
    drawStatement(card, dialog);
    drawUndo(card, dialog.undo);
  }
  card._dialog = dialog;
  const askedAt = (state?.now ?? appNow()) - (dialog.waitingSeconds ?? 0) * 1000;
  if (card._askedAt === undefined) card._askedAt = askedAt;
  $('[data-asked-at]', card).replaceChildren(timeEl(card._askedAt, timeFormat.format(card._askedAt)));
}

async function answerDialog(card, answer) {
  const dialog = card._dialog;
  const error = $('[data-error]', card);
  setError(error, '');
  const buttons = $$('button', card);
  for (const b of buttons) b.disabled = true;
  let done = false;
  try {
    const result = await post(answer === 'approve' ? 'approvals.approve' : 'approvals.deny', { id: dialog.id });
    if (result && result.ok === false) {
      setError(error, `Could not ${answer}: ${result.reason ?? 'the statement is no longer waiting'}.`);
    } else {
      done = true;
      const outcome = $('[data-outcome]', card);
      outcome.hidden = false;
      outcome.textContent = answer === 'approve' ? 'Approved: the statement runs now.' : 'Denied: the statement will not run.';
      card.dataset.status = answer === 'approve' ? 'approved' : 'denied';
      outcome.focus();
      announce(answer === 'approve' ? 'Statement approved.' : 'Statement denied.');
    }
  } catch (e) {
    setError(error, e.message);
  } finally {
    if (!done) for (const b of buttons) b.disabled = false;
    scheduleRefresh(0);
  }
}
