export type Change = { type: 'schema'; connectionId: string } | { type: 'connections' };

/** Changes subscribers hear about: a connection's schema, or the set of saved connections. */
export class ChangeFeed {
  readonly #listeners = new Set<(change: Change) => void>();

  emit(change: Change): void {
    for (const listener of this.#listeners) listener(change);
  }

  /** Returns the function that stops listening. */
  subscribe(listener: (change: Change) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
