// 1. The MCP server switch.

import { post } from './api.js';
import { announce, setError } from './feedback.js';
import { scheduleRefresh } from './refresh.js';
import { $ } from './shared/dom.js';
import { state } from './state.js';

let serverBusy = false;

export function renderServer() {
  const { enabled, mcpUrl } = state.server;
  const on = Boolean(enabled);
  const root = $('[data-server]');
  root.dataset.enabled = String(on);
  $('[data-server-pill]', root).textContent = on ? 'On' : 'Off';
  $('[data-server-text]', root).textContent = on
    ? 'The MCP server is on: paired clients can use your connections.'
    : 'The MCP server is off.';
  $('[data-server-url]', root).textContent = mcpUrl || '—';
  $('[data-server-off-note]', root).hidden = on;
  const toggle = $('[data-server-toggle]', root);
  toggle.textContent = on ? 'Turn off' : 'Turn on';
  toggle.disabled = serverBusy;
}

async function toggleServer() {
  if (!state || serverBusy) return;
  const enabled = !state.server.enabled;
  serverBusy = true;
  renderServer();
  setError('server', '');
  try {
    const result = await post('server.setEnabled', { enabled });
    state.server.enabled = typeof result?.enabled === 'boolean' ? result.enabled : enabled;
    announce(state.server.enabled ? 'The MCP server is on.' : 'The MCP server is off. Clients get error -33006.');
  } catch (error) {
    setError('server', error.message);
  } finally {
    serverBusy = false;
    renderServer();
    $('[data-server-toggle]').focus();
    scheduleRefresh();
  }
}

export function wireServerSwitch() {
  $('[data-server-toggle]').addEventListener('click', toggleServer);
}
