import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemdUnit } from '../../src/platform/loginService.js';
import { SLUICE_BIN, runSluice } from '../helpers/cli.js';

/**
 * `sluice service` on Linux, as a user runs it: the unit it writes, and the systemctl commands it runs
 * (a stand-in systemctl on PATH records them). The unit is checked by systemd's own parser,
 * `systemd-analyze verify` (package `systemd`, which .ci/run installs): required in CI, skipped with
 * the reason printed elsewhere.
 */

const root = mkdtempSync(join(tmpdir(), 'sluice-service-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const hasAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;
if (!hasAnalyze) {
  if (process.env.CI) throw new Error('systemd-analyze is missing: .ci/run installs the systemd package');
  console.warn('serviceUnit: systemd-analyze is not installed (apt-get install systemd); the verify checks are skipped');
}

function verify(unitFile: string) {
  const runtime = mkdtempSync(join(root, 'runtime-'));
  chmodSync(runtime, 0o700);
  return spawnSync('systemd-analyze', ['verify', '--user', unitFile], {
    encoding: 'utf8',
    env: { ...process.env, XDG_RUNTIME_DIR: runtime, SYSTEMD_LOG_COLOR: '0' },
  });
}

/** A systemctl that records its arguments, one call per line, and answers is-active with $FAKE_ACTIVE. */
function fakeSystemctl(dir: string, log: string): void {
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'systemctl');
  writeFileSync(
    script,
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nif [ "$2" = is-active ]; then exit "\${FAKE_ACTIVE:-3}"; fi\nexit 0\n`,
  );
  chmodSync(script, 0o755);
}

describe.runIf(process.platform === 'linux')('sluice service on Linux', () => {
  const home = join(root, 'home');
  const config = join(home, 'cfg dir');
  const bin = join(root, 'bin');
  const calls = join(root, 'systemctl.log');
  fakeSystemctl(bin, calls);
  const env = { HOME: home, XDG_CONFIG_HOME: config, SLUICE_HOME: '', PATH: `${bin}:${process.env.PATH}` };
  const unitFile = join(config, 'systemd', 'user', 'sluice.service');

  it('install writes the unit for this node and this CLI, then reloads, enables and restarts it', () => {
    const dataDir = join(root, 'data 100% $HOME');
    const result = runSluice(['service', 'install', '--data-dir', dataDir], env);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(
      `Installed the systemd user unit ${unitFile}: Sluice starts at login, and is running now.\n` +
        "  logs: journalctl --user -u sluice.service (stderr only: stdout carries the console's one-time link, so it is not kept)\n" +
        '  console: sluice console prints a link to it\n',
    );
    expect(readFileSync(unitFile, 'utf8')).toBe(systemdUnit({ node: process.execPath, script: SLUICE_BIN, dataDir }));
    expect(readFileSync(unitFile, 'utf8')).toContain(`"serve" "--data-dir" "${root}/data 100%% $$HOME"\n`);
    expect(readFileSync(calls, 'utf8')).toBe('--user daemon-reload\n--user enable sluice.service\n--user restart sluice.service\n');
  });

  it.runIf(hasAnalyze)('the written unit passes systemd-analyze verify with no warning', () => {
    const result = verify(unitFile);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('status reports the file, whether it runs (exit 3 when not) and where the logs are', () => {
    const stopped = runSluice(['service', 'status'], env);
    expect(stopped.status).toBe(3);
    expect(stopped.stdout).toBe(
      `installed: yes (${unitFile})\nrunning: no\n` +
        "  logs: journalctl --user -u sluice.service (stderr only: stdout carries the console's one-time link, so it is not kept)\n",
    );
    const running = runSluice(['service', 'status'], { ...env, FAKE_ACTIVE: '0' });
    expect(running.status).toBe(0);
    expect(running.stdout).toContain('\nrunning: yes\n');
  });

  it('uninstall disables and stops it, then removes the unit', () => {
    writeFileSync(calls, '');
    const result = runSluice(['service', 'uninstall'], env);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`Removed the systemd user unit ${unitFile}: Sluice no longer starts at login.\n`);
    expect(existsSync(unitFile)).toBe(false);
    expect(readFileSync(calls, 'utf8')).toBe('--user disable --now sluice.service\n--user daemon-reload\n');
  });

  it('says which command failed, and why, when systemctl cannot reach the user manager', () => {
    const broken = join(root, 'broken-bin');
    mkdirSync(broken);
    writeFileSync(join(broken, 'systemctl'), "#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n");
    chmodSync(join(broken, 'systemctl'), 0o755);
    const result = runSluice(['service', 'install'], { ...env, PATH: `${broken}:${process.env.PATH}` });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('sluice: ["systemctl","--user","daemon-reload"] failed: Failed to connect to bus: No medium found\n');
  });

  it('--dry-run prints the unit and the commands and touches nothing', () => {
    const result = runSluice(['service', 'install', '--dry-run'], { ...env, XDG_CONFIG_HOME: join(root, 'dry') });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(
      `# systemd user unit: ${join(root, 'dry', 'systemd', 'user', 'sluice.service')}\n` +
        systemdUnit({ node: process.execPath, script: SLUICE_BIN }) +
        '# install runs:\n["systemctl","--user","daemon-reload"]\n["systemctl","--user","enable","sluice.service"]\n["systemctl","--user","restart","sluice.service"]\n',
    );
    expect(existsSync(join(root, 'dry'))).toBe(false);
  });

  it('a mistake on the command line is one line and exit 2', () => {
    const result = runSluice(['service', 'start'], env);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('sluice: usage: sluice service install|uninstall|status [--dry-run] [--data-dir DIR]\n');
  });

  it.runIf(hasAnalyze)('systemd reads the program path back exactly: it finds a node whose path has spaces, %, $, & and <>', () => {
    const dir = join(root, 'odd 100% $HOME & <co>');
    mkdirSync(dir);
    const node = join(dir, 'node');
    symlinkSync(process.execPath, node);
    const unit = join(root, 'hostile.service');
    writeFileSync(unit, systemdUnit({ node, script: join(dir, 'main.js'), dataDir: join(dir, 'data') }));
    const result = verify(unit);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    // And a path that does not exist is reported, so the check above means something.
    writeFileSync(unit, systemdUnit({ node: join(dir, 'no-such-node'), script: '/x' }));
    expect(verify(unit).stderr).toContain('is not executable: No such file or directory');
  });
});
