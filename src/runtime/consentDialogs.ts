import { randomUUID } from 'node:crypto';
import type { AnyActorRef } from 'xstate';
import type { ConsentAnswer, ConsentInput } from '../../machines/consent.js';
export type { EffectEstimate, EffectPreview, UndoOutlook } from '../../machines/consent.js';
import { childOf, childrenOfKind, consentId, type Supervisor } from '../../machines/supervisor.js';
import type { AppClock } from '../core/clock.js';

/** A confirmation dialog as the console and `sluice approvals` show it. */
export type ConsentDialog = Omit<ConsentInput, 'settle' | 'principalId' | 'createdAt'> & {
  kind: 'statement';
  waitingSeconds: number;
};

export type DialogQuestion = Omit<ConsentInput, 'id' | 'createdAt' | 'settle'>;

/** Confirmation dialogs for blocked writes, each a `consent` child of the supervisor. */
export class ConsentDialogs {
  readonly #supervisor: Supervisor;
  readonly #clock: AppClock;

  constructor(supervisor: Supervisor, clock: AppClock) {
    this.#supervisor = supervisor;
    this.#clock = clock;
  }

  #child(id: string): AnyActorRef | undefined {
    const child = childOf(this.#supervisor, consentId(id));
    return child?.getSnapshot().value === 'asking' ? child : undefined;
  }

  /** Shows the dialog and waits for the user; the dialog is abandoned if `signal` ends the request first. */
  ask(question: DialogQuestion, signal: AbortSignal): Promise<ConsentAnswer> {
    const id = randomUUID().slice(0, 8);
    return new Promise((resolve) => {
      const onAbort = () => this.#child(id)?.send({ type: 'abandon' });
      const settle = (answer: ConsentAnswer) => {
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      this.#supervisor.send({ type: 'consent.ask', input: { ...question, id, createdAt: this.#clock.now(), settle } });
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  list(): ConsentDialog[] {
    return childrenOfKind(this.#supervisor, 'consent')
      .filter((child) => child.getSnapshot().value === 'asking')
      .map((child) => {
        const { settle: _settle, principalId: _principal, createdAt, ...shown } = child.getSnapshot().context as ConsentInput;
        return { ...shown, kind: 'statement' as const, waitingSeconds: Math.floor((this.#clock.now() - createdAt) / 1000) };
      });
  }

  /** The dialog's Approve or Deny; false when no dialog with that id is waiting. */
  answer(id: string, answer: 'approve' | 'deny'): boolean {
    const child = this.#child(id);
    child?.send({ type: answer });
    return child !== undefined;
  }
}
