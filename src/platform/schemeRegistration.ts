import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { linuxScheme } from './scheme/linux.js';
import { macosScheme } from './scheme/macos.js';
import { windowsScheme } from './scheme/windows.js';
import type { SchemeHost, SchemeRegistrar, SchemeTarget, Step } from './scheme/target.js';

export { SCHEME, handlerArgs, type RunResult, type SchemeHost, type SchemeRegistrar, type SchemeTarget, type Step } from './scheme/target.js';

/** The registrar of `platform`: Linux and the other free desktops, macOS, Windows. */
export function schemeRegistrar(platform: NodeJS.Platform): SchemeRegistrar {
  if (platform === 'darwin') return macosScheme;
  if (platform === 'win32') return windowsScheme;
  return linuxScheme;
}

/** A command as a person would read it; for printing only, never run. */
export function displayCommand(command: string, args: string[]): string {
  return [command, ...args].map((arg) => (/^[\w@%+=:,./\\-]+$/.test(arg) ? arg : JSON.stringify(arg))).join(' ');
}

/** Carries out `steps` in order, returning one line per step; a program that fails stops the rest. */
export function applySteps(steps: Step[], host: SchemeHost): string[] {
  const said: string[] = [];
  for (const step of steps) {
    if (step.kind === 'note') said.push(step.text);
    else if (step.kind === 'write') {
      host.writeFile(step.path, step.content);
      said.push(`wrote ${step.path}`);
    } else if (step.kind === 'remove') {
      host.remove(step.path);
      said.push(`removed ${step.path}`);
    } else {
      const result = host.run(step.command, step.args);
      if (result.missing && step.ifMissing !== undefined) {
        said.push(step.ifMissing);
        continue;
      }
      if (result.missing) throw new Error(`${step.command} was not found; ${said.length} of ${steps.length} steps were done`);
      if (result.status !== 0) {
        const why = result.stderr.trim().split('\n')[0] ?? '';
        throw new Error(`${displayCommand(step.command, step.args)} exited with ${result.status}${why ? `: ${why}` : ''}`);
      }
      said.push(`ran ${displayCommand(step.command, step.args)}`);
    }
  }
  return said;
}

/** The real machine. */
export const osSchemeHost: SchemeHost = {
  readFile(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  exists: (path) => existsSync(path),
  writeFile(path, content) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content, { mode: 0o644 });
  },
  remove: (path) => rmSync(path, { recursive: true, force: true }),
  run(command, args) {
    const result = spawnSync(command, args, { encoding: 'utf8', shell: false, windowsHide: true, timeout: 30_000 });
    const missing = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
    if (result.error && !missing) throw result.error;
    return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '', missing };
  },
};

/** The target for this process: its user and its environment; `dataDir` made absolute, as the OS runs the handler elsewhere. */
export function currentTarget(sluice: string[], dataDir: string): SchemeTarget {
  return { home: homedir(), env: process.env, sluice, dataDir: resolve(dataDir) };
}
