// 5. Connections: changing one's name and where it points (its file, or its server URL), checked as
// `sluice connections update` checks it: the changed connection must open before it is saved. A server
// connection's SSH tunnel and a DuckDB connection's files directory are changed here too.

import { post } from './api.js';
import { fillSsh, sameSsh, showExtras, sshOfForm } from './connectionExtras.js';
import { announce, setError } from './feedback.js';
import { scheduleRefresh } from './refresh.js';
import { visibleText } from './core/visibleText.js';
import { $ } from './shared/dom.js';

const WHERE_TEXT = {
  path: { label: 'File path', hint: 'The path of the database file on this computer.' },
  url: { label: 'Server URL', hint: 'The saved password shows as ***: leave it so to keep it.' },
};

/** The connection the form is changing, and the button that opened it (focus goes back there). */
let editing;

const form = () => $('#connection-edit-form');

/** Opens the form on `connection`, filled with its name and where it points. */
export function editConnection(connection, opener) {
  const el = form();
  editing = { connection, opener, kind: connection.path !== undefined ? 'path' : 'url' };
  setError('connection-edit', '');
  const text = WHERE_TEXT[editing.kind];
  $('[data-edit-title]', el).textContent = `Change “${visibleText(connection.name || connection.id)}”`;
  $('[data-edit-where-label]', el).textContent = text.label;
  $('[data-edit-where-hint]', el).textContent = text.hint;
  el.elements.name.value = connection.name ?? '';
  el.elements.where.value = connection[editing.kind] ?? '';
  showExtras(el, connection.engine === 'duckdb' ? 'duckdb' : editing.kind);
  fillSsh(el, connection.ssh);
  el.elements.filesDir.value = connection.filesDir ?? '';
  el.hidden = false;
  el.elements.name.focus();
}

function close() {
  form().hidden = true;
  if (editing?.opener?.isConnected) editing.opener.focus();
  editing = undefined;
}

/** Only what the person changed is sent; a failure is shown under the form, which keeps what they typed. */
async function save(event) {
  event.preventDefault();
  if (!editing) return;
  const el = form();
  const { connection, kind } = editing;
  setError('connection-edit', '');
  const name = el.elements.name.value.trim();
  const where = el.elements.where.value.trim();
  if (!name) {
    setError('connection-edit', 'Give the connection a name.');
    el.elements.name.focus();
    return;
  }
  if (!where) {
    setError('connection-edit', kind === 'url' ? 'Enter the server URL.' : 'Enter the path of the database file.');
    el.elements.where.focus();
    return;
  }
  const tunnel = kind === 'url' ? sshOfForm(el, connection.ssh) : { ssh: null };
  if (tunnel.problem) {
    setError('connection-edit', tunnel.problem);
    tunnel.field.focus();
    return;
  }
  // Empty removes the files directory; null is how the update says so.
  const filesDir = connection.engine === 'duckdb' ? el.elements.filesDir.value.trim() || null : null;
  const changes = {
    ...(name !== connection.name ? { name } : {}),
    ...(where !== connection[kind] ? { [kind]: where } : {}),
    ...(kind === 'url' && !sameSsh(tunnel.ssh, connection.ssh) ? { ssh: tunnel.ssh } : {}),
    ...(connection.engine === 'duckdb' && filesDir !== (connection.filesDir ?? null) ? { filesDir } : {}),
  };
  if (Object.keys(changes).length === 0) return close();
  const submit = $('button[type="submit"]', el);
  submit.disabled = true;
  try {
    await post('connections.update', { id: connection.id, ...changes, check: true });
    close();
    announce(`Connection ${name} saved.`);
  } catch (e) {
    setError('connection-edit', `Not saved: ${e.message}`);
  } finally {
    submit.disabled = false;
    scheduleRefresh(0);
  }
}

export function wireConnectionEditForm() {
  const el = form();
  el.addEventListener('submit', save);
  $('[data-action="cancel-edit"]', el).addEventListener('click', close);
  el.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') close();
  });
}
