// The Sluice console page: plain ES2022 module, no build step, no dependencies, no external requests.
// It renders GET /api/state, re-fetches it on every `changed` event of /api/events, and sends the
// user's answers as POST /api/<command> (docs/console.md). Rendering is keyed by id and updates
// nodes in place, so what the user is typing or choosing survives live updates.

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

const LEVEL_LABELS = { readOnly: 'Read only', readWrite: 'Read and write', fullAccess: 'Full access' };
const LEVEL_HINTS = {
  readOnly: 'read tools and resources',
  readWrite: 'also statements that write, each with your consent',
  fullAccess: 'also destructive operations',
};
const ACCESS_LABELS = { blocked: 'Blocked', readOnly: 'Read only', readWrite: 'Read and write' };
const POLICY_LABELS = { never: 'Never', askEachTime: 'Ask each time', always: 'Always' };
const ENGINE_LABELS = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MySQL' };
const OUTCOME_LABELS = { success: 'Success', denied: 'Denied', error: 'Error', rateLimited: 'Rate limited' };
const ENDED = new Set(['approved', 'denied', 'expired']);
const SESSION_ENDED =
  'Your console session has ended (Sluice may have restarted). Run “sluice console” in a terminal for a fresh link.';

const labelOf = (labels, value) => labels[value] ?? String(value ?? '—');
const expiryLabel = (days) => (days === null || days === undefined ? 'Never' : days === 1 ? '1 day' : `${days} days`);
const expiryValue = (days) => (days === null || days === undefined ? 'never' : String(days));
const parseExpiry = (value) => (value === 'never' ? null : Number(value));

// ---------------------------------------------------------------------------------------------
// Small DOM helpers
// ---------------------------------------------------------------------------------------------

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** Creates an element; `text` sets its text, `on<event>` adds a listener, other props are attributes. */
function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

let uidCounter = 0;
const uid = (prefix) => `${prefix}-${++uidCounter}`;

/**
 * Keeps `container`'s children in the order of `items`, one element per key: an existing element is
 * updated in place (so focus, typing and choices inside it survive), a new one is created, and the
 * ones whose key is gone are removed. Elements are only moved when the order really changed.
 */
function reconcile(container, items, keyOf, create, update) {
  const wanted = new Set(items.map(keyOf));
  const byKey = new Map();
  for (const el of [...container.children]) {
    if (wanted.has(el._key) && !byKey.has(el._key)) byKey.set(el._key, el);
    else removeKeepingFocus(el, container);
  }
  let cursor = container.firstElementChild;
  for (const item of items) {
    const key = keyOf(item);
    let el = byKey.get(key);
    if (!el) {
      el = create(item);
      el._key = key;
      byKey.set(key, el);
    }
    update(el, item);
    if (el === cursor) cursor = cursor.nextElementSibling;
    else container.insertBefore(el, cursor);
  }
}

/** Removes an element; when it held the focus, the focus goes to its section's heading. */
function removeKeepingFocus(el, container) {
  const hadFocus = el.contains(document.activeElement);
  el.remove();
  if (hadFocus) focusSectionHeading(container);
}

function focusSectionHeading(inside) {
  const heading = inside.closest('section')?.querySelector('h2');
  if (!heading) return;
  heading.setAttribute('tabindex', '-1');
  heading.focus();
}

function setError(name, message) {
  const el = typeof name === 'string' ? $(`[data-error="${name}"]`) : name;
  if (el) el.textContent = message ?? '';
}

function announce(message) {
  const el = $('[data-announcer]');
  el.textContent = '';
  // A fresh text node after a tick makes screen readers announce repeated messages too.
  setTimeout(() => {
    el.textContent = message;
  }, 50);
}

// ---------------------------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------------------------

/** Application clock minus the browser's clock, measured at each state fetch. */
let clockOffset = 0;
const serverNow = () => Date.now() + clockOffset;

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' });
const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const logFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit',
});
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
const numberFormat = new Intl.NumberFormat();

const toTime = (value) => (typeof value === 'number' ? value : Date.parse(value));
const validTime = (value) => value !== undefined && value !== null && value !== '' && Number.isFinite(toTime(value));

/** A `<time>` element showing `text` with the full local date and time as its tooltip. */
function timeEl(value, text) {
  const t = toTime(value);
  return h('time', { datetime: new Date(t).toISOString(), title: fullFormat.format(t) }, text);
}

function relative(value) {
  const seconds = (toTime(value) - serverNow()) / 1000;
  const abs = Math.abs(seconds);
  if (abs < 45) return relativeFormat.format(0, 'second');
  if (abs < 3600) return relativeFormat.format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return relativeFormat.format(Math.round(seconds / 3600), 'hour');
  return relativeFormat.format(Math.round(seconds / 86400), 'day');
}

/** "4:59" for 299 seconds. */
const mmss = (seconds) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

// ---------------------------------------------------------------------------------------------
// Talking to Sluice
// ---------------------------------------------------------------------------------------------

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function readJson(res) {
  try {
    return await res.json();
  } catch {
    return null;
  }
}

/** fetch(path, init); resolves to the JSON answer, rejects with an HttpError carrying the server's `error`. */
async function requestJson(path, init) {
  let res;
  try {
    res = await fetch(path, { ...init, credentials: 'same-origin' });
  } catch {
    throw new HttpError(0, 'Sluice cannot be reached. Is it still running?');
  }
  const data = await readJson(res);
  if (!res.ok) {
    const message = res.status === 401 ? SESSION_ENDED : data?.error ?? `The request failed (HTTP ${res.status}).`;
    throw new HttpError(res.status, message);
  }
  return data;
}

async function getJson(path) {
  return requestJson(path, { headers: { accept: 'application/json' } });
}

/** POST /api/<command>; resolves to the command's result, rejects with the server's `error`. */
async function post(command, body) {
  return requestJson(`/api/${command}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

let state = null;
let stateSeq = 0;
/** The console answered 401: only a fresh link from `sluice console` helps, so stop reconnecting. */
let sessionEnded = false;

async function loadState() {
  const seq = ++stateSeq;
  try {
    const next = await getJson('/api/state');
    if (seq !== stateSeq) return; // a newer fetch is under way
    if (typeof next.now === 'number') clockOffset = next.now - Date.now();
    state = normalise(next);
    showLoadError(null);
    render();
  } catch (error) {
    if (seq !== stateSeq) return;
    sessionEnded = error.status === 401;
    showLoadError(error.message);
  }
}

function normalise(s) {
  return {
    now: s.now ?? Date.now(),
    server: s.server ?? { enabled: false, mcpUrl: '' },
    sheets: Array.isArray(s.sheets) ? s.sheets : [],
    dialogs: Array.isArray(s.dialogs) ? s.dialogs : [],
    tokens: Array.isArray(s.tokens) ? s.tokens : [],
    connections: Array.isArray(s.connections) ? s.connections : [],
    clients: Array.isArray(s.clients) ? s.clients : [],
  };
}

function showLoadError(message) {
  const el = $('[data-load-error]');
  el.hidden = !message;
  el.textContent = message ? `Could not load the console: ${message}` : '';
}

let refreshTimer = null;
/** Re-fetches state and activity ~100 ms after the last call (events come in bursts). */
function scheduleRefresh(delay = 100) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => {
    refreshTimer = null;
    loadState();
    loadActivity();
  }, delay);
}

function render() {
  $('main').removeAttribute('data-loading');
  renderServer();
  renderSheets();
  renderDialogs();
  renderTokens();
  renderConnections();
  renderClients();
  renderCounts();
}

function setEmpty(name, isEmpty) {
  const empty = $(`[data-empty="${name}"]`);
  if (empty) empty.hidden = !isEmpty;
  const wrap = $(`[data-table-wrap="${name}"]`);
  if (wrap) wrap.hidden = isEmpty;
}

const isOpenSheet = (sheet) => !ENDED.has(sheet.status);

function renderCounts() {
  const counts = { approvals: state.sheets.filter(isOpenSheet).length, dialogs: state.dialogs.length };
  for (const [name, count] of Object.entries(counts)) {
    const el = $(`[data-nav-count="${name}"]`);
    el.hidden = count === 0;
    el.textContent = count === 0 ? '' : String(count);
    el.setAttribute('aria-label', `${count} waiting`);
  }
  const waiting = counts.approvals + counts.dialogs;
  document.title = waiting > 0 ? `(${waiting}) Sluice console` : 'Sluice console';
}

// ---------------------------------------------------------------------------------------------
// 1. MCP server switch
// ---------------------------------------------------------------------------------------------

let serverBusy = false;

function renderServer() {
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

// ---------------------------------------------------------------------------------------------
// Connection checklists (approval sheets and the create-token form)
// ---------------------------------------------------------------------------------------------

/** Fills a checklist with one checkbox per connection, keeping the boxes the user already ticked. */
function syncConnectionList(list, connections, idPrefix) {
  reconcile(
    list,
    connections,
    (c) => c.id,
    (c) => {
      const id = uid(idPrefix);
      return h(
        'div',
        { class: 'check' },
        h('input', { type: 'checkbox', id, value: c.id, 'data-connection-choice': c.id }),
        h('label', { for: id }, h('span', { 'data-connection-name': '' }), ' ', h('span', { class: 'muted id-hint' })),
      );
    },
    (el, c) => {
      $('[data-connection-name]', el).textContent = c.name ?? c.id;
      $('.id-hint', el).textContent = c.name && c.name !== c.id ? `(${c.id})` : '';
    },
  );
  if (connections.length === 0) {
    if (!$('[data-no-connections]', list.parentElement)) {
      list.after(h('p', { class: 'hint', 'data-no-connections': '' }, 'There are no connections yet.'));
    }
  } else {
    $('[data-no-connections]', list.parentElement)?.remove();
  }
}

/** Wires the "All connections" box to reveal the per-connection list. */
function wireConnectionsPicker(picker) {
  const all = $('[data-all-connections]', picker);
  const list = $('[data-connection-list]', picker);
  all.addEventListener('change', () => {
    list.hidden = all.checked;
    if (!all.checked) $('input', list)?.focus();
  });
}

/** `"all"`, the ticked ids, or null when nothing at all is chosen. */
function readConnectionsPicker(picker) {
  if ($('[data-all-connections]', picker).checked) return 'all';
  const ids = $$('[data-connection-list] input:checked', picker).map((input) => input.value);
  return ids.length > 0 ? ids : null;
}

function createConnectionsPicker(idPrefix) {
  const allId = uid(`${idPrefix}-all`);
  return h(
    'fieldset',
    { class: 'connections-picker', 'data-connections-picker': '' },
    h('legend', {}, 'Connections'),
    h(
      'div',
      { class: 'check' },
      h('input', { type: 'checkbox', id: allId, checked: true, 'data-all-connections': '' }),
      h('label', { for: allId }, 'All connections'),
    ),
    h('div', { class: 'check-list', 'data-connection-list': '', hidden: true }),
  );
}

// ---------------------------------------------------------------------------------------------
// 2. Approval sheets
// ---------------------------------------------------------------------------------------------

function renderSheets() {
  const sheets = [...state.sheets.filter(isOpenSheet), ...state.sheets.filter((s) => !isOpenSheet(s))];
  const list = $('[data-list="sheets"]');
  reconcile(list, sheets, (s) => s.id, createSheetCard, updateSheetCard);
  setEmpty('sheets', sheets.length === 0);
}

function sheetExpiresAt(sheet) {
  if (typeof sheet.expiresAt === 'number') return sheet.expiresAt;
  if (typeof sheet.expiresAt === 'string' && validTime(sheet.expiresAt)) return toTime(sheet.expiresAt);
  return (state?.now ?? serverNow()) + (sheet.secondsLeft ?? 0) * 1000;
}

function createSheetCard(sheet) {
  const id = uid('sheet');
  const levels = Array.isArray(sheet.levels) && sheet.levels.length > 0 ? sheet.levels : Object.keys(LEVEL_LABELS);
  const choices = Array.isArray(sheet.expiryChoices) ? sheet.expiryChoices : [null, 1, 7, 30, 90];
  const requested = levels.includes(sheet.requestedLevel) ? sheet.requestedLevel : levels[0];
  const defaultExpiry = choices.includes(sheet.defaultExpiryDays) ? sheet.defaultExpiryDays : choices[0];

  const levelPicker = h(
    'fieldset',
    { class: 'level-picker' },
    h('legend', {}, 'Permission level'),
    levels.map((level) => {
      const radioId = uid(`${id}-level`);
      return h(
        'div',
        { class: 'check check-level' },
        h('input', {
          type: 'radio', id: radioId, name: `${id}-level`, value: level,
          checked: level === requested, 'data-level': level,
        }),
        h(
          'label',
          { for: radioId },
          h('span', { class: 'level-name' }, labelOf(LEVEL_LABELS, level)),
          level === requested ? h('span', { class: 'tag' }, 'requested') : null,
          LEVEL_HINTS[level] ? h('span', { class: 'level-hint' }, LEVEL_HINTS[level]) : null,
        ),
      );
    }),
  );

  const connections = createConnectionsPicker(id);
  wireConnectionsPicker(connections);

  const expiryId = uid(`${id}-expiry`);
  const expirySelect = h(
    'select',
    { id: expiryId, 'data-expiry': '' },
    choices.map((days) => h('option', { value: expiryValue(days) }, expiryLabel(days))),
  );
  expirySelect.value = expiryValue(defaultExpiry);

  const titleId = `${id}-title`;
  const approve = h('button', { type: 'button', class: 'button button-primary', 'data-action': 'approve', 'aria-describedby': titleId }, 'Approve');
  const deny = h('button', { type: 'button', class: 'button button-danger', 'data-action': 'deny', 'aria-describedby': titleId }, 'Deny');

  const card = h(
    'article',
    { class: 'card sheet', 'data-sheet-id': sheet.id, 'aria-labelledby': titleId },
    h(
      'div',
      { class: 'card-head' },
      h('h3', { id: titleId }, h('span', { 'data-client-name': '' }), ' asks to connect'),
      h(
        'p',
        { class: 'countdown' },
        h('span', { class: 'countdown-time', 'data-countdown': '', 'aria-hidden': 'true' }),
        h('span', { class: 'visually-hidden', 'data-countdown-static': '' }),
        h('span', { class: 'visually-hidden', 'aria-live': 'polite', 'data-countdown-announce': '' }),
      ),
    ),
    h('p', { class: 'redirect' }, 'The code will go to ', h('code', { 'data-redirect': '' })),
    h(
      'fieldset',
      // A fieldset only so that one `disabled` turns every picker off; no group of its own.
      { class: 'bare sheet-controls', role: 'none', 'data-controls': '' },
      h(
        'div',
        { class: 'sheet-grid' },
        levelPicker,
        h(
          'div',
          { class: 'sheet-side' },
          connections,
          h('div', { class: 'field' }, h('label', { for: expiryId }, 'Token expires after'), expirySelect),
        ),
      ),
    ),
    h('p', { class: 'outcome', 'data-outcome': '', tabindex: '-1', hidden: true }),
    h('div', { class: 'error', role: 'alert', 'data-error': '' }),
    h('div', { class: 'actions' }, approve, deny),
  );

  card._announced = { minute: false, expired: false };
  approve.addEventListener('click', () => answerSheet(card, 'approve'));
  deny.addEventListener('click', () => answerSheet(card, 'deny'));
  return card;
}

function updateSheetCard(card, sheet) {
  const previous = card._sheet;
  card._sheet = { ...sheet, status: card._localStatus && !ENDED.has(sheet.status) ? card._localStatus : sheet.status };
  card._expiresAt = sheetExpiresAt(sheet);
  $('[data-client-name]', card).textContent = sheet.clientName || 'A client';
  $('[data-redirect]', card).textContent = sheet.redirect ?? '—';
  const picker = $('[data-connections-picker]', card);
  syncConnectionList($('[data-connection-list]', picker), sheet.connections ?? [], 'sheet-conn');
  $('[data-countdown-static]', card).textContent = `This request expires at ${timeFormat.format(card._expiresAt)}.`;
  if (previous && !ENDED.has(previous.status) && sheet.status === 'expired') {
    announceExpiry(card);
  }
  tickSheet(card);
}

function announceExpiry(card) {
  if (card._announced.expired) return;
  card._announced.expired = true;
  const client = card._sheet.clientName || 'the client';
  $('[data-countdown-announce]', card).textContent =
    `The pairing request from ${client} expired: the five minutes have passed.`;
}

const OUTCOME_TEXT = {
  approved: 'Approved. The client has been sent its code.',
  denied: 'Denied. The client has been told.',
  expired: 'The five minutes have passed: this request can no longer be approved. The client can ask again.',
};

/** Updates one sheet card's countdown, outcome and controls; runs every second. */
function tickSheet(card) {
  const sheet = card._sheet;
  const status = sheet.status;
  const remainingMs = card._expiresAt - serverNow();
  const seconds = Math.max(0, Math.ceil(remainingMs / 1000));
  const timedOut = !ENDED.has(status) && seconds <= 0;
  const shownStatus = timedOut ? 'expired' : status;
  const ended = ENDED.has(shownStatus);

  card.dataset.status = shownStatus;
  const countdown = $('[data-countdown]', card);
  if (ended) {
    countdown.textContent = labelOf({ approved: 'Approved', denied: 'Denied', expired: 'Expired' }, shownStatus);
  } else {
    countdown.textContent = `${mmss(seconds)} left`;
  }
  countdown.classList.toggle('countdown-low', !ended && seconds <= 60);

  if (!ended && seconds <= 60 && seconds > 0 && !card._announced.minute) {
    card._announced.minute = true;
    // Only when the minute mark is crossed while the card is on screen, not for cards first seen late.
    if (card._lastSeconds !== undefined && card._lastSeconds > 60) {
      $('[data-countdown-announce]', card).textContent =
        `One minute left to answer the pairing request from ${sheet.clientName || 'a client'}.`;
    }
  }
  if (timedOut && card._lastSeconds !== undefined && card._lastSeconds > 0) announceExpiry(card);
  card._lastSeconds = seconds;

  const outcome = $('[data-outcome]', card);
  outcome.hidden = !ended;
  outcome.textContent = ended ? OUTCOME_TEXT[shownStatus] ?? shownStatus : '';
  outcome.dataset.outcomeStatus = ended ? shownStatus : '';

  const disabled = ended || card._busy === true;
  $('[data-controls]', card).disabled = ended;
  $('[data-action="approve"]', card).disabled = disabled;
  $('[data-action="deny"]', card).disabled = disabled;
}

function tickAllSheets() {
  for (const card of $$('[data-list="sheets"] > [data-sheet-id]')) tickSheet(card);
}

async function answerSheet(card, answer) {
  const sheet = card._sheet;
  const error = $('[data-error]', card);
  setError(error, '');
  let body = { id: sheet.id };
  if (answer === 'approve') {
    const level = $('input[type="radio"]:checked', card)?.value;
    const connections = readConnectionsPicker($('[data-connections-picker]', card));
    if (connections === null) {
      setError(error, 'Choose at least one connection, or tick “All connections”.');
      $('[data-connection-list] input', card)?.focus();
      return;
    }
    body = { id: sheet.id, level, connections, expiresInDays: parseExpiry($('[data-expiry]', card).value) };
  }
  card._busy = true;
  tickSheet(card);
  try {
    const result = await post(answer === 'approve' ? 'approvals.approve' : 'approvals.deny', body);
    if (result && result.ok === false) {
      setError(error, `Could not ${answer}: ${result.reason ?? 'the request is no longer waiting'}.`);
    } else {
      card._localStatus = answer === 'approve' ? 'approved' : 'denied';
      card._sheet = { ...card._sheet, status: card._localStatus };
      announce(answer === 'approve' ? 'Approved.' : 'Denied.');
    }
  } catch (e) {
    setError(error, e.message);
  } finally {
    card._busy = false;
    tickSheet(card);
    if (ENDED.has(card.dataset.status)) $('[data-outcome]', card).focus();
    scheduleRefresh(0);
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Confirmation dialogs for writes
// ---------------------------------------------------------------------------------------------

function renderDialogs() {
  const list = $('[data-list="dialogs"]');
  reconcile(list, state.dialogs, (d) => d.id, createDialogCard, updateDialogCard);
  setEmpty('dialogs', state.dialogs.length === 0);
}

function createDialogCard(dialog) {
  const id = uid('dialog');
  const titleId = `${id}-title`;
  const approve = h('button', { type: 'button', class: 'button button-primary', 'data-action': 'approve', 'aria-describedby': titleId }, 'Approve');
  const deny = h('button', { type: 'button', class: 'button button-danger', 'data-action': 'deny', 'aria-describedby': titleId }, 'Deny');
  const meta = (label, key) => [h('dt', {}, label), h('dd', { [`data-${key}`]: '' })];
  const card = h(
    'article',
    { class: 'card dialog', 'data-dialog-id': dialog.id, 'aria-labelledby': titleId },
    h('h3', { id: titleId }, h('span', { 'data-title-client': '' }), ' wants to run a ', h('span', { 'data-title-kind': '' }), ' statement'),
    h(
      'dl',
      { class: 'meta' },
      meta('Client', 'client'),
      meta('Connection', 'connection'),
      meta('Tool', 'tool'),
      meta('Statement kind', 'statement-kind'),
      meta('Asked at', 'asked-at'),
    ),
    h('p', { class: 'statement-label', id: `${id}-statement` }, 'Full statement'),
    h('pre', { class: 'statement', tabindex: '0', role: 'region', 'aria-labelledby': `${id}-statement`, 'data-statement': '' }),
    h('div', { class: 'error', role: 'alert', 'data-error': '' }),
    h('p', { class: 'outcome', 'data-outcome': '', tabindex: '-1', hidden: true }),
    h('div', { class: 'actions' }, approve, deny),
  );
  approve.addEventListener('click', () => answerDialog(card, 'approve'));
  deny.addEventListener('click', () => answerDialog(card, 'deny'));
  return card;
}

function updateDialogCard(card, dialog) {
  card._dialog = dialog;
  const client = dialog.clientName || 'A client';
  $('[data-title-client]', card).textContent = client;
  $('[data-title-kind]', card).textContent = dialog.statementKind || 'write';
  $('[data-client]', card).textContent = client;
  const connection = $('[data-connection]', card);
  connection.replaceChildren(
    dialog.connectionName || dialog.connectionId || '—',
    dialog.connectionId && dialog.connectionName && dialog.connectionId !== dialog.connectionName
      ? h('span', { class: 'muted' }, ` (${dialog.connectionId})`)
      : '',
  );
  $('[data-tool]', card).replaceChildren(h('code', {}, dialog.tool ?? '—'));
  $('[data-statement-kind]', card).textContent = dialog.statementKind ?? '—';
  const askedAt = (state?.now ?? serverNow()) - (dialog.waitingSeconds ?? 0) * 1000;
  if (card._askedAt === undefined) card._askedAt = askedAt;
  $('[data-asked-at]', card).replaceChildren(timeEl(card._askedAt, timeFormat.format(card._askedAt)));
  const statement = dialog.statement ?? '';
  const pre = $('[data-statement]', card);
  if (pre.textContent !== statement) pre.textContent = statement;
  const lines = statement.split('\n').length;
  $('.statement-label', card).textContent = lines > 1 ? `Full statement (${lines} lines)` : 'Full statement';
}

async function answerDialog(card, answer) {
  const dialog = card._dialog;
  const error = $('[data-error]', card);
  setError(error, '');
  const buttons = $$('button', card);
  for (const b of buttons) b.disabled = true;
  let done = false;
  try {
    const result = await post(answer === 'approve' ? 'approvals.approve' : 'approvals.deny', { id: dialog.id });
    if (result && result.ok === false) {
      setError(error, `Could not ${answer}: ${result.reason ?? 'the statement is no longer waiting'}.`);
    } else {
      done = true;
      const outcome = $('[data-outcome]', card);
      outcome.hidden = false;
      outcome.textContent = answer === 'approve' ? 'Approved: the statement runs now.' : 'Denied: the statement will not run.';
      card.dataset.status = answer === 'approve' ? 'approved' : 'denied';
      outcome.focus();
      announce(answer === 'approve' ? 'Statement approved.' : 'Statement denied.');
    }
  } catch (e) {
    setError(error, e.message);
  } finally {
    if (!done) for (const b of buttons) b.disabled = false;
    scheduleRefresh(0);
  }
}

// ---------------------------------------------------------------------------------------------
// 4. Tokens
// ---------------------------------------------------------------------------------------------

function tokenStatus(token) {
  if (validTime(token.revokedAt)) return 'revoked';
  if (validTime(token.expiresAt) && toTime(token.expiresAt) <= serverNow()) return 'expired';
  return 'active';
}

function renderTokens() {
  syncConnectionList($('#token-form [data-connection-list]'), state.connections, 'token-conn');
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
      h('span', { class: 'cell-title', id: nameId, 'data-cell': 'name' }, token.name ?? token.id),
      h('code', { class: 'prefix', 'data-cell': 'prefix', title: 'The token’s first characters' }, `${token.prefix ?? ''}…`),
    ),
    h('td', { 'data-cell': 'level' }, labelOf(LEVEL_LABELS, token.level)),
    h('td', { class: 'cell-wrap', 'data-cell': 'connections' }, allowlist),
    h(
      'td',
      { 'data-cell': 'last-used' },
      validTime(token.lastUsedAt) ? timeEl(token.lastUsedAt, relative(token.lastUsedAt)) : h('span', { class: 'muted' }, 'Never'),
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
      status === 'active'
        ? h('button', {
          type: 'button', class: 'button button-small button-danger', 'data-action': 'revoke',
          'aria-describedby': nameId, onclick: () => revokeToken(token),
        }, 'Revoke')
        : null,
    ),
  ];
  const focusedAction = hadFocus ? document.activeElement?.dataset?.action : undefined;
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
    `Revoke the token “${token.name}” (${token.prefix}…)?\n\nEvery client using it loses access at once. This cannot be undone.`,
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

function wireTokenForm() {
  const form = $('#token-form');
  wireConnectionsPicker($('[data-connections-picker]', form));
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
    const body = {
      name,
      level: form.elements.level.value,
      connections,
      expiresInDays: parseExpiry(form.elements.expiresInDays.value),
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

  $('[data-copy-token]').addEventListener('click', copySecret);
  $('[data-dismiss-token]').addEventListener('click', () => {
    const box = $('[data-token-secret]');
    box.hidden = true;
    $('[data-token-plaintext]', box).textContent = '';
    $('[data-copy-status]', box).textContent = '';
    form.elements.name.focus();
  });
}

function showSecret(name, plaintext) {
  const box = $('[data-token-secret]');
  $('[data-token-secret-name]', box).textContent = `“${name}”`;
  $('[data-token-plaintext]', box).textContent = plaintext;
  $('[data-copy-status]', box).textContent = '';
  box.hidden = false;
  box.focus();
  box.scrollIntoView({ block: 'nearest' });
}

async function copySecret() {
  const box = $('[data-token-secret]');
  const code = $('[data-token-plaintext]', box);
  const status = $('[data-copy-status]', box);
  const text = code.textContent;
  try {
    if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
    await navigator.clipboard.writeText(text);
    status.textContent = 'Copied to the clipboard.';
  } catch {
    // Fallback: select the token so the user can copy it with the keyboard.
    const range = document.createRange();
    range.selectNodeContents(code);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    let copied = false;
    try {
      copied = document.execCommand('copy');
    } catch {
      // execCommand is unsupported here: the selection stays for the user to copy.
    }
    status.textContent = copied
      ? 'Copied to the clipboard.'
      : 'The token is selected: press Ctrl+C (⌘C on a Mac) to copy it.';
  }
}

// ---------------------------------------------------------------------------------------------
// 5. Connections
// ---------------------------------------------------------------------------------------------

function renderConnections() {
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
      h('span', { class: 'cell-where' }, h('span', { class: 'visually-hidden' }, ', where: '), h('code', { 'data-cell': 'where' })),
    ),
    h('td', {}, h('label', { for: externalId, class: 'visually-hidden', 'data-label': 'external' }), external),
    h('td', {}, h('label', { for: aiId, class: 'visually-hidden', 'data-label': 'ai' }), ai),
    h(
      'td',
      { class: 'cell-actions' },
      h('button', {
        type: 'button', class: 'button button-small button-danger', 'data-action': 'remove',
        'aria-describedby': nameId, onclick: () => removeConnection(row),
      }, 'Remove'),
      h('span', { class: 'saved', 'data-saved': '', 'aria-hidden': 'true' }),
    ),
  );
  return row;
}

function updateConnectionRow(row, connection) {
  row._connection = connection;
  const name = connection.name || connection.id;
  $('[data-cell="name"]', row).textContent = name;
  $('[data-cell="id"]', row).textContent = connection.id;
  $('[data-cell="engine"]', row).textContent = labelOf(ENGINE_LABELS, connection.engine);
  $('[data-cell="where"]', row).textContent = connection.path ?? connection.url ?? '—';
  $('[data-label="external"]', row).textContent = `External access for ${name}`;
  $('[data-label="ai"]', row).textContent = `AI policy for ${name}`;
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

async function removeConnection(row) {
  const connection = row._connection;
  const name = connection.name || connection.id;
  setError('connections', '');
  const ok = window.confirm(
    `Remove the connection “${name}”?\n\nClients lose access to it at once. The database itself is not touched.`,
  );
  if (!ok) return;
  try {
    await post('connections.remove', { id: connection.id });
    announce(`Connection ${name} removed.`);
  } catch (e) {
    setError('connections', `Could not remove “${name}”: ${e.message}`);
  } finally {
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
};

function wireConnectionForm() {
  const form = $('#connection-form');
  const where = form.elements.where;
  const applyKind = () => {
    const text = WHERE_TEXT[form.elements.kind.value] ?? WHERE_TEXT.path;
    $('[data-where-label]', form).textContent = text.label;
    $('[data-where-hint]', form).textContent = text.hint;
    where.placeholder = text.placeholder;
  };
  for (const radio of $$('input[name="kind"]', form)) radio.addEventListener('change', applyKind);
  applyKind();

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    setError('connection-add', '');
    const kind = form.elements.kind.value;
    const name = form.elements.name.value.trim();
    const target = where.value.trim();
    if (!name) {
      setError('connection-add', 'Give the connection a name.');
      form.elements.name.focus();
      return;
    }
    if (!target) {
      setError('connection-add', kind === 'url' ? 'Enter the server URL.' : 'Enter the path of the SQLite file.');
      where.focus();
      return;
    }
    const body = {
      name,
      [kind === 'url' ? 'url' : 'path']: target,
      externalAccess: form.elements.externalAccess.value,
      aiPolicy: form.elements.aiPolicy.value,
    };
    const submit = $('button[type="submit"]', form);
    submit.disabled = true;
    try {
      const result = await post('connections.add', body);
      form.elements.name.value = '';
      where.value = '';
      announce(`Connection ${result?.name ?? name} added.`);
      form.elements.name.focus();
    } catch (e) {
      setError('connection-add', e.message);
    } finally {
      submit.disabled = false;
      scheduleRefresh(0);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// 6. Connected clients
// ---------------------------------------------------------------------------------------------

function renderClients() {
  const rows = state.clients.map((c) =>
    h(
      'tr',
      { 'data-client': c.client ?? '' },
      h('th', { scope: 'row', class: 'cell-name' }, c.client || 'Unknown client'),
      h('td', {}, c.token ?? '—'),
      h('td', { class: 'cell-nowrap' }, validTime(c.lastSeen) ? timeEl(c.lastSeen, relative(c.lastSeen)) : '—'),
      h('td', { class: 'num' }, typeof c.requests === 'number' ? numberFormat.format(c.requests) : '—'),
    ),
  );
  $('[data-list="clients"]').replaceChildren(...rows);
  setEmpty('clients', rows.length === 0);
}

// ---------------------------------------------------------------------------------------------
// 7. Activity log
// ---------------------------------------------------------------------------------------------

let activitySeq = 0;

async function loadActivity() {
  const form = $('#activity-filters');
  const params = new URLSearchParams({ limit: '100' });
  const category = form.elements.category.value;
  const outcome = form.elements.outcome.value;
  const q = form.elements.q.value.trim();
  if (category) params.set('category', category);
  if (outcome) params.set('outcome', outcome);
  if (q) params.set('q', q);
  const filtered = Boolean(category || outcome || q);
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
  const sameDay = new Date(t).toDateString() === new Date(serverNow()).toDateString();
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
      { 'data-outcome': r.outcome ?? '', 'data-category': r.category ?? '' },
      h('td', { class: 'cell-time' }, validTime(r.time) ? logTime(r.time) : dash()),
      h(
        'td',
        {},
        h('span', { class: 'cell-title' }, r.client_name || dash()),
        r.token_name ? h('span', { class: 'cell-sub' }, h('span', { class: 'visually-hidden' }, 'token '), r.token_name) : null,
      ),
      h(
        'td',
        {},
        h('code', { class: 'cell-title' }, r.action ?? ''),
        h('span', { class: 'cell-sub' }, r.category ?? ''),
      ),
      h('td', {}, r.connection_id ? h('code', {}, r.connection_id) : dash()),
      h('td', {}, h('span', { class: `badge badge-${r.outcome}` }, labelOf(OUTCOME_LABELS, r.outcome))),
      h(
        'td',
        { class: 'cell-details' },
        details ? h('span', { class: 'cell-title' }, details) : null,
        r.error ? h('span', { class: 'cell-error' }, r.error) : null,
        !details && !r.error ? dash() : null,
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

function wireActivityFilters() {
  const form = $('#activity-filters');
  let timer = null;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(timer);
    loadActivity();
  });
  form.elements.category.addEventListener('change', loadActivity);
  form.elements.outcome.addEventListener('change', loadActivity);
  form.elements.q.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(loadActivity, 250);
  });
}

// ---------------------------------------------------------------------------------------------
// Live updates
// ---------------------------------------------------------------------------------------------

function setLive(kind, text) {
  const el = $('[data-live-status]');
  el.dataset.state = kind;
  $('.live-text', el).textContent = text;
}

let events = null;
let hadError = false;

function connectEvents() {
  events?.close();
  events = new EventSource('/api/events');
  events.addEventListener('open', () => {
    setLive('live', 'Live');
    // Catch up on anything that changed before the stream was open (or while it was down).
    scheduleRefresh(hadError ? 0 : 100);
    hadError = false;
  });
  events.addEventListener('changed', () => scheduleRefresh());
  events.addEventListener('error', () => {
    hadError = true;
    if (events.readyState === EventSource.CLOSED) {
      // The server refused the stream (e.g. the session ended): find out why, and try again later
      // unless the session is over.
      setLive('offline', 'Disconnected');
      loadState().then(() => {
        if (sessionEnded) setLive('offline', 'Session ended');
        else setTimeout(connectEvents, 5000);
      });
    } else {
      setLive('offline', 'Reconnecting…');
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Start
// ---------------------------------------------------------------------------------------------

function start() {
  $('[data-server-toggle]').addEventListener('click', toggleServer);
  wireTokenForm();
  wireConnectionForm();
  wireActivityFilters();
  // Headings focused programmatically drop their tabindex again once the user moves on.
  document.addEventListener('focusout', (event) => {
    if (event.target instanceof window.HTMLElement && event.target.matches('h2[tabindex="-1"]')) {
      event.target.removeAttribute('tabindex');
    }
  });
  loadState();
  loadActivity();
  connectEvents();
  setInterval(tickAllSheets, 1000);
  setInterval(() => {
    if (!state) return;
    renderTokens();
    renderClients();
  }, 30_000);
  if (location.hash.length > 1) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
}

start();
