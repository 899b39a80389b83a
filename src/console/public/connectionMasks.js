// 5. Connections: private columns (issue 30) — each connection's rules that mask, hash or hide columns
// from AI clients, and the tokens exempt from them; the same `connections.mask` command as
// `sluice connections mask`.

import { post } from './api.js';
import { announce, setError } from './feedback.js';
import { reconcile } from './reconcile.js';
import { scheduleRefresh } from './refresh.js';
import { $, h } from './shared/dom.js';
import { visibleText } from './core/visibleText.js';
import { state } from './state.js';

const ACTION_LABELS = { mask: 'masked', hash: 'hashed', hide: 'hidden' };

/** Keeps a select's options in step with `items` ([value, label]), its choice kept while it still exists. */
function fillSelect(select, items) {
  const chosen = select.value;
  reconcile(select, items, ([value]) => value, ([value]) => h('option', { value }), (option, [, label]) => (option.textContent = label));
  if (items.some(([value]) => value === chosen)) select.value = chosen;
}

const chosenConnection = (form) => state.connections.find((c) => c.id === form.elements.connection.value);

export function renderMasks() {
  const form = $('#mask-form');
  form.hidden = state.connections.length === 0;
  fillSelect(form.elements.connection, state.connections.map((c) => [c.id, visibleText(c.name || c.id)]));
  fillSelect(form.elements.token, state.tokens.map((t) => [t.id, `${visibleText(t.name)} (${t.id})`]));
  const policy = chosenConnection(form)?.columnPolicy ?? { rules: [], exemptTokens: [] };
  reconcile($('[data-list="mask-rules"]', form), policy.rules, (r) => r.pattern.toLowerCase(), (rule) => ruleItem(form, rule), (li, rule) => {
    $('[data-rule]', li).textContent = `${rule.pattern} — ${ACTION_LABELS[rule.action] ?? rule.action}`;
  });
  $('[data-empty="mask-rules"]', form).hidden = policy.rules.length > 0;
  const names = new Map(state.tokens.map((t) => [t.id, t.name]));
  reconcile($('[data-list="mask-exempt"]', form), policy.exemptTokens, (id) => id, (id) => exemptItem(form, id), (li, id) => {
    $('[data-token]', li).textContent = names.has(id) ? `${visibleText(names.get(id))} (${id})` : id;
  });
}

function ruleItem(form, rule) {
  return h(
    'li',
    {},
    h('span', { 'data-rule': '' }),
    ' ',
    h('button', { type: 'button', class: 'button button-small', onclick: () => change(form, { remove: rule.pattern }, `Rule for ${rule.pattern} removed.`) }, `Remove ${rule.pattern}`),
  );
}

function exemptItem(form, id) {
  return h(
    'li',
    {},
    h('span', { 'data-token': '' }),
    ' ',
    h('button', { type: 'button', class: 'button button-small', onclick: () => change(form, { unexempt: id }, `Token ${id} is under the policy again.`) }, 'Unexempt'),
  );
}

/** Sends one change of the chosen connection's policy; the next state shows it. */
async function change(form, body, done) {
  const connection = chosenConnection(form);
  if (!connection) return;
  setError('masks', '');
  try {
    const policy = await post('connections.mask', { id: connection.id, change: body });
    connection.columnPolicy = policy;
    announce(done);
    renderMasks();
    return true;
  } catch (e) {
    setError('masks', `Could not change the private columns of “${visibleText(connection.name || connection.id)}”: ${e.message}`);
    return false;
  } finally {
    scheduleRefresh(0);
  }
}

export function wireMaskForm() {
  const form = $('#mask-form');
  form.elements.connection.addEventListener('change', () => renderMasks());
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const pattern = form.elements.pattern.value.trim();
    if (!pattern) {
      setError('masks', 'Enter a column name or a pattern such as *email*.');
      form.elements.pattern.focus();
      return;
    }
    const action = form.elements.action.value;
    if (await change(form, { rule: { pattern, action } }, `Columns matching ${pattern} are ${ACTION_LABELS[action]}.`)) form.elements.pattern.value = '';
  });
  $('[data-action="exempt"]', form).addEventListener('click', () => {
    const token = form.elements.token.value;
    if (token) void change(form, { exempt: token }, `Token ${token} reads the values as they are.`);
  });
}
