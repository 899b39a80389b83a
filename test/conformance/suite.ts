import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs the official MCP conformance suite (pinned in scripts/conformance-runner, under the Node 22 it
 * needs, which is that folder's own `node` package: the project's Node is never changed) against a URL,
 * and reads back what it found, check by check.
 */

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const RUNNER = join(ROOT, 'scripts', 'conformance-runner');
const RUNNER_MODULES = join(RUNNER, 'node_modules');
export const NODE22 = join(RUNNER_MODULES, 'node', 'bin', 'node');
export const SUITE = join(RUNNER_MODULES, '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

export type Requirements = '2026-07-28' | '2025-11-25';

export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
export type Check = { id: string; name: string; status: CheckStatus; errorMessage?: string };
export type ScenarioResult = {
  scenario: string;
  /** False for what the requirement set runs without scoring it (extensions, pending, added after release). */
  scored: boolean;
  notScoredReason?: string;
  checks: Check[];
};
export type SuiteRun = { requirements: Requirements; exitCode: number | null; scenarios: ScenarioResult[]; log: string };

/** A check as `expected-failures.json` names it: ids repeat inside a scenario, id and name together do not. */
export const checkKey = (check: Pick<Check, 'id' | 'name'>) => `${check.id} (${check.name})`;

/** The suite version the runner folder pins, and whether exactly that is installed with its Node. */
export function runnerState(): { pinned: string; installed: string | undefined; node: string | undefined } {
  const manifest = JSON.parse(readFileSync(join(RUNNER, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const pinned = manifest.dependencies['@modelcontextprotocol/conformance'] as string;
  const installedManifest = join(RUNNER_MODULES, '@modelcontextprotocol', 'conformance', 'package.json');
  const installed = existsSync(installedManifest)
    ? (JSON.parse(readFileSync(installedManifest, 'utf8')) as { version: string }).version
    : undefined;
  const node = existsSync(NODE22)
    ? spawnSync(NODE22, ['--version'], { encoding: 'utf8' }).stdout.trim() || undefined
    : undefined;
  return { pinned, installed, node };
}

/** `npm ci` in the runner folder (its own lockfile) unless the pinned suite and its Node are there already. */
export function ensureRunner(): void {
  const state = runnerState();
  if (state.installed === state.pinned && state.node?.startsWith('v22.')) return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--prefix', RUNNER, '--no-audit', '--no-fund'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  const after = runnerState();
  if (result.status !== 0 || after.installed !== after.pinned || !after.node?.startsWith('v22.')) {
    throw new Error(
      `could not install the conformance runner (npm run conformance:install): exit ${result.status}\n${result.stderr}`,
    );
  }
}

const SCENARIO_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/** The closing "Not scored for <revision>" block of the suite's output: `  ✗ name (reason)`. */
function notScored(log: string): Map<string, string> {
  const found = new Map<string, string>();
  const at = log.indexOf('\nNot scored for ');
  if (at < 0) return found;
  for (const line of log.slice(at).split('\n').slice(2)) {
    const match = /^\s+[✓✗] (\S+) \((.+)\)$/.exec(line);
    if (match) found.set(match[1] as string, match[2] as string);
  }
  return found;
}

function readScenarios(outDir: string, log: string): ScenarioResult[] {
  const unscored = notScored(log);
  return readdirSync(outDir)
    .flatMap((dir) => {
      const scenario = SCENARIO_DIR.exec(dir)?.[1];
      if (!scenario || !existsSync(join(outDir, dir, 'checks.json'))) return [];
      const checks = (JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8')) as Check[]).map(
        ({ id, name, status, errorMessage }) => ({ id, name, status, ...(errorMessage ? { errorMessage } : {}) }),
      );
      const reason = unscored.get(scenario);
      return [{ scenario, scored: reason === undefined, ...(reason ? { notScoredReason: reason } : {}), checks }];
    })
    .sort((a, b) => a.scenario.localeCompare(b.scenario));
}

function runSuite(args: string[], logFile: string, timeoutMs: number): Promise<{ exitCode: number | null; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [SUITE, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const file = createWriteStream(logFile);
    let log = '';
    const take = (chunk: Buffer) => {
      log += chunk.toString('utf8');
      file.write(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      file.end();
      reject(error);
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      file.end();
      resolve({ exitCode, log });
    });
  });
}

/** `conformance server --url <url> --requirements <revision>`, its per-scenario results under `workDir`. */
export async function runRequirements(url: string, requirements: Requirements, workDir: string): Promise<SuiteRun> {
  const outDir = join(workDir, 'checks');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const { exitCode, log } = await runSuite(
    ['server', '--url', url, '--requirements', requirements, '-o', outDir],
    join(workDir, 'suite.log'),
    240_000,
  );
  return { requirements, exitCode, scenarios: readScenarios(outDir, log), log };
}

/**
 * One scenario again, at the same wire as its requirement set (`--spec-version` plus `--force`, which is
 * how a requirement set runs each of its scenarios): a second look before calling a difference real.
 */
export async function rerunScenario(
  url: string,
  requirements: Requirements,
  scenario: string,
  workDir: string,
): Promise<Check[] | undefined> {
  const outDir = join(workDir, 'rerun', scenario);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const { log } = await runSuite(
    ['server', '--url', url, '--scenario', scenario, '--spec-version', requirements, '--force', '-o', outDir],
    join(outDir, 'suite.log'),
    120_000,
  );
  return readScenarios(outDir, log).find((s) => s.scenario === scenario)?.checks;
}
