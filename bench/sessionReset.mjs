// What resetting a pooled session between tokens costs (decisions.md, "Sessions, slots and answers"): the
// read hot path (`SELECT 1`, one statement after another, as a token's calls arrive) on PostgreSQL and
// MySQL, A/B in one process, on the same pool (so the same server sessions). A: sessions reset when
// handed to another token, as Sluice runs them. B: never reset, which is how they ran before. B runs twice
// per round, and the gap between its two runs (A/A) is the noise that A's gap to B is read against.
// Rounds alternate the order so that every path meets the same machine; each figure is the median of
// every statement's own time, which a busy machine's stalls move least.
// `node bench/sessionReset.mjs` runs this part alone (after `npm run build`).
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../dist/src/core/clock.js';
import { parseServerUrl } from '../dist/src/db/connections/connectionUrl.js';
import { MysqlSessions } from '../dist/src/db/engines/mysql/mysqlSessions.js';
import { PostgresSessions } from '../dist/src/db/engines/postgres/postgresSessions.js';
import { runAs, SessionOwners } from '../dist/src/db/connections/sessionOwner.js';
import { mysqlDown, MYSQL_URL, postgresClient, POSTGRES_URL } from './lib/engines.mjs';
import { QUICK } from './lib/settings.mjs';
import { median } from './lib/stats.mjs';

// Short rounds, many of them: a stall of the busy machine then falls on every path alike.
const ROUNDS = QUICK ? 20 : 200;
const STATEMENTS = 20;
const options = () => ({ params: [], maxRows: 100, maxBytes: 1_000_000, timeoutMs: 5_000, signal: new AbortController().signal });

/** µs of each of `STATEMENTS` reads, one after another, the owner of each chosen by `ownerOf(i)`. */
async function perStatement(sessions, ownerOf) {
  const times = [];
  for (let i = 0; i < STATEMENTS; i++) {
    const started = performance.now();
    await runAs(ownerOf(i), () => sessions.read('SELECT 1', options()));
    times.push((performance.now() - started) * 1_000);
  }
  return times;
}

const oneToken = () => 'alice';
/** Ends with alice, so that the one-token path after it starts without a reset. */
const twoTokens = (i) => (i % 2 === 0 ? 'bob' : 'alice');

/** The paths of one engine, medians in µs per statement. */
async function measure(open) {
  const owners = new SessionOwners();
  let resets = true;
  const sessions = open({ handOver: (session, owner) => resets && owners.handOver(session, owner) });
  const as = (reset, ownerOf) => () => {
    resets = reset;
    return perStatement(sessions, ownerOf);
  };
  const paths = {
    sameReset: as(true, oneToken),
    sameBaseline: as(false, oneToken),
    sameBaselineAgain: as(false, oneToken),
    switchReset: as(true, twoTokens),
    switchBaseline: as(false, twoTokens),
  };
  const times = Object.fromEntries(Object.keys(paths).map((key) => [key, []]));
  try {
    for (const run of Object.values(paths)) await run(); // warm-up: sessions open, plans cached
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? Object.keys(paths) : Object.keys(paths).reverse();
      for (const key of order) times[key].push(...(await paths[key]()));
    }
  } finally {
    await sessions.close();
  }
  const m = Object.fromEntries(Object.entries(times).map(([key, values]) => [key, median(values)]));
  // Every statement of the alternating path follows another token's: the difference is one reset.
  return { ...m, perSwitch: m.switchReset - m.switchBaseline, rounds: ROUNDS, statements: STATEMENTS };
}

/** Each engine that answers: its figures, or the reason it was skipped. */
export async function sessionResetCost() {
  const results = {};
  const pg = await postgresClient();
  await pg.client?.end();
  results.postgres = pg.client ? await measure((owners) => new PostgresSessions(parseServerUrl(POSTGRES_URL), owners)) : { skipped: pg.reason };
  const mysqlReason = await mysqlDown();
  results.mysql =
    mysqlReason === undefined ? await measure((owners) => new MysqlSessions(parseServerUrl(MYSQL_URL), systemClock, owners)) : { skipped: mysqlReason };
  return results;
}

const percent = (value, base) => `${value >= base ? '+' : '−'}${((Math.abs(value - base) / base) * 100).toFixed(1)} %`;

/** One line per engine, for the console and bench/results.md. */
export function sessionResetLines(results) {
  return Object.entries(results).map(([engine, r]) =>
    r.skipped
      ? `session reset, ${engine}: skipped (${r.skipped}).`
      : `session reset, ${engine}: one token ${r.sameReset.toFixed(0)} µs per read with the reset, ${r.sameBaseline.toFixed(0)} µs without (${percent(r.sameReset, r.sameBaseline)}; the same path without it, run twice, differed by ${percent(r.sameBaselineAgain, r.sameBaseline)}); two tokens taking turns ${r.switchReset.toFixed(0)} µs with, ${r.switchBaseline.toFixed(0)} µs without: ${r.perSwitch.toFixed(0)} µs per token switch (medians of ${r.rounds} rounds × ${r.statements} reads per path, A and B alternating).`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of sessionResetLines(await sessionResetCost())) console.log(line);
}
