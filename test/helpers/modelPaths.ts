import { afterAll, describe, it } from 'vitest';
import type { AnyStateMachine, EventFromLogic } from 'xstate';
import { createTestModel } from 'xstate/graph';

type Path = { description: string; steps: { event: unknown }[] };

/** The shortest paths of a test model, and the simple paths that are not already among them. */
export function pathsOf<P extends Path>(model: { getShortestPaths(): P[]; getSimplePaths(): P[] }) {
  const key = (path: P) => JSON.stringify(path.steps.map((s) => s.event));
  const shortest = model.getShortestPaths();
  const simple = model.getSimplePaths();
  const shortestKeys = new Set(shortest.map(key));
  return { shortest, simple, extraSimple: simple.filter((p) => !shortestKeys.has(key(p))) };
}

/**
 * The paths of a timer-free model through only the events each state can take: a guarded-off event
 * must not be run against the real system (a WAIT it ignores would still move the real clock).
 */
export function reachablePaths<T extends AnyStateMachine>(machine: T, events?: EventFromLogic<T>[]) {
  return pathsOf(createTestModel(machine, { ...(events ? { events } : {}), filterEvents: (state, event) => (state as { can(event: unknown): boolean }).can(event) }));
}

/**
 * One test per path: every shortest path, then every remaining simple path. After the file's tests it
 * prints how many paths `name`'s model has and how many ran against the app.
 */
export function describePaths<P extends Path>(
  name: string,
  paths: { shortest: P[]; simple: P[]; extraSimple: P[] },
  run: (path: P) => Promise<void>,
): void {
  let executed = 0;
  const started = performance.now();
  const counted = async (path: P) => {
    await run(path);
    executed++;
  };
  afterAll(() => {
    console.log(
      `${name} model: ${paths.shortest.length} shortest paths, ${paths.simple.length} simple paths ` +
        `(${paths.extraSimple.length} not already among the shortest); ${executed} executed against the app ` +
        `in ${Math.round(performance.now() - started)} ms`,
    );
  });
  describe('shortest paths', () => {
    for (const [i, path] of paths.shortest.entries()) it(`#${i + 1} ${path.description}`, () => counted(path));
  });
  describe.skipIf(paths.extraSimple.length === 0)('simple paths not among the shortest', () => {
    for (const [i, path] of paths.extraSimple.entries()) it(`#${i + 1} ${path.description}`, () => counted(path));
  });
}
