// 5. Connections: removing one, after the person confirms it in a dialog that names it.

import { post } from './api.js';
import { announce, setError } from './feedback.js';
import { scheduleRefresh } from './refresh.js';
import { $ } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';

/** The connection the dialog asks about. */
let asking;

/** Asks in the page's own dialog; only its Remove button removes (Cancel and Escape keep it). */
export function confirmRemoval(connection) {
  const dialog = $('#connection-remove-dialog');
  asking = connection;
  $('[data-remove-name]', dialog).replaceChildren(...visibleNodes(connection.name || connection.id));
  dialog.returnValue = '';
  dialog.showModal();
}

async function remove(connection) {
  const name = connection.name || connection.id;
  setError('connections', '');
  try {
    await post('connections.remove', { id: connection.id });
    announce(`Connection ${name} removed.`);
  } catch (e) {
    setError('connections', `Could not remove “${name}”: ${e.message}`);
  } finally {
    scheduleRefresh(0);
  }
}

export function wireRemovalDialog() {
  const dialog = $('#connection-remove-dialog');
  dialog.addEventListener('close', () => {
    const connection = asking;
    asking = undefined;
    if (connection && dialog.returnValue === 'remove') void remove(connection);
  });
}
