import type { AnyStateMachine } from 'xstate';
import { runtimeMachines } from '../runtime/machines.js';

export type StateGraph = { type?: 'final'; on: Record<string, string[]>; after: Record<string, string[]> };
export type MachineGraph = { id: string; initial: string; states: Record<string, StateGraph> };

type Node = {
  key: string;
  type: string;
  states: Record<string, Node>;
  transitions: Map<string, Array<{ target?: Node[] }>>;
  after: Array<{ delay: string | number; eventType: string; target?: Node[] }>;
  initial?: { target: Node[] };
};

/** The statechart of one machine, top-level states only (Sluice's machines are flat), for the inspector page. */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const root = machine.root as unknown as Node;
  const delays = (machine.implementations.delays ?? {}) as Record<string, unknown>;
  const targets = (list: Node[] | undefined) => (list ?? []).map((node) => node.key);
  const states: Record<string, StateGraph> = {};
  for (const [name, node] of Object.entries(root.states)) {
    const delayed = new Set(node.after.map((after) => after.eventType));
    const on: Record<string, string[]> = {};
    for (const [event, transitions] of node.transitions) {
      if (!delayed.has(event)) on[event] = transitions.flatMap((t) => targets(t.target));
    }
    const after: Record<string, string[]> = {};
    for (const { delay, target } of node.after) {
      const resolved = typeof delay === 'string' ? delays[delay] : delay;
      after[String(typeof resolved === 'number' ? resolved : delay)] = targets(target);
    }
    states[name] = { ...(node.type === 'final' ? { type: 'final' as const } : {}), on, after };
  }
  return { id: machine.id, initial: targets(root.initial?.target)[0] ?? '', states };
}

export function machineGraphs(): Record<string, MachineGraph> {
  return Object.fromEntries(runtimeMachines.map((machine) => [machine.id, machineGraph(machine)]));
}
