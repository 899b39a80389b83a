// 5. Connections: the Test button, which opens a connection as `sluice connections test` does and
// shows its server version and how long that took, or exactly why it failed.

import { post } from './api.js';
import { $ } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';

export async function testConnection(row, button) {
  const connection = row._connection;
  const out = $('[data-test-result]', row);
  out.removeAttribute('data-test-outcome');
  out.textContent = 'Testing…';
  button.disabled = true;
  try {
    const { version, ms } = await post('connections.test', { id: connection.id });
    out.dataset.testOutcome = 'ok';
    out.replaceChildren(...visibleNodes(version), `, ${ms} ms`);
  } catch (e) {
    out.dataset.testOutcome = 'failed';
    out.replaceChildren('Test failed: ', ...visibleNodes(e.message));
  } finally {
    button.disabled = false;
  }
}
