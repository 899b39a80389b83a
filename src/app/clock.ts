/** The one clock of the whole system: timers of every actor, and every "now" Sluice reads. */
export type AppClock = {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
  now(): number;
};

export const systemClock: AppClock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
  now: () => Date.now(),
};
