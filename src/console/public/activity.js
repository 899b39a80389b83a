// 8. Activity log: the most recent entries, filtered by category, outcome, token and text.

import { getJson } from './api.js';
import { setEmpty, setError } from './feedback.js';
import { numberFormat, timeEl, timeFormat, toTime, validTime } from './format.js';
import { appNow } from './shared/clock.js';
import { reconcile } from './reconcile.js';
import { $, h } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';
import { visibleText } from './core/visibleText.js';
import { state } from './state.js';
import { undoControl } from './activityUndo.js';
import { labelOf } from './words.js';

const OUTCOME_LABELS = { success: 'Success', denied: 'Denied', error: 'Error', rateLimited: 'Rate limited' };
const logFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit',
});

let activitySeq = 0;

export async function loadActivity() {
  const form = $('#activity-filters');
  const params = new URLSearchParams({ limit: '100' });
  const category = form.elements.category.value;
  const outcome = form.elements.outcome.value;
  const token = form.elements.token.value;
  const q = form.elements.q.value.trim();
  if (category) params.set('category', category);
  if (outcome) params.set('outcome', outcome);
  if (token) params.set('token', token);
  if (q) params.set('q', q);
  const filtered = Boolean(category || outcome || token || q);
  const seq = ++activitySeq;
  try {
    const data = await getJson(`/api/activity?${params}`);
    if (seq !== activitySeq) return;
    setError('activity', '');
    renderActivity(Array.isArray(data?.rows) ? data.rows : [], filtered);
  } catch (e) {
    if (seq !== activitySeq) return;
    setError('activity', `Could not load the activity log: ${e.message}`);
  }
}

function logTime(value) {
  const t = toTime(value);
  const sameDay = new Date(t).toDateString() === new Date(appNow()).toDateString();
  return timeEl(t, sameDay ? timeFormat.format(t) : logFormat.format(t));
}

function renderActivity(rows, filtered) {
  const dash = () => h('span', { class: 'muted' }, '—');
  const body = rows.map((r) => {
    const details = [
      typeof r.duration_ms === 'number' ? `${numberFormat.format(r.duration_ms)} ms` : null,
      typeof r.rows === 'number' ? `${numberFormat.format(r.rows)} ${r.rows === 1 ? 'row' : 'rows'}` : null,
    ].filter(Boolean).join(' · ');
    return h(
      'tr',
      { 'data-seq': r.seq, 'data-outcome': r.outcome ?? '', 'data-category': r.category ?? '', 'data-undo': r.undo },
      h('td', { class: 'cell-time' }, validTime(r.time) ? logTime(r.time) : dash()),
      h(
        'td',
        {},
        h('span', { class: 'cell-title' }, r.client_name ? visibleNodes(r.client_name) : dash()),
        r.token_name ? h('span', { class: 'cell-sub' }, h('span', { class: 'visually-hidden' }, 'token '), visibleNodes(r.token_name)) : null,
      ),
      h(
        'td',
        {},
        h('code', { class: 'cell-title' }, visibleNodes(r.action)),
        h('span', { class: 'cell-sub' }, r.category ?? ''),
      ),
      h('td', {}, r.connection_id ? h('code', {}, visibleNodes(r.connection_id)) : dash()),
      h('td', {}, h('span', { class: `badge badge-${r.outcome}` }, labelOf(OUTCOME_LABELS, r.outcome))),
      h(
        'td',
        { class: 'cell-details' },
        details ? h('span', { class: 'cell-title' }, details) : null,
        r.error ? h('span', { class: 'cell-error' }, visibleNodes(r.error)) : null,
        !details && !r.error && !r.undo ? dash() : null,
        undoControl(r),
      ),
    );
  });
  $('[data-list="activity"]').replaceChildren(...body);
  const empty = $('[data-empty="activity"]');
  empty.textContent = filtered ? 'No activity matches these filters.' : 'No activity yet.';
  setEmpty('activity', rows.length === 0);
  $('[data-activity-summary]').textContent =
    rows.length === 0 ? '' : rows.length >= 100 ? 'The 100 most recent entries, newest first.' : `${rows.length} ${rows.length === 1 ? 'entry' : 'entries'}, newest first.`;
}

/** Keeps the token filter's choices to the tokens Sluice knows, leaving the one chosen as it is. */
export function syncTokenFilter() {
  reconcile(
    $('#activity-filters').elements.token,
    [{ id: '', label: 'All' }, ...state.tokens.map((t) => ({ id: t.id, label: `${visibleText(t.name ?? t.id)} (${t.prefix ?? ''}…)` }))],
    (choice) => choice.id,
    (choice) => h('option', { value: choice.id }),
    (option, choice) => {
      option.textContent = choice.label;
    },
  );
}

/** The activity screen, filtered to one token's rows, brought into view. */
export function showTokenActivity(tokenId) {
  const form = $('#activity-filters');
  form.elements.token.value = tokenId;
  loadActivity();
  $('#activity').scrollIntoView();
  form.elements.token.focus();
}

export function wireActivityFilters() {
  const form = $('#activity-filters');
  let timer = null;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(timer);
    loadActivity();
  });
  form.elements.category.addEventListener('change', loadActivity);
  form.elements.outcome.addEventListener('change', loadActivity);
  form.elements.token.addEventListener('change', loadActivity);
  form.elements.q.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(loadActivity, 250);
  });
}
