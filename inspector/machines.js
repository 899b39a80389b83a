// The machine definitions from GET /api/inspector/machines, the order the machines are shown in, and
// their statechart layouts.

import { layoutMachine } from './statechartLayout.js';

/** @type {Map<string, {id: string, initial: string, states: Record<string, any>}>} */
const machines = new Map();
/** Machine ids in display order: the definitions' order, then any other machine seen in the feed. */
export const machineOrder = [];
/** Layouts of the statecharts, by machine id. */
const layouts = new Map();
/** Whether the definitions have arrived: until then a card without a statechart is only waiting for it. */
export let definitionsLoaded = false;

/** Takes the definitions: first, in the server's order; machines only seen in the feed after them. */
export function addDefinitions(defs) {
  for (const [key, def] of Object.entries(defs)) {
    if (!def || typeof def !== 'object') continue;
    const id = typeof def.id === 'string' ? def.id : key;
    machines.set(id, { ...def, id, states: def.states ?? {} });
  }
  const seen = machineOrder.splice(0);
  machineOrder.push(...machines.keys(), ...seen.filter((m) => !machines.has(m)));
}

export function markDefinitionsLoaded() {
  definitionsLoaded = true;
}

export function layoutFor(machine) {
  if (!machines.has(machine)) return null;
  if (!layouts.has(machine)) layouts.set(machine, layoutMachine(machines.get(machine)));
  return layouts.get(machine);
}
