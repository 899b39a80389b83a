// 3. Confirmation dialogs for writes: a client wants to run a statement that writes.

import { post } from './api.js';
import { announce, setEmpty, setError } from './feedback.js';
import { timeEl, timeFormat } from './format.js';
import { reconcile } from './reconcile.js';
import { scheduleRefresh } from './refresh.js';
import { appNow } from './shared/clock.js';
import { $, $$, h, uid } from './shared/dom.js';
import { state } from './state.js';

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
      meta('Client', 'client'),
      meta('Connection', 'connection'),
      meta('Tool', 'tool'),
      meta('Statement kind', 'statement-kind'),
      meta('Asked at', 'asked-at'),
    ),
    h('p', { class: 'statement-label', id: `${id}-statement` }, 'Full statement'),
    h('pre', { class: 'statement', tabindex: '0', role: 'region', 'aria-labelledby': `${id}-statement`, 'data-statement': '' }),
    h('div', { class: 'error', role: 'alert', 'data-error': '' }),
    h('p', { class: 'outcome', 'data-outcome': '', tabindex: '-1', hidden: true }),
    h('div', { class: 'actions' }, approve, deny),
  );
  approve.addEventListener('click', () => answerDialog(card, 'approve'));
  deny.addEventListener('click', () => answerDialog(card, 'deny'));
  return card;
}

function updateDialogCard(card, dialog) {
  card._dialog = dialog;
  const client = dialog.clientName || 'A client';
  $('[data-title-client]', card).textContent = client;
  $('[data-title-kind]', card).textContent = dialog.statementKind || 'write';
  $('[data-client]', card).textContent = client;
  const connection = $('[data-connection]', card);
  connection.replaceChildren(
    dialog.connectionName || dialog.connectionId || '—',
    dialog.connectionId && dialog.connectionName && dialog.connectionId !== dialog.connectionName
      ? h('span', { class: 'muted' }, ` (${dialog.connectionId})`)
      : '',
  );
  $('[data-tool]', card).replaceChildren(h('code', {}, dialog.tool ?? '—'));
  $('[data-statement-kind]', card).textContent = dialog.statementKind ?? '—';
  const askedAt = (state?.now ?? appNow()) - (dialog.waitingSeconds ?? 0) * 1000;
  if (card._askedAt === undefined) card._askedAt = askedAt;
  $('[data-asked-at]', card).replaceChildren(timeEl(card._askedAt, timeFormat.format(card._askedAt)));
  const statement = dialog.statement ?? '';
  const pre = $('[data-statement]', card);
  if (pre.textContent !== statement) pre.textContent = statement;
  const lines = statement.split('\n').length;
  $('.statement-label', card).textContent = lines > 1 ? `Full statement (${lines} lines)` : 'Full statement';
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
