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
