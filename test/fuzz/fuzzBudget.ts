import type fc from 'fast-check';

/**
 * The fuzzing budget (issue 9, item 2). Each of the four areas (envelope, headers, deep links, exchange
 * bodies) runs `FUZZ_RUNS` cases: 2,500 by default, so CI runs at least 10,000 in all; `npm run fuzz`
 * raises it with `SLUICE_FUZZ_RUNS`. The pure parser of deep links runs a multiple on top.
 *
 * Replaying a failure: fast-check prints `{ seed, path }` and the shrunk counterexample; run the one
 * property again with `SLUICE_FUZZ_SEED=<seed> SLUICE_FUZZ_PATH=<path> npx vitest run <file> -t '<test name>'`.
 * (The server's state carries over between the cases of a file, so a replay reruns that case on a fresh app.)
 */
function positiveInteger(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, not ${JSON.stringify(text)}`);
  return value;
}

export const FUZZ_RUNS = positiveInteger('SLUICE_FUZZ_RUNS', process.env.SLUICE_FUZZ_RUNS, 2_500);

/** Every request a property makes must be answered within this; a slower answer fails the case as a hang. */
export const REQUEST_TIMEOUT_MS = 5_000;

/** A property's part of the area's budget (at least one case). */
export function share(fraction: number, total = FUZZ_RUNS): number {
  return Math.max(1, Math.round(total * fraction));
}

/** A vitest timeout for a property of `runs` cases over HTTP: a generous allowance per case plus start-up. */
export function timeoutFor(runs: number, perCaseMs = 8): number {
  return 60_000 + runs * perCaseMs;
}

const SEED = process.env.SLUICE_FUZZ_SEED;
const PATH = process.env.SLUICE_FUZZ_PATH;

/** fast-check parameters for a property of `numRuns` cases, replaying `SLUICE_FUZZ_SEED` when given. */
export function fuzzParameters<T>(numRuns: number): fc.Parameters<T> {
  return {
    numRuns,
    ...(SEED !== undefined ? { seed: Number(SEED) } : {}),
    ...(PATH !== undefined ? { path: PATH } : {}),
  };
}

/**
 * Counts the cases each property of a file executed (shrinking steps included) and the time they took,
 * and prints one line per file at the end, for the closing note of the fuzzing run.
 */
export class CaseTally {
  readonly #area: string;
  readonly #counts = new Map<string, number>();
  readonly #notes: string[] = [];
  /** Per property, how often each outcome label came up. */
  readonly #outcomes = new Map<string, Map<string, number>>();
  readonly #started = performance.now();

  constructor(area: string) {
    this.#area = area;
  }

  /** Wraps a property's predicate so that every execution is counted under `name`. */
  count<A extends unknown[], R>(name: string, predicate: (...args: A) => R): (...args: A) => R {
    this.#counts.set(name, this.#counts.get(name) ?? 0);
    return (...args: A) => {
      this.#counts.set(name, (this.#counts.get(name) ?? 0) + 1);
      return predicate(...args);
    };
  }

  /** Adds a free-form observation (for example how the outcomes were distributed) to the closing line. */
  note(text: string): void {
    this.#notes.push(text);
  }

  /** Counts one case of `property` that ended as `label` (shown, most frequent first, in the closing line). */
  outcome(property: string, label: string): void {
    const labels = this.#outcomes.get(property) ?? new Map<string, number>();
    labels.set(label, (labels.get(label) ?? 0) + 1);
    this.#outcomes.set(property, labels);
  }

  outcomesOf(property: string): ReadonlyMap<string, number> {
    return this.#outcomes.get(property) ?? new Map();
  }

  total(): number {
    let sum = 0;
    for (const n of this.#counts.values()) sum += n;
    return sum;
  }

  print(): void {
    for (const [property, labels] of this.#outcomes) {
      this.note(`${property}: ${[...labels].sort((a, b) => b[1] - a[1]).map(([label, n]) => `${label}×${n}`).join(' ')}`);
    }
    const seconds = ((performance.now() - this.#started) / 1000).toFixed(1);
    const parts = [...this.#counts].map(([name, n]) => `${name} ${n}`).join(', ');
    const notes = this.#notes.length > 0 ? `\n  ${this.#notes.join('\n  ')}` : '';
    console.log(
      `[fuzz] ${this.#area}: ${this.total()} cases in ${seconds} s (SLUICE_FUZZ_RUNS=${FUZZ_RUNS}) — ${parts}${notes}`,
    );
  }
}
