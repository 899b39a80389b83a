import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { currentUser } from '../platform/currentUser.js';
import { resolveSupportDir } from '../platform/supportDir.js';
import {
  type LoginServicePlan,
  type RunStep,
  type ServeCommand,
  type Step,
  type UserContext,
  loginServicePlan,
  runStep,
} from '../platform/loginService.js';
import { dataDirOption } from './dataDirOption.js';
import { selfCommand } from './selfCommand.js';
import { UsageError } from './usageError.js';

const USAGE = 'usage: sluice service install|uninstall|status [--dry-run] [--data-dir DIR]';

export type ServiceDeps = {
  platform: NodeJS.Platform;
  user: UserContext;
  command: ServeCommand;
  run: RunStep;
  out: (text: string) => void;
};

function defaultDeps(dataDirFlag: string | undefined): ServiceDeps {
  return {
    platform: process.platform,
    user: { ...currentUser(), supportDir: resolveSupportDir(dataDirFlag) },
    command: selfCommand(dataDirFlag),
    run: runStep,
    out: (text) => process.stdout.write(text),
  };
}

const shown = (step: Step) => JSON.stringify([step.command, ...step.args]);

async function runSteps(steps: Step[], run: RunStep): Promise<void> {
  for (const step of steps) {
    const result = await run(step);
    if (result.code !== 0 && !step.mayFail) {
      const why = result.code === 127 ? `${step.command} was not found` : result.stderr.trim().split('\n')[0] || `exit status ${result.code}`;
      throw new Error(`${shown(step)} failed: ${why}`);
    }
  }
}

function writePlanFile(plan: LoginServicePlan): void {
  mkdirSync(dirname(plan.file), { recursive: true });
  const bytes = plan.encoding === 'utf16le' ? Buffer.from(`\ufeff${plan.contents}`, 'utf16le') : Buffer.from(plan.contents, 'utf8');
  writeFileSync(plan.file, bytes, { mode: 0o644 });
}

const logsLine = (plan: LoginServicePlan) =>
  `  logs: ${plan.logs} (stderr only: stdout carries the console's one-time link, so it is not kept)\n`;

/** `sluice service install|uninstall|status`: starts Sluice at login with the system's own service manager. */
export async function service(argv: string[], injected?: ServiceDeps): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...dataDirOption, 'dry-run': { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  const [action, ...extra] = positionals;
  if (!action || extra.length > 0 || !['install', 'uninstall', 'status'].includes(action)) throw new UsageError(USAGE);
  const deps = injected ?? defaultDeps(values['data-dir']);
  const plan = loginServicePlan(deps.platform, deps.command, deps.user);
  const steps = action === 'install' ? plan.install : action === 'uninstall' ? plan.uninstall : [plan.status];

  if (values['dry-run']) {
    if (action === 'install') deps.out(`# ${plan.kind}: ${plan.file}\n${plan.contents}`);
    deps.out(`# ${action} runs:\n${steps.map((step) => `${shown(step)}\n`).join('')}`);
    return;
  }

  if (action === 'install') {
    mkdirSync(deps.user.supportDir, { recursive: true });
    writePlanFile(plan);
    await runSteps(plan.install, deps.run);
    deps.out(`Installed the ${plan.kind} ${plan.file}: Sluice starts at login, and is running now.\n${logsLine(plan)}`);
    deps.out('  console: sluice console prints a link to it\n');
    return;
  }
  if (action === 'uninstall') {
    await runSteps(plan.uninstall, deps.run);
    rmSync(plan.file, { force: true });
    deps.out(`Removed the ${plan.kind} ${plan.file}: Sluice no longer starts at login.\n`);
    return;
  }
  const installed = existsSync(plan.file);
  const running = (await deps.run(plan.status)).code === 0;
  deps.out(`installed: ${installed ? `yes (${plan.file})` : 'no'}\nrunning: ${running ? 'yes' : 'no'}\n${logsLine(plan)}`);
  if (!running) process.exitCode = 3;
}
