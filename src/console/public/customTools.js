// 5b. Custom tools: the tools tools.json defines, each definition it refused with its line and reason,
// and the form that defines one (written into the file after the same checks), or removes one.

import { post } from './api.js';
import { announce, setEmpty, setError } from './feedback.js';
import { reconcile } from './reconcile.js';
import { scheduleRefresh } from './refresh.js';
import { $, h } from './shared/dom.js';
import { visibleNodes } from './shared/visible.js';
import { visibleText } from './core/visibleText.js';
import { state } from './state.js';

export function renderCustomTools() {
  const { file, names, refusals } = state.customTools;
  $('[data-custom-tools-file]').replaceChildren(...visibleNodes(file || 'tools.json'));
  reconcile($('[data-list="custom-tools"]'), names, (name) => name, toolItem, () => {});
  setEmpty('custom-tools', names.length === 0);
  $('[data-custom-tool-refusals]').hidden = refusals.length === 0;
  reconcile(
    $('[data-list="custom-tool-refusals"]'),
    refusals,
    (r) => `${r.line}:${r.reason}`,
    () => h('li', { 'data-refusal': '' }),
    (item, r) => item.replaceChildren(h('span', { 'data-refusal-place': '' }, 'line ', String(r.line)), ': ', ...visibleNodes(r.reason)),
  );
  syncConnectionChoices($('[data-custom-tool-connection]'), state.connections);
}

function toolItem(name) {
  return h(
    'li',
    { 'data-custom-tool': name },
    h('code', {}, visibleNodes(name)),
    ' ',
    h('button', { type: 'button', class: 'button button-small button-danger', 'data-action': 'remove-tool', onclick: () => removeTool(name) }, 'Remove'),
  );
}

/** The form's connection choices, keeping the one chosen. */
function syncConnectionChoices(select, connections) {
  const chosen = select.value;
  select.replaceChildren(...connections.map((c) => h('option', { value: c.id }, visibleText(c.name ?? c.id))));
  if (connections.some((c) => c.id === chosen)) select.value = chosen;
}

async function removeTool(name) {
  if (!window.confirm(`Remove the tool “${visibleText(name)}” from the file?\n\nTokens limited to it can no longer call it.`)) return;
  try {
    await post('customTools.remove', { name });
    announce(`Tool ${name} removed.`);
  } catch (e) {
    setError('custom-tool-define', `Could not remove “${name}”: ${e.message}`);
  } finally {
    scheduleRefresh(0);
  }
}

/** The form's definition as tools.json holds one; a parameters field that is not JSON is reported. */
function definitionOf(form) {
  const field = (name) => form.elements[name].value.trim();
  const tool = { name: field('name'), description: field('description'), connection: field('connection'), statement: field('statement'), kind: field('kind') };
  if (field('maxRows') !== '') tool.max_rows = Number(field('maxRows'));
  if (field('parameters') !== '') {
    try {
      tool.parameters = JSON.parse(field('parameters'));
    } catch (e) {
      throw new Error(`Parameters must be a JSON list: ${e.message}`, { cause: e });
    }
  }
  return tool;
}

export function wireCustomToolForm() {
  const form = $('#custom-tool-form');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    setError('custom-tool-define', '');
    const submit = $('button[type="submit"]', form);
    submit.disabled = true;
    try {
      const tool = definitionOf(form);
      await post('customTools.define', { tool });
      announce(`Tool ${tool.name} saved.`);
      form.reset();
    } catch (e) {
      setError('custom-tool-define', e.message);
    } finally {
      submit.disabled = false;
      scheduleRefresh(0);
    }
  });
}
