// 7. Lockouts and limits: who a limit holds back (an address, a token, or every caller), until when and
// after how many attempts; clearing one, or all, lets the caller in again at once.

import { post } from './api.js';
import { announce, setEmpty, setError } from './feedback.js';
import { numberFormat, timeEl, timeFormat } from './format.js';
import { reconcile } from './reconcile.js';
import { scheduleRefresh } from './refresh.js';
import { appNow } from './shared/clock.js';
import { $, h, uid } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';
import { state } from './state.js';

const LIMITS = {
  exchange: { name: 'Failed pairing exchanges', counted: 'failed', locked: 'Locked out until' },
  unverifiedBearers: { name: 'Tokens that do not verify', counted: 'refused or counted', locked: 'Refused until' },
  requests: { name: 'Requests per minute', counted: 'requests', locked: 'Rate limited until' },
};

function whoOf(lockout) {
  if (lockout.tokenName) return [h('span', { class: 'cell-title' }, visibleNodes(lockout.tokenName)), h('code', { class: 'prefix' }, visibleNodes(lockout.who))];
  if (lockout.who === '*') return [h('span', { class: 'cell-title' }, 'All callers')];
  return [h('code', { class: 'cell-title' }, visibleNodes(lockout.who))];
}

export function renderLockouts() {
  // One that has ended on its own is gone before the next state arrives.
  const lockouts = state.lockouts.filter((l) => !(Date.parse(l.until) <= appNow()));
  reconcile(
    $('[data-list="lockouts"]'),
    lockouts,
    (l) => l.id,
    () => h('tr'),
    (row, lockout) => {
      const signature = JSON.stringify(lockout);
      if (row._signature === signature) return;
      row._signature = signature;
      fillRow(row, lockout);
    },
  );
  setEmpty('lockouts', lockouts.length === 0);
  $('[data-action="clear-all-lockouts"]').hidden = lockouts.length === 0;
}

function fillRow(row, lockout) {
  const limit = LIMITS[lockout.limit] ?? { name: lockout.limit, counted: 'counted', locked: 'Until' };
  const whoId = row._whoId ?? (row._whoId = uid('lockout-who'));
  const until = Date.parse(lockout.until);
  row.dataset.lockoutId = lockout.id;
  row.dataset.locked = String(lockout.locked);
  row.replaceChildren(
    h('th', { scope: 'row', class: 'cell-name', id: whoId, 'data-cell': 'who' }, ...whoOf(lockout)),
    h('td', { 'data-cell': 'limit' }, limit.name),
    h(
      'td',
      { class: 'num', 'data-cell': 'count' },
      h('span', { class: 'cell-title', 'data-count': '' }, numberFormat.format(lockout.count)),
      h('span', { class: 'cell-sub' }, limit.counted),
    ),
    h(
      'td',
      { class: 'cell-nowrap', 'data-cell': 'until' },
      h('span', { class: `badge badge-${lockout.locked ? 'revoked' : 'expired'}` }, lockout.locked ? 'locked' : 'counting'),
      h(
        'span',
        { class: 'cell-sub' },
        lockout.locked ? `${limit.locked} ` : 'Count resets at ',
        Number.isFinite(until) ? timeEl(until, timeFormat.format(until)) : '—',
      ),
    ),
    h(
      'td',
      { class: 'cell-actions' },
      h('button', {
        type: 'button', class: 'button button-small', 'data-action': 'clear-lockout', 'aria-describedby': whoId,
        onclick: () => clearLockouts({ id: lockout.id }, `Cleared: ${limit.name.toLowerCase()}.`),
      }, 'Clear'),
    ),
  );
}

async function clearLockouts(body, done) {
  setError('lockouts', '');
  try {
    await post('lockouts.clear', body);
    announce(done);
  } catch (e) {
    setError('lockouts', `Could not clear: ${e.message}`);
  } finally {
    scheduleRefresh(0);
  }
}

export function wireLockouts() {
  $('[data-action="clear-all-lockouts"]').addEventListener('click', () => clearLockouts({ all: true }, 'Every lockout cleared.'));
}
