import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { ChangeSignal } from '../../../src/console/changeSignal.js';
import { APPLICATION } from '../../../src/core/contract.js';

describe('ChangeSignal', () => {
  it('reaches each listener once per burst, when the burst has settled on the application clock', () => {
    // A fresh SimulatedClock numbers its first timer 0: the pending timer must still count as pending.
    const clock = new SimulatedClock();
    const signal = new ChangeSignal(clock);
    const heard: string[] = [];
    signal.subscribe((reason) => heard.push(reason));
    signal.notify('sheet opened');
    signal.notify('actor step');
    signal.notify('audit');
    clock.increment(APPLICATION.changeSettleMs - 1);
    expect(heard).toEqual([]);
    clock.increment(1);
    expect(heard).toEqual(['audit']);
    signal.notify('next');
    clock.increment(APPLICATION.changeSettleMs);
    expect(heard).toEqual(['audit', 'next']);
  });

  it('sets no timer while nobody listens, and stops reaching a listener that unsubscribed', () => {
    const clock = new SimulatedClock();
    const signal = new ChangeSignal(clock);
    signal.notify('unheard');
    const heard: string[] = [];
    const unsubscribe = signal.subscribe((reason) => heard.push(reason));
    clock.increment(APPLICATION.changeSettleMs);
    expect(heard).toEqual([]);
    unsubscribe();
    signal.notify('after');
    clock.increment(APPLICATION.changeSettleMs);
    expect(heard).toEqual([]);
  });
});
