// 5. Connections: the optional parts of the add and edit forms — a server connection's SSH tunnel
// (the `ssh` block `sluice connections add --ssh …` saves) and a DuckDB connection's files directory.
// A key's passphrase is never asked for here: `sluice connections update --ssh-passphrase-stdin` sets it.

import { $, $$ } from './shared/dom.js';

/**
 * Puts the SSH fieldset and files directory of index.html's `#connection-extras` template in place of
 * each form's `[data-connection-extras]` placeholder, every id (and the label and hint naming it)
 * prefixed with the placeholder's value: `conn-ssh-host` in the add form, `conn-edit-ssh-host` in the edit one.
 */
export function mountExtras() {
  const template = $('#connection-extras');
  for (const slot of $$('[data-connection-extras]')) {
    const prefix = slot.dataset.connectionExtras;
    const extras = template.content.cloneNode(true);
    for (const el of $$('[id]', extras)) el.id = `${prefix}-${el.id}`;
    for (const el of $$('[for]', extras)) el.htmlFor = `${prefix}-${el.htmlFor}`;
    for (const el of $$('[aria-describedby]', extras)) el.setAttribute('aria-describedby', `${prefix}-${el.getAttribute('aria-describedby')}`);
    slot.replaceWith(extras);
  }
}

/** `[user@]host[:port]` (`[v6]:port` too), as `parseSshHop` in src/db/reach/sshOptions.ts reads it. */
function parseHop(text) {
  const match = /^(?:([^@\s]+)@)?(\[[^\]\s]+\]|[^:@\s[\]]+)(?::(\d{1,5}))?$/.exec(text.trim());
  if (!match) return undefined;
  const port = match[3] === undefined ? undefined : Number(match[3]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { ...(match[1] ? { user: match[1] } : {}), host: match[2].replace(/^\[|\]$/g, ''), ...(port ? { port } : {}) };
}

/** `user@host[:port]` of a saved `ssh` block. */
export function sshHopText(ssh) {
  const host = ssh.host.includes(':') ? `[${ssh.host}]` : ssh.host;
  return `${ssh.user ? `${ssh.user}@` : ''}${host}${ssh.port ? `:${ssh.port}` : ''}`;
}

/** Shows the SSH section on server connections and the files directory on DuckDB ones only. */
export function showExtras(form, kind) {
  $('[data-ssh-fields]', form).hidden = kind !== 'url';
  $('[data-files-dir]', form).hidden = kind !== 'duckdb';
}

/** Fills the SSH fields from a saved `ssh` block (or empties them). */
export function fillSsh(form, ssh) {
  const { elements } = form;
  elements.sshHost.value = ssh ? sshHopText(ssh) : '';
  elements.sshKey.value = ssh?.keyFile ?? '';
  elements.sshAgent.checked = ssh?.agent === true;
  elements.sshJump.value = ssh?.jump ?? '';
}

/**
 * The `ssh` block the SSH fields describe: `{ ssh: null }` when they are empty, `{ problem, field }`
 * when the host cannot be read. The key file and jump hosts go as typed: the server checks them.
 * `kept` carries what the form does not show (a known-hosts file) over from the saved block.
 */
export function sshOfForm(form, kept = {}) {
  const { elements } = form;
  const typed = elements.sshHost.value.trim();
  const keyFile = elements.sshKey.value.trim();
  const jump = elements.sshJump.value.trim();
  const agent = elements.sshAgent.checked;
  if (!typed) {
    if (keyFile || jump || agent) return { problem: 'Enter the SSH host (user@host[:port]) for the key file, agent and jump hosts.', field: elements.sshHost };
    return { ssh: null };
  }
  const hop = parseHop(typed);
  if (!hop) return { problem: 'The SSH host must be [user@]host[:port] (the host may be a ~/.ssh/config alias).', field: elements.sshHost };
  return {
    ssh: {
      ...hop,
      ...(keyFile ? { keyFile } : {}),
      ...(agent ? { agent: true } : {}),
      ...(jump ? { jump } : {}),
      ...(kept.knownHostsFile !== undefined ? { knownHostsFile: kept.knownHostsFile } : {}),
    },
  };
}

/** Whether two `ssh` blocks (or null/undefined) say the same. */
export function sameSsh(a, b) {
  const keys = ['host', 'port', 'user', 'keyFile', 'agent', 'jump', 'knownHostsFile'];
  return keys.every((key) => (a ?? {})[key] === (b ?? {})[key]);
}
