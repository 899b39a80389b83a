import { type AppClock, every } from '../core/clock.js';
import { APPLICATION } from '../core/contract.js';
import type { ConsentDialogs } from '../runtime/consentDialogs.js';

/** The call's progress as sent so far, and the way to send more. */
export type CallProgress = {
  /** The last progress sent on the call's stream; 0 before any. */
  reported(): number;
  report(progress: number, total: number, message: string): void;
};

/**
 * Waiting takes at most this share of the progress still to come, so that the handler's next step is
 * still an advance (execute_query waits between its 0 and its 0.3).
 */
const WAITING_SHARE = 0.25;

/**
 * `dialogs`, telling the client while a dialog waits for the user: a progress notification at once and
 * then every `APPLICATION.approvalProgressMs` until the dialog is answered or abandoned. The k-th one
 * reports `from + (1 − from) · share · k / (k + 1)`: always increasing, never reaching the next step.
 */
export function reportingWaits(dialogs: Pick<ConsentDialogs, 'ask'>, clock: AppClock, progress: CallProgress): Pick<ConsentDialogs, 'ask'> {
  return {
    async ask(question, signal) {
      const from = progress.reported();
      const askedAt = clock.now();
      let ticks = 0;
      const tick = () => {
        ticks += 1;
        const seconds = Math.floor((clock.now() - askedAt) / 1000);
        progress.report(from + (1 - from) * WAITING_SHARE * (ticks / (ticks + 1)), 1, `Waiting for approval in Sluice (${seconds} s)`);
      };
      tick();
      const stop = every(clock, APPLICATION.approvalProgressMs, tick);
      try {
        return await dialogs.ask(question, signal);
      } finally {
        stop();
      }
    },
  };
}
