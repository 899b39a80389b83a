/** Waiting for something a test cannot await directly: polling until it holds, with a deadline. */

/** Polls `probe` every 10 ms until it returns something other than `undefined`; fails after `timeoutMs`. */
export async function eventually<T>(probe: () => T | undefined, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Retries `attempt` every 50 ms until it stops throwing; after `withinMs` its last error is the test's. */
export async function untilPasses<T>(attempt: () => Promise<T>, withinMs = 3_000): Promise<T> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
