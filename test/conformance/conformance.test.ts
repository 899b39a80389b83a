import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConformanceServer, type ConformanceServer } from './fixtures.js';
import {
  checkKey,
  ensureRunner,
  rerunScenario,
  ROOT,
  runnerState,
  runRequirements,
  type Check,
  type Requirements,
  type SuiteRun,
} from './suite.js';

/**
 * The official MCP conformance suite against Sluice, for both requirement sets it publishes: the
 * current stateless revision and the legacy one. Every check the suite fails must be listed in
 * `expected-failures.json` with the wire-contract rule that makes Sluice answer differently, and every
 * listed check must still fail: the list stays honest both ways. Results and logs are kept in
 * test-results/conformance/.
 */

type ExpectedFailure = { scenario: string; scored: boolean; checks: string[]; reason: string };
type ExpectedFile = { suite: string } & Record<Requirements, ExpectedFailure[]>;

const expected = JSON.parse(readFileSync(new URL('./expected-failures.json', import.meta.url), 'utf8')) as ExpectedFile;
const RESULTS = join(ROOT, 'test-results', 'conformance');
const REQUIREMENTS: Requirements[] = ['2026-07-28', '2025-11-25'];

let server: ConformanceServer;
let legacyEra = false;
const runs = new Map<Requirements, SuiteRun>();

/** `scenario › check` for every check the suite reported as FAILURE. */
function failing(checks: Map<string, Check[]>): Set<string> {
  const keys = new Set<string>();
  for (const [scenario, list] of checks) {
    for (const check of list) if (check.status === 'FAILURE') keys.add(`${scenario} › ${checkKey(check)}`);
  }
  return keys;
}

const listed = (requirements: Requirements) =>
  new Set(expected[requirements].flatMap((entry) => entry.checks.map((check) => `${entry.scenario} › ${check}`)));

/** Does Sluice answer `initialize`? Until the legacy era lands, the 2025-11-25 set cannot be held to the list. */
async function answersInitialize(url: string): Promise<boolean> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0' } },
    }),
  });
  const text = await response.text();
  return response.ok && text.includes('"protocolVersion"');
}

function describeRun(run: SuiteRun, checks: Map<string, Check[]>): string {
  const scored = run.scenarios.filter((s) => s.scored);
  const clean = (scenario: string) => !(checks.get(scenario) ?? []).some((c) => c.status === 'FAILURE');
  const all = [...checks.values()].flat();
  const count = (status: string) => all.filter((c) => c.status === status).length;
  const unscored = run.scenarios.filter((s) => !s.scored);
  return [
    `conformance ${run.requirements}: scored scenarios clean ${scored.filter((s) => clean(s.scenario)).length} of ${scored.length}`,
    `  not scored ${unscored.length} (clean ${unscored.filter((s) => clean(s.scenario)).length})`,
    `  checks: ${count('SUCCESS')} succeeded, ${count('FAILURE')} failing, ${count('WARNING')} warnings`,
    ...run.scenarios
      .filter((s) => !clean(s.scenario))
      .map(
        (s) =>
          `  ✗ ${s.scenario}${s.scored ? '' : ` [not scored: ${s.notScoredReason}]`}: ` +
          (checks.get(s.scenario) ?? [])
            .filter((c) => c.status === 'FAILURE')
            .map((c) => c.name)
            .join(', '),
      ),
  ].join('\n');
}

const checksByScenario = new Map<Requirements, Map<string, Check[]>>();

beforeAll(async () => {
  ensureRunner();
  server = await startConformanceServer({
    // The suite is one caller sending a few hundred requests in seconds; the per-caller rate limit is
    // Sluice's policy, not part of the protocol under test.
    callerLimits: { requestsPerWindow: 100_000, windowSeconds: 60, concurrent: 64 },
  });
  legacyEra = await answersInitialize(server.url);
  for (const requirements of REQUIREMENTS) {
    const run = await runRequirements(server.url, requirements, join(RESULTS, requirements));
    runs.set(requirements, run);
    const checks = new Map(run.scenarios.map((s) => [s.scenario, s.checks]));
    // A difference from the list gets a second look, one scenario at a time, before it counts: a few
    // scenarios read streams within fixed windows and a loaded machine can miss one.
    const expectedKeys = listed(requirements);
    const actual = failing(checks);
    const suspects = new Set(
      [...actual, ...expectedKeys]
        .filter((key) => actual.has(key) !== expectedKeys.has(key))
        .map((key) => key.split(' › ')[0] as string),
    );
    for (const scenario of suspects) {
      const again = await rerunScenario(server.url, requirements, scenario, join(RESULTS, requirements));
      if (again) checks.set(scenario, again);
    }
    checksByScenario.set(requirements, checks);
  }
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(
    join(RESULTS, 'summary.json'),
    JSON.stringify(
      {
        suite: `@modelcontextprotocol/conformance@${runnerState().pinned}`,
        node: runnerState().node,
        legacyEra,
        runs: REQUIREMENTS.map((requirements) => {
          const run = runs.get(requirements) as SuiteRun;
          const checks = checksByScenario.get(requirements) as Map<string, Check[]>;
          return {
            requirements,
            exitCode: run.exitCode,
            scenarios: run.scenarios.map((s) => ({ ...s, checks: checks.get(s.scenario) ?? s.checks })),
          };
        }),
      },
      null,
      2,
    ),
  );
  for (const requirements of REQUIREMENTS) {
    console.log(describeRun(runs.get(requirements) as SuiteRun, checksByScenario.get(requirements) as Map<string, Check[]>));
  }
}, 600_000);

afterAll(async () => {
  await server?.dispose();
});

describe('the official MCP conformance suite', () => {
  it('is the pinned release, run under Node 22', () => {
    const state = runnerState();
    expect(expected.suite).toBe(`@modelcontextprotocol/conformance@${state.pinned}`);
    expect(state.installed).toBe(state.pinned);
    expect(state.node).toMatch(/^v22\./);
  });

  describe.each(REQUIREMENTS)('requirement set %s', (requirements) => {
    it('ran every scenario of the set', () => {
      const run = runs.get(requirements) as SuiteRun;
      // Server scenarios: 2026-07-28 scores 37 and runs 13 more unscored; 2025-11-25 scores 30, runs 3 more.
      expect(run.scenarios.length, run.log.slice(-2000)).toBe(requirements === '2026-07-28' ? 50 : 33);
      expect(run.scenarios.filter((s) => s.scored).length).toBe(requirements === '2026-07-28' ? 37 : 30);
      expect(run.scenarios.filter((s) => s.checks.length === 0).map((s) => s.scenario)).toEqual([]);
    });

    it('fails only checks listed in expected-failures.json, each with the contract rule behind it', (ctx) => {
      const unlisted = [...failing(checksByScenario.get(requirements) as Map<string, Check[]>)].filter(
        (key) => !listed(requirements).has(key),
      );
      if (requirements === '2025-11-25' && !legacyEra) {
        console.log(`legacy era not answered yet (initialize): ${unlisted.length} failing checks not held to the list`);
        ctx.skip();
      }
      expect(unlisted, 'failing in the suite but not in expected-failures.json').toEqual([]);
      for (const entry of expected[requirements]) expect(entry.reason, entry.scenario).toMatch(/\bcontract\b/i);
    });

    it('still fails every check listed in expected-failures.json', () => {
      const actual = failing(checksByScenario.get(requirements) as Map<string, Check[]>);
      const stale = [...listed(requirements)].filter((key) => !actual.has(key));
      expect(stale, 'listed in expected-failures.json but passing now: take them off the list').toEqual([]);
    });

    it('lists each scenario with whether the requirement set scores it', () => {
      const run = runs.get(requirements) as SuiteRun;
      for (const entry of expected[requirements]) {
        const scenario = run.scenarios.find((s) => s.scenario === entry.scenario);
        expect(scenario, entry.scenario).toBeDefined();
        expect(entry.scored, entry.scenario).toBe(scenario?.scored);
      }
    });
  });
});
