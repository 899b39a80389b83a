/** The requests being worked on, each with its caller once known, so they can be ended from outside. */
export class RunningRequests {
  readonly #callers = new Map<AbortController, string | undefined>();

  get size(): number {
    return this.#callers.size;
  }

  add(controller: AbortController): void {
    this.#callers.set(controller, undefined);
  }

  setCaller(controller: AbortController, principalId: string): void {
    this.#callers.set(controller, principalId);
  }

  delete(controller: AbortController): void {
    this.#callers.delete(controller);
  }

  /** Ends every running request (the server is stopping). */
  abortAll(reason: unknown): void {
    for (const controller of this.#callers.keys()) controller.abort(reason);
  }

  /** Ends the running requests of one caller (its token was revoked). */
  abortCaller(principalId: string, reason: unknown): void {
    for (const [controller, caller] of this.#callers) if (caller === principalId) controller.abort(reason);
  }
}
