/**
 * Resolves on a later turn of the event loop, once the I/O waiting now has been served: long work
 * awaits it between slices, so that no slice holds the loop for long (no request may block it for 50 ms).
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
