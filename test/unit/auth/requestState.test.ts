import { describe, expect, it } from 'vitest';
import { RequestStateSigner } from '../../../src/auth/requestState.js';
import { REQUESTS } from '../../../src/core/contract.js';

const binding = (n: number) => ({ principalId: 'tok', method: 'tools/call', params: { name: 'execute_query', arguments: { n } } });

describe('RequestStateSigner: a state is spent by its first answer', () => {
  it('spends once; a second spend or verify is -32602', async () => {
    const signer = new RequestStateSigner(() => 1_000_000);
    const state = await signer.sign(binding(1));
    await signer.spend(state, binding(1));
    await expect(signer.spend(state, binding(1))).rejects.toMatchObject({ code: -32602 });
    await expect(signer.verify(state, binding(1))).rejects.toMatchObject({ code: -32602 });
  });

  it('two answers racing: exactly one passes', async () => {
    const signer = new RequestStateSigner(() => 1_000_000);
    const state = await signer.sign(binding(2));
    const outcomes = await Promise.allSettled([signer.spend(state, binding(2)), signer.spend(state, binding(2))]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('remembers at most maxSpent unexpired states, forgetting the expired ones first', async () => {
    let now = 1_000_000;
    const signer = new RequestStateSigner(() => now, undefined, 2);
    for (const n of [1, 2]) await signer.spend(await signer.sign(binding(n)), binding(n));
    const third = await signer.sign(binding(3));
    await expect(signer.spend(third, binding(3))).rejects.toMatchObject({ code: -32602 });
    now += REQUESTS.requestStateTtlMs;
    const fourth = await signer.sign(binding(4));
    await signer.spend(fourth, binding(4));
  });
});
