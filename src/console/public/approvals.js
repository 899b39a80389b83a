// 2. Approval sheets: a client asks to pair, and the user picks its permission level, connections,
// expiry and (when custom tools are defined) the tools it is limited to, within five minutes.

import { post } from './api.js';
import { createConnectionsPicker, readConnectionsPicker, syncConnectionList, wireConnectionsPicker } from './connectionsPicker.js';
import { announce, setEmpty, setError } from './feedback.js';
import { grantText, showGrant } from './grantedSheet.js';
import { createToolsPicker, readToolsPicker, syncToolList } from './toolsPicker.js';
import { mmss, timeFormat, toTime, validTime } from './format.js';
import { reconcile } from './reconcile.js';
import { scheduleRefresh } from './refresh.js';
import { appNow } from './shared/clock.js';
import { $, $$, h, uid } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';
import { visibleText } from './core/visibleText.js';
import { state } from './state.js';
import { expiryLabel, expiryValue, labelOf, LEVEL_LABELS, parseExpiry } from './words.js';

const LEVEL_HINTS = {
  readOnly: 'read tools and resources',
  readWrite: 'also statements that write, each with your consent',
  fullAccess: 'also destructive operations',
};
const ENDED = new Set(['approved', 'denied', 'expired']);

export const isOpenSheet = (sheet) => !ENDED.has(sheet.status);

export function renderSheets() {
  const sheets = [...state.sheets.filter(isOpenSheet), ...state.sheets.filter((s) => !isOpenSheet(s))];
  const list = $('[data-list="sheets"]');
  reconcile(list, sheets, (s) => s.id, createSheetCard, updateSheetCard);
  setEmpty('sheets', sheets.length === 0);
}

function sheetExpiresAt(sheet) {
  if (typeof sheet.expiresAt === 'number') return sheet.expiresAt;
  if (typeof sheet.expiresAt === 'string' && validTime(sheet.expiresAt)) return toTime(sheet.expiresAt);
  return (state?.now ?? appNow()) + (sheet.secondsLeft ?? 0) * 1000;
}

/** The radio buttons of the permission levels a sheet offers, the requested one checked and tagged. */
function createLevelPicker(id, levels, requested) {
  return h(
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
}

/** The token's expiry: a labelled select of `choices`, `chosen` selected. */
function createExpiryField(id, choices, chosen) {
  const expiryId = uid(`${id}-expiry`);
  const expirySelect = h(
    'select',
    { id: expiryId, 'data-expiry': '' },
    choices.map((days) => h('option', { value: expiryValue(days) }, expiryLabel(days))),
  );
  expirySelect.value = expiryValue(chosen);
  return h('div', { class: 'field' }, h('label', { for: expiryId }, 'Token expires after'), expirySelect);
}

function createSheetCard(sheet) {
  const id = uid('sheet');
  const levels = Array.isArray(sheet.levels) && sheet.levels.length > 0 ? sheet.levels : Object.keys(LEVEL_LABELS);
  const choices = Array.isArray(sheet.expiryChoices) ? sheet.expiryChoices : [null, 1, 7, 30, 90];
  const requested = levels.includes(sheet.requestedLevel) ? sheet.requestedLevel : levels[0];
  const defaultExpiry = choices.includes(sheet.defaultExpiryDays) ? sheet.defaultExpiryDays : choices[0];

  const levelPicker = createLevelPicker(id, levels, requested);
  const connections = createConnectionsPicker(id);
  wireConnectionsPicker(connections);

  const expiryField = createExpiryField(id, choices, defaultExpiry);

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
          createToolsPicker(id),
          expiryField,
        ),
      ),
    ),
    h('p', { class: 'outcome', 'data-outcome': '', tabindex: '-1', hidden: true }),
    h('p', { class: 'granted', 'data-granted': '', hidden: true }),
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
  $('[data-client-name]', card).replaceChildren(...visibleNodes(sheet.clientName || 'A client'));
  $('[data-redirect]', card).replaceChildren(...visibleNodes(sheet.redirect ?? '—'));
  const picker = $('[data-connections-picker]', card);
  syncConnectionList($('[data-connection-list]', picker), sheet.connections ?? [], 'sheet-conn');
  syncToolList($('[data-tools-picker]', card), sheet.tools ?? [], 'sheet-tool');
  const granted = $('[data-granted]', card);
  granted.hidden = !sheet.granted;
  granted.textContent = sheet.granted ? grantText(sheet.granted, sheet.connections ?? []) : '';
  if (sheet.granted) showGrant(card, sheet.granted);
  $('[data-countdown-static]', card).textContent = `This request expires at ${timeFormat.format(card._expiresAt)}.`;
  if (previous && !ENDED.has(previous.status) && sheet.status === 'expired') {
    announceExpiry(card);
  }
  tickSheet(card);
}

function announceExpiry(card) {
  if (card._announced.expired) return;
  card._announced.expired = true;
  const client = visibleText(card._sheet.clientName || 'the client');
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
  const remainingMs = card._expiresAt - appNow();
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
        `One minute left to answer the pairing request from ${visibleText(sheet.clientName || 'a client')}.`;
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

export function tickAllSheets() {
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
    const tools = readToolsPicker($('[data-tools-picker]', card));
    if (tools === null) {
      setError(error, 'Choose at least one tool, or tick “Every tool its level allows”.');
      $('[data-tool-list] input', card)?.focus();
      return;
    }
    body = { id: sheet.id, level, connections, expiresInDays: parseExpiry($('[data-expiry]', card).value), ...(tools ? { tools } : {}) };
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
