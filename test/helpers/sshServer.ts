import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

/** The OpenSSH server the SSH suites start their own copy of, on a free loopback port. */
export const SSHD = '/usr/sbin/sshd';

/**
 * Why there can be no SSH server here, or undefined: under CI a missing sshd throws, elsewhere the
 * reason is printed and the suite `suite` is skipped.
 */
export function sshdProblem(suite: string): string | undefined {
  const problem = existsSync(SSHD) ? undefined : `${SSHD} is missing (apt-get install openssh-server)`;
  if (problem && process.env.CI) throw new Error(`CI needs an SSH server: ${problem}`);
  if (problem) console.warn(`skipping the ${suite} suite: ${problem}`);
  return problem;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once something accepts connections on 127.0.0.1:`port` (5 s at most). */
export async function accepting(port: number): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`sshd did not listen on ${port}`);
}

/** The processes under `pid` (sshd's per-connection children), deepest last. */
export function descendants(pid: number): number[] {
  // ps exits 1 when there are none.
  const listed = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout;
  const children = listed.split('\n').filter((line) => line.trim() !== '').map(Number);
  return children.flatMap((child) => [child, ...descendants(child)]);
}

export type TestSshd = { port: number; process: ChildProcess; stop(): void };

/**
 * An sshd of the test's own on a free 127.0.0.1 port, as the current user: `hostKey` (one or several),
 * `authorizedKeys`, keys only, TCP forwarding on; its config and pid file go in `dir`.
 */
export async function startSshd(dir: string, hostKey: string | string[], authorizedKeys: string): Promise<TestSshd> {
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      ...[hostKey].flat().map((key) => `HostKey ${key}`),
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorizedKeys}`,
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'AllowTcpForwarding yes',
      '',
    ].join('\n'),
  );
  const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  await accepting(port);
  return {
    port,
    process: child,
    stop() {
      if (child.pid) for (const pid of [child.pid, ...descendants(child.pid)]) process.kill(pid, 'SIGKILL');
    },
  };
}
