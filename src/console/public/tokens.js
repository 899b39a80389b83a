// 4. Tokens: the list (with each token's client, use and refusals), its activity, revoking one, and
// the form that creates one.

import { showTokenActivity } from './activity.js';
import { post } from './api.js';
import { readConnectionsPicker, syncConnectionList, wireConnectionsPicker } from './connectionsPicker.js';
import { announce, setEmpty, setError } from './feedback.js';
import { dateFormat, numberFormat, relative, timeEl, toTime, validTime } from './format.js';
import { focusSectionHeading, reconcile } from './reconcile.js';
import { scheduleRefresh } from './refresh.js';
import { appNow } from './shared/clock.js';
import { $, h, uid } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';
import { visibleText } from './core/visibleText.js';
import { state } from './state.js';
import { showSecret, wireTokenSecret } from './tokenSecret.js';
import { createToolsPicker, readToolsPicker, syncToolList } from './toolsPicker.js';
import { labelOf, LEVEL_LABELS, parseExpiry } from './words.js';

function tokenStatus(token) {
  if (validTime(token.revokedAt)) return 'revoked';
  if (validTime(token.expiresAt) && toTime(token.expiresAt) <= appNow()) return 'expired';
  return 'active';
}

export function renderTokens() {
  syncConnectionList($('#token-form [data-connection-list]'), state.connections, 'token-conn');
  syncToolList($('#token-form [data-tools-picker]'), state.customTools.names, 'token-tool');
  const list = $('[data-list="tokens"]');
  reconcile(
    list,
    state.tokens,
    (t) => t.id,
    () => h('tr'),
    (row, token) => {
      const status = tokenStatus(token);
      const signature = JSON.stringify([token, status, validTime(token.lastUsedAt) ? relative(token.lastUsedAt) : '']);
      if (row._signature === signature) return;
      row._signature = signature;
      fillTokenRow(row, token, status);
    },
  );
  setEmpty('tokens', state.tokens.length === 0);
}

/** The token's level and, for a grant of custom tools, those tools (it reaches nothing else: no resources or prompts). */
function levelCell(token) {
  const tools = Array.isArray(token.tools) ? h('span', { class: 'cell-sub', 'data-cell': 'tools' }, 'Only ', ...visibleNodes(token.tools.join(', '))) : null;
  return h('td', { class: 'cell-wrap', 'data-cell': 'level' }, h('span', { class: 'cell-title' }, labelOf(LEVEL_LABELS, token.level)), tools);
}

function fillTokenRow(row, token, status) {
  const hadFocus = row.contains(document.activeElement);
  const nameId = row._nameId ?? (row._nameId = uid('token-name'));
  row.dataset.tokenId = token.id;
  row.dataset.status = status;
  const allowlist = token.connections === 'all' || token.connections === undefined
    ? 'All'
    : Array.isArray(token.connections) ? token.connections.join(', ') || '—' : String(token.connections);
  const cells = [
    h(
      'th',
      { scope: 'row', class: 'cell-name' },
      h('span', { class: 'cell-title', id: nameId, 'data-cell': 'name' }, visibleNodes(token.name ?? token.id)),
      h('code', { class: 'prefix', 'data-cell': 'prefix', title: 'The token’s first characters' }, `${token.prefix ?? ''}…`),
    ),
    levelCell(token),
    h('td', { class: 'cell-wrap', 'data-cell': 'connections' }, visibleNodes(allowlist)),
    h('td', { class: 'cell-wrap', 'data-cell': 'client' }, token.clientName ? visibleNodes(token.clientName) : h('span', { class: 'muted' }, '—')),
    h(
      'td',
      { 'data-cell': 'last-used' },
      validTime(token.lastUsedAt) ? timeEl(token.lastUsedAt, relative(token.lastUsedAt)) : h('span', { class: 'muted' }, 'Never'),
    ),
    h(
      'td',
      { class: 'num', 'data-cell': 'requests' },
      h('span', { class: 'cell-title', 'data-count': 'requests' }, numberFormat.format(token.requests ?? 0)),
      h('span', { class: 'cell-sub', 'data-count': 'refusals' }, `${numberFormat.format(token.refusals ?? 0)} refused`),
    ),
    h(
      'td',
      { class: 'cell-nowrap', 'data-cell': 'expires' },
      validTime(token.expiresAt) ? timeEl(token.expiresAt, dateFormat.format(toTime(token.expiresAt))) : 'Never',
    ),
    h('td', { 'data-cell': 'status' }, h('span', { class: `badge badge-${status}` }, status)),
    h(
      'td',
      { class: 'cell-actions' },
      h('button', {
        type: 'button', class: 'button button-small', 'data-action': 'activity',
        'aria-describedby': nameId, onclick: () => showTokenActivity(token.id),
      }, 'Activity'),
      status === 'active'
        ? h('button', {
          type: 'button', class: 'button button-small button-danger', 'data-action': 'revoke',
          'aria-describedby': nameId, onclick: () => revokeToken(token),
        }, 'Revoke')
        : null,
    ),
  ];
  const focusedAction = hadFocus ? /** @type {HTMLElement | null} */ (document.activeElement)?.dataset?.action : undefined;
  row.replaceChildren(...cells);
  if (hadFocus) {
    const again = focusedAction ? $(`[data-action="${focusedAction}"]`, row) : null;
    if (again) again.focus();
    else focusSectionHeading(row);
  }
}

async function revokeToken(token) {
  setError('tokens', '');
  const ok = window.confirm(
    `Revoke the token “${visibleText(token.name)}” (${token.prefix}…)?\n\nEvery client using it loses access at once. This cannot be undone.`,
  );
  if (!ok) return;
  try {
    await post('tokens.revoke', { id: token.id });
    announce(`Token ${token.name} revoked.`);
  } catch (e) {
    setError('tokens', `Could not revoke “${token.name}”: ${e.message}`);
  } finally {
    scheduleRefresh(0);
  }
}

export function wireTokenForm() {
  const form = $('#token-form');
  wireConnectionsPicker($('[data-connections-picker]', form));
  $('[data-error="token-create"]', form).before(createToolsPicker('token'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    setError('token-create', '');
    const name = form.elements.name.value.trim();
    if (!name) {
      setError('token-create', 'Give the token a name, e.g. the computer or app that will use it.');
      form.elements.name.focus();
      return;
    }
    const connections = readConnectionsPicker($('[data-connections-picker]', form));
    if (connections === null) {
      setError('token-create', 'Choose at least one connection, or tick “All connections”.');
      return;
    }
    const tools = readToolsPicker($('[data-tools-picker]', form));
    if (tools === null) {
      setError('token-create', 'Choose at least one tool, or tick “Every tool its level allows”.');
      return;
    }
    const body = {
      name,
      level: form.elements.level.value,
      connections,
      expiresInDays: parseExpiry(form.elements.expiresInDays.value),
      ...(tools ? { tools } : {}),
    };
    const submit = $('button[type="submit"]', form);
    submit.disabled = true;
    try {
      const result = await post('tokens.create', body);
      showSecret(name, result?.plaintext ?? '');
      form.elements.name.value = '';
    } catch (e) {
      setError('token-create', e.message);
    } finally {
      submit.disabled = false;
      scheduleRefresh(0);
    }
  });

  wireTokenSecret(form);
}
