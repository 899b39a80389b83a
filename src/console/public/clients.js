// 6. Connected clients.

import { setEmpty } from './feedback.js';
import { numberFormat, relative, timeEl, validTime } from './format.js';
import { $, h } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';
import { state } from './state.js';

export function renderClients() {
  const rows = state.clients.map((c) =>
    h(
      'tr',
      { 'data-client': c.client ?? '' },
      h('th', { scope: 'row', class: 'cell-name' }, c.client ? visibleNodes(c.client) : 'Unknown client'),
      h('td', {}, visibleNodes(c.token ?? '—')),
      h('td', { class: 'cell-nowrap' }, validTime(c.lastSeen) ? timeEl(c.lastSeen, relative(c.lastSeen)) : '—'),
      h('td', { class: 'num' }, typeof c.requests === 'number' ? numberFormat.format(c.requests) : '—'),
    ),
  );
  $('[data-list="clients"]').replaceChildren(...rows);
  setEmpty('clients', rows.length === 0);
}
