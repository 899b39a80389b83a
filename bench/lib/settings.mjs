// How long each phase runs. BENCH_QUICK=1 shortens every phase to check that the benchmark works
// (figures too noisy to keep: it writes no bench/results.md); BENCH_SECONDS sets the load duration.
export const QUICK = process.env.BENCH_QUICK === '1';

export const SETTINGS = QUICK
  ? {
      seconds: Number(process.env.BENCH_SECONDS ?? 2),
      calibrationUs: [20],
      rowTurns: { warmUp: 3, kept: 7 },
      warmUpRequests: 5_000,
      burstRequests: 20_000,
      bigResultRuns: 1,
      cancellations: 10,
      starts: 3,
    }
  : {
      seconds: Number(process.env.BENCH_SECONDS ?? 10),
      calibrationUs: [5, 10, 20, 40, 60],
      rowTurns: { warmUp: 10, kept: 30 },
      warmUpRequests: 20_000,
      burstRequests: 100_000,
      bigResultRuns: 3,
      cancellations: 60,
      starts: 10,
    };

/** SQLite connections added for the footprint: the per-connection cost is (rss with 10 − rss with 1) / 9. */
export const SQLITE_CONNECTIONS = 10;
export const RSS_SAMPLE_MS = 5;
