// What an approved pairing sheet granted, on its card: the sheet's controls set to it and a line that
// says it, so that a console opened later shows what was granted, not what was asked for.

import { visibleText } from './core/visibleText.js';
import { $, $$ } from './shared/dom.js';
import { showToolsGrant } from './toolsPicker.js';
import { expiryLabel, expiryValue, labelOf, LEVEL_LABELS } from './words.js';

function connectionsText(granted, known) {
  if (granted.connections === 'all') return 'all connections';
  const names = granted.connections.map((id) => known.find((c) => c.id === id)?.name ?? id);
  return visibleText(names.join(', ')) || 'no connection';
}

/** "Granted: Read only, on Demo bookshop, only the tools order_status, expires after 7 days." */
export function grantText(granted, known) {
  const expiry = granted.expiresInDays === null ? 'never expires' : `expires after ${expiryLabel(granted.expiresInDays)}`;
  const tools = granted.tools ? `, only the tools ${visibleText(granted.tools.join(', '))}` : '';
  return `Granted: ${labelOf(LEVEL_LABELS, granted.level)}, on ${connectionsText(granted, known)}${tools}, ${expiry}.`;
}

/** Sets the card's level, connections, tools and expiry to what was granted. */
export function showGrant(card, granted) {
  for (const radio of $$('input[data-level]', card)) radio.checked = radio.value === granted.level;
  const picker = $('[data-connections-picker]', card);
  const all = granted.connections === 'all';
  $('[data-all-connections]', picker).checked = all;
  $('[data-connection-list]', picker).hidden = all;
  for (const box of $$('[data-connection-list] input', picker)) box.checked = !all && granted.connections.includes(box.value);
  showToolsGrant($('[data-tools-picker]', card), granted.tools);
  $('[data-expiry]', card).value = expiryValue(granted.expiresInDays);
}
