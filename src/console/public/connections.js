// 5. Connections: the list with each one's settings and actions, and the form that adds one.

import { post } from './api.js';
import { editConnection, wireConnectionEditForm } from './connectionEdit.js';
import { confirmRemoval, wireRemovalDialog } from './connectionRemoval.js';
import { fillSsh, mountExtras, showExtras, sshHopText, sshOfForm } from './connectionExtras.js';
import { testConnection } from './connectionTest.js';
import { announce, setEmpty, setError } from './feedback.js';
import { reconcile } from './reconcile.js';
import { scheduleRefresh } from './refresh.js';
import { $, $$, h, uid } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';
import { visibleText } from './core/visibleText.js';
import { state } from './state.js';
import { labelOf } from './words.js';

const ACCESS_LABELS = { blocked: 'Blocked', readOnly: 'Read only', readWrite: 'Read and write' };
const POLICY_LABELS = { never: 'Never', askEachTime: 'Ask each time', always: 'Always' };
const ENGINE_LABELS = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MySQL', duckdb: 'DuckDB' };

export function renderConnections() {
  const list = $('[data-list="connections"]');
  reconcile(list, state.connections, (c) => c.id, createConnectionRow, updateConnectionRow);
  setEmpty('connections', state.connections.length === 0);
}

function settingSelect(id, labels, onChange) {
  const select = h('select', { id }, Object.entries(labels).map(([value, label]) => h('option', { value }, label)));
  select.addEventListener('change', () => onChange(select));
  return select;
}

function createConnectionRow(connection) {
  const id = uid('conn');
  const row = h('tr', { 'data-connection-id': connection.id });
  const externalId = `${id}-external`;
  const aiId = `${id}-ai`;
  const external = settingSelect(externalId, ACCESS_LABELS, (select) => saveSetting(row, 'externalAccess', select));
  external.dataset.setting = 'externalAccess';
  const ai = settingSelect(aiId, POLICY_LABELS, (select) => saveSetting(row, 'aiPolicy', select));
  ai.dataset.setting = 'aiPolicy';
  const nameId = `${id}-name`;
  row.append(
    h(
      'th',
      { scope: 'row', class: 'cell-name cell-connection' },
      h('span', { class: 'cell-title', id: nameId, 'data-cell': 'name' }),
      h(
        'span',
        { class: 'cell-sub' },
        h('span', { class: 'visually-hidden' }, 'ID '),
        h('code', { 'data-cell': 'id' }),
        h('span', { 'aria-hidden': 'true' }, ' · '),
        h('span', { class: 'visually-hidden' }, ', engine '),
        h('span', { 'data-cell': 'engine' }),
      ),
      h(
        'span',
        { class: 'cell-where' },
        h('span', { class: 'visually-hidden' }, ', where: '),
        h('code', { 'data-cell': 'where' }),
        h('span', { 'data-cell': 'via' }),
      ),
      h('span', { class: 'cell-test', role: 'status', 'data-test-result': '' }),
    ),
    h('td', {}, h('label', { for: externalId, class: 'visually-hidden', 'data-label': 'external' }), external),
    h('td', {}, h('label', { for: aiId, class: 'visually-hidden', 'data-label': 'ai' }), ai),
    h(
      'td',
      { class: 'cell-actions' },
      h('button', {
        type: 'button', class: 'button button-small', 'data-action': 'test',
        'aria-describedby': nameId, onclick: (event) => testConnection(row, event.currentTarget),
      }, 'Test'),
      h('button', {
        type: 'button', class: 'button button-small', 'data-action': 'edit',
        'aria-describedby': nameId, onclick: (event) => editConnection(row._connection, event.currentTarget),
      }, 'Edit'),
      h('button', {
        type: 'button', class: 'button button-small button-danger', 'data-action': 'remove',
        'aria-describedby': nameId, onclick: () => confirmRemoval(row._connection),
      }, 'Remove'),
      h('span', { class: 'saved', 'data-saved': '', 'aria-hidden': 'true' }),
    ),
  );
  return row;
}

function updateConnectionRow(row, connection) {
  row._connection = connection;
  const name = connection.name || connection.id;
  $('[data-cell="name"]', row).replaceChildren(...visibleNodes(name));
  $('[data-cell="id"]', row).replaceChildren(...visibleNodes(connection.id));
  $('[data-cell="engine"]', row).textContent = labelOf(ENGINE_LABELS, connection.engine);
  $('[data-cell="where"]', row).replaceChildren(...visibleNodes(connection.path ?? connection.url ?? '—'));
  $('[data-cell="via"]', row).replaceChildren(...(connection.ssh ? [' via SSH ', ...visibleNodes(sshHopText(connection.ssh))] : []));
  $('[data-label="external"]', row).textContent = `External access for ${visibleText(name)}`;
  $('[data-label="ai"]', row).textContent = `AI policy for ${visibleText(name)}`;
  for (const select of $$('select', row)) {
    if (select._busy) continue;
    const value = connection[select.dataset.setting];
    if (value !== undefined && select.value !== value) select.value = value;
  }
}

async function saveSetting(row, setting, select) {
  const connection = row._connection;
  const name = connection.name || connection.id;
  setError('connections', '');
  select._busy = true;
  try {
    await post('connections.update', { id: connection.id, [setting]: select.value });
    connection[setting] = select.value;
    const saved = $('[data-saved]', row);
    saved.textContent = 'Saved';
    clearTimeout(saved._timer);
    saved._timer = setTimeout(() => (saved.textContent = ''), 2000);
    const labels = setting === 'aiPolicy' ? POLICY_LABELS : ACCESS_LABELS;
    announce(`${name}: ${setting === 'aiPolicy' ? 'AI policy' : 'external access'} set to ${labelOf(labels, select.value)}.`);
  } catch (e) {
    select.value = connection[setting];
    setError('connections', `Could not change “${name}”: ${e.message}`);
  } finally {
    select._busy = false;
    scheduleRefresh(0);
  }
}

const WHERE_TEXT = {
  path: {
    label: 'File path',
    placeholder: '/path/to/database.sqlite',
    hint: 'The path of the SQLite database file on this computer.',
  },
  url: {
    label: 'Server URL',
    placeholder: 'postgres://user:password@localhost:5432/shop',
    hint: 'A postgres://… or mysql://… URL. The password is saved, and shown here as ***.',
  },
  duckdb: {
    label: 'File path',
    placeholder: '/path/to/database.duckdb',
    hint: 'The path of the DuckDB file on this computer, or :memory:. It reads CSV and Parquet files only under its files directory, if one is given below.',
  },
};

export function wireConnectionForm() {
  mountExtras();
  wireConnectionEditForm();
  wireRemovalDialog();
  const form = $('#connection-form');
  const where = form.elements.where;
  const applyKind = () => {
    const text = WHERE_TEXT[form.elements.kind.value] ?? WHERE_TEXT.path;
    $('[data-where-label]', form).textContent = text.label;
    $('[data-where-hint]', form).textContent = text.hint;
    where.placeholder = text.placeholder;
    showExtras(form, form.elements.kind.value);
  };
  for (const radio of $$('input[name="kind"]', form)) radio.addEventListener('change', applyKind);
  applyKind();

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void addConnection(form);
  });
}

/**
 * The `connections.add` command of the form's fields, or undefined once the first missing or wrong
 * field is named and focused.
 */
function newConnectionBody(form) {
  const where = form.elements.where;
  const kind = form.elements.kind.value;
  const name = form.elements.name.value.trim();
  const target = where.value.trim();
  if (!name) {
    setError('connection-add', 'Give the connection a name.');
    form.elements.name.focus();
    return undefined;
  }
  if (!target) {
    setError('connection-add', kind === 'url' ? 'Enter the server URL.' : `Enter the path of the ${kind === 'duckdb' ? 'DuckDB' : 'SQLite'} file.`);
    where.focus();
    return undefined;
  }
  const tunnel = kind === 'url' ? sshOfForm(form) : { ssh: null };
  if (tunnel.problem) {
    setError('connection-add', tunnel.problem);
    tunnel.field.focus();
    return undefined;
  }
  const filesDir = kind === 'duckdb' ? form.elements.filesDir.value.trim() : '';
  return {
    name,
    [kind === 'url' ? 'url' : 'path']: target,
    ...(kind === 'duckdb' ? { engine: 'duckdb' } : {}),
    ...(tunnel.ssh ? { ssh: tunnel.ssh } : {}),
    ...(filesDir ? { filesDir } : {}),
    externalAccess: form.elements.externalAccess.value,
    aiPolicy: form.elements.aiPolicy.value,
    // Saved only once it opens and answers, as `sluice connections add` does.
    check: true,
  };
}

/** Adds the connection the form describes; on success clears the form for the next one. */
async function addConnection(form) {
  setError('connection-add', '');
  const body = newConnectionBody(form);
  if (body === undefined) return;
  const submit = $('button[type="submit"]', form);
  submit.disabled = true;
  try {
    const result = await post('connections.add', body);
    form.elements.name.value = '';
    form.elements.where.value = '';
    fillSsh(form, undefined);
    form.elements.filesDir.value = '';
    announce(`Connection ${result?.name ?? body.name} added.`);
    form.elements.name.focus();
  } catch (e) {
    setError('connection-add', e.message);
  } finally {
    submit.disabled = false;
    scheduleRefresh(0);
  }
}
