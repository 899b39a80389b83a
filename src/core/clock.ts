export const DAY_MS = 86_400_000;

/** The one clock of the whole system: timers of every actor, and every "now" Sluice reads. */
export type AppClock = {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
  now(): number;
};

export const systemClock: AppClock = {
  // A timer never keeps the process alive: the servers do, while they run.
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
  now: () => Date.now(),
};

/** Runs `fn` every `ms` on `clock`, until the function returned is called. */
export function every(clock: AppClock, ms: number, fn: () => void): () => void {
  let timer: unknown;
  const tick = () => {
    timer = clock.setTimeout(tick, ms);
    fn();
  };
  timer = clock.setTimeout(tick, ms);
  return () => clock.clearTimeout(timer);
}
