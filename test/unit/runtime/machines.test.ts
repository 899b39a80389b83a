import { existsSync } from 'node:fs';
import type { AnyStateMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { pairingCodeMachine } from '../../../machines/pairingCode.js';
import { pairingRequestMachine } from '../../../machines/pairingRequest.js';
import { subscriptionMachine } from '../../../machines/subscription.js';
import { runtimeMachines } from '../../../src/runtime/machines.js';

/** The names of the delays and guards a machine leaves unprovided (their placeholder throws when used). */
function unprovidedOf(machine: AnyStateMachine): string[] {
  const { delays, guards } = machine.implementations;
  const missing: string[] = [];
  for (const [name, impl] of Object.entries({ ...delays, ...guards })) {
    if (typeof impl !== 'function') continue;
    try {
      (impl as (args: unknown) => unknown)({ context: {}, event: {} });
    } catch (error) {
      if (String(error).includes('is not provided')) missing.push(name);
    }
  }
  return missing;
}

describe('the one list of machines (src/runtime/machines.ts)', () => {
  it('holds the supervisor first and each machine once', () => {
    const ids = runtimeMachines.map((machine) => machine.id);
    expect(ids[0]).toBe('supervisor');
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(['consent', 'heldRead', 'inflightRequest', 'legacySession', 'pairingCode', 'pairingRequest', 'subscription', 'supervisor']);
  });

  it('provides every delay and guard the bare statecharts leave to Sluice', () => {
    expect(unprovidedOf(pairingRequestMachine)).toEqual(['approvalWindow']);
    expect(unprovidedOf(pairingCodeMachine).sort()).toEqual(['codeLifetime', 'tombstone', 'verifierMatches']);
    expect(unprovidedOf(subscriptionMachine).sort()).toEqual(['keepAlive', 'poll']);
    for (const machine of runtimeMachines) expect(unprovidedOf(machine), machine.id).toEqual([]);
  });

  it('gives every machine but the supervisor a model-based test', () => {
    for (const { id } of runtimeMachines.filter((machine) => machine.id !== 'supervisor')) {
      expect(existsSync(new URL(`../../model/${id}.model.test.ts`, import.meta.url)), id).toBe(true);
    }
  });
});
