const SETTLE_MS = 50;

/**
 * "Something the console shows may have changed", said by whoever changed it. A burst (one request is
 * several actor steps) reaches listeners once, after it settles.
 */
export class ChangeSignal {
  readonly #listeners = new Set<(reason: string) => void>();
  #pending: NodeJS.Timeout | undefined;
  #reason = '';

  notify(reason: string): void {
    this.#reason = reason;
    if (this.#pending || this.#listeners.size === 0) return;
    this.#pending = setTimeout(() => {
      this.#pending = undefined;
      for (const listener of this.#listeners) listener(this.#reason);
    }, SETTLE_MS);
    this.#pending.unref();
  }

  subscribe(listener: (reason: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
