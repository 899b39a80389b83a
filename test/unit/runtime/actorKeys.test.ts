import { describe, expect, it } from 'vitest';
import { inflightRequestId, subscriptionId } from '../../../machines/supervisor.js';
import { ActorKeys } from '../../../src/runtime/actorKeys.js';

describe('ActorKeys', () => {
  it('reuses the keys of reaped actors, so ids stay as few as the most actors alive at once', () => {
    const keys = new ActorKeys(inflightRequestId);
    const first = [keys.take(), keys.take(), keys.take()];
    expect(first).toEqual(['0', '1', '2']);
    keys.reaped(inflightRequestId('1'));
    keys.reaped(subscriptionId('2'));
    expect(keys.take()).toBe('1');
    expect(keys.take()).toBe('3');
    for (let i = 0; i < 1_000; i++) keys.reaped(inflightRequestId(keys.take()));
    expect(keys.take()).toBe('4');
  });
});
