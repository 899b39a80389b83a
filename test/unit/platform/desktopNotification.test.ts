import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { desktopNotifier, noticeCommand, type Spawn } from '../../../src/platform/desktopNotification.js';

/** Texts a client may choose as its own name, or a connection's name may hold. */
const HOSTILE = [
  '"; rm -rf ~; "',
  '$(touch /tmp/pwned)',
  '`id`',
  "' & calc.exe & '",
  '-e do shell script "id"',
  '--help',
  '%USERPROFILE% ^& whoami',
  'line one\nline two',
  '<a href="file:///etc/passwd">click</a> & more',
];

const NOOP = () => {};

describe('noticeCommand: the texts are argv items or environment values, never a script', () => {
  it('Linux: notify-send with the app name, the texts after `--`, the body escaped for notification markup', () => {
    expect(noticeCommand('linux', { title: 'T', body: 'B & <b>' })).toEqual({
      command: 'notify-send',
      args: ['--app-name=Sluice', '--', 'T', 'B &amp; &lt;b&gt;'],
      env: {},
    });
    expect(noticeCommand('linux', { title: 'T', body: 'B', onClick: NOOP })).toEqual({
      command: 'notify-send',
      args: ['--app-name=Sluice', '--action=open=Open the console', '--wait', '--', 'T', 'B'],
      env: {},
    });
  });

  it('macOS: osascript with a constant script that reads both texts from its arguments', () => {
    expect(noticeCommand('darwin', { title: 'T', body: 'B', onClick: NOOP })).toEqual({
      command: 'osascript',
      args: [
        '-e',
        'on run argv',
        '-e',
        'display notification (item 2 of argv) with title (item 1 of argv)',
        '-e',
        'end run',
        'T',
        'B',
      ],
      env: {},
    });
  });

  it('Windows: a constant PowerShell toast script, encoded, reading both texts from the environment', () => {
    const { command, args, env } = noticeCommand('win32', { title: 'T', body: 'B' });
    expect(command).toBe('powershell.exe');
    expect(args.slice(0, 5)).toEqual(['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand']);
    expect(args).toHaveLength(6);
    const script = Buffer.from(args[5]!, 'base64').toString('utf16le');
    expect(script).toContain('$env:SLUICE_NOTICE_TITLE');
    expect(script).toContain('$env:SLUICE_NOTICE_BODY');
    expect(script).toContain('ToastNotificationManager');
    expect(env).toEqual({ SLUICE_NOTICE_TITLE: 'T', SLUICE_NOTICE_BODY: 'B' });
  });

  it.each(['linux', 'darwin', 'win32'] as const)('%s: hostile text stays one argv item or one environment value, unchanged', (platform) => {
    const constant = noticeCommand(platform, { title: 'T', body: 'B', onClick: NOOP });
    for (const text of HOSTILE) {
      const { command, args, env } = noticeCommand(platform, { title: 'Sluice', body: text, onClick: NOOP });
      expect(command).toBe(constant.command);
      expect(command).not.toMatch(/^(sh|bash|cmd|cmd\.exe)$/i);
      if (platform === 'win32') {
        // The command line is the same whatever the text; the text is the environment's.
        expect(args).toEqual(constant.args);
        expect(env).toEqual({ SLUICE_NOTICE_TITLE: 'Sluice', SLUICE_NOTICE_BODY: text });
      } else {
        expect(args.slice(0, -2)).toEqual(constant.args.slice(0, -2));
        expect(args.at(-2)).toBe('Sluice');
        const body = platform === 'linux' ? text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : text;
        expect(args.at(-1)).toBe(body);
        expect(env).toEqual({});
      }
    }
  });
});

type FakeChild = EventEmitter & {
  stdout: PassThrough;
  stderr: PassThrough;
  exitCode: number | null;
  signalCode: NodeJS.Signals | null;
  killed: number;
  kill(): boolean;
  /** Ends the child as the program would: output, then `close` with `code`. */
  finish(code: number, stdout?: string, stderr?: string): Promise<void>;
};

/** A spawner that records every call and hands back a child the test drives. */
function fakeSpawner() {
  const calls: { command: string; args: string[]; options: SpawnOptions; child: FakeChild }[] = [];
  const spawn: Spawn = (command, args, options) => {
    const child = Object.assign(new EventEmitter(), {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      exitCode: null as number | null,
      signalCode: null as NodeJS.Signals | null,
      killed: 0,
      kill() {
        child.killed += 1;
        child.signalCode = 'SIGTERM';
        child.emit('close', null, 'SIGTERM');
        return true;
      },
      async finish(code: number, stdout = '', stderr = '') {
        child.stdout.end(stdout);
        child.stderr.end(stderr);
        await new Promise((resolve) => setImmediate(resolve));
        child.exitCode = code;
        child.emit('close', code, null);
      },
    }) as FakeChild;
    calls.push({ command, args, options, child });
    return child as unknown as ChildProcess;
  };
  return { spawn, calls };
}

describe('desktopNotifier', () => {
  it('spawns without a shell, hidden, with the texts in the environment on Windows', () => {
    const { spawn, calls } = fakeSpawner();
    desktopNotifier({ platform: 'win32', spawn, log: () => {} }).show({ title: 'Sluice', body: '$(id)' });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.options).toMatchObject({ shell: false, windowsHide: true });
    expect(calls[0]!.options.env).toMatchObject({ SLUICE_NOTICE_TITLE: 'Sluice', SLUICE_NOTICE_BODY: '$(id)' });
  });

  it('Linux: a click on the action opens (the click handler runs once)', async () => {
    const { spawn, calls } = fakeSpawner();
    let clicks = 0;
    desktopNotifier({ platform: 'linux', spawn, log: () => {} }).show({ title: 'T', body: 'B', onClick: () => (clicks += 1) });
    await calls[0]!.child.finish(0, 'open\n');
    expect(clicks).toBe(1);
  });

  it('Linux: a notice dismissed without a click opens nothing', async () => {
    const { spawn, calls } = fakeSpawner();
    let clicks = 0;
    desktopNotifier({ platform: 'linux', spawn, log: () => {} }).show({ title: 'T', body: 'B', onClick: () => (clicks += 1) });
    await calls[0]!.child.finish(0, '');
    expect(clicks).toBe(0);
  });

  it('withdrawing kills a waiting notify-send once, and a click after that is ignored', async () => {
    const { spawn, calls } = fakeSpawner();
    let clicks = 0;
    const withdraw = desktopNotifier({ platform: 'linux', spawn, log: () => {} }).show({ title: 'T', body: 'B', onClick: () => (clicks += 1) });
    withdraw();
    withdraw();
    expect(calls[0]!.child.killed).toBe(1);
    calls[0]!.child.stdout.end('open\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(clicks).toBe(0);
  });

  it('withdrawing a notice whose program has ended kills nothing', async () => {
    const { spawn, calls } = fakeSpawner();
    const withdraw = desktopNotifier({ platform: 'darwin', spawn, log: () => {} }).show({ title: 'T', body: 'B' });
    await calls[0]!.child.finish(0);
    withdraw();
    expect(calls[0]!.child.killed).toBe(0);
  });

  it('no notify-send: one line in the log saying why, then nothing is spawned again', () => {
    const { spawn, calls } = fakeSpawner();
    const log: string[] = [];
    const notifier = desktopNotifier({ platform: 'linux', spawn, log: (line) => log.push(line) });
    notifier.show({ title: 'T', body: 'B' });
    const missing = Object.assign(new Error('spawn notify-send ENOENT'), { code: 'ENOENT' });
    calls[0]!.child.emit('error', missing);
    calls[0]!.child.emit('close', -2, null);
    expect(log).toEqual(['sluice: desktop notifications are off: notify-send was not found (install libnotify-bin)\n']);
    expect(notifier.show({ title: 'T', body: 'B' })).toBeTypeOf('function');
    expect(calls).toHaveLength(1);
    expect(log).toHaveLength(1);
  });

  it('a program that fails (no session bus) turns notices off with its first line of stderr', async () => {
    const { spawn, calls } = fakeSpawner();
    const log: string[] = [];
    const notifier = desktopNotifier({ platform: 'linux', spawn, log: (line) => log.push(line) });
    notifier.show({ title: 'T', body: 'B' });
    await calls[0]!.child.finish(1, '', 'Failed to connect to the bus\nmore\n');
    expect(log).toEqual(['sluice: desktop notifications are off: notify-send exited with 1: Failed to connect to the bus\n']);
    notifier.show({ title: 'T', body: 'B' });
    expect(calls).toHaveLength(1);
  });
});
