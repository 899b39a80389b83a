import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseSshHop, type SshOptions } from '../db/reach/sshOptions.js';
import { keyPassphraseProblem } from '../db/reach/sshTunnel.js';
import { UsageError } from './usageError.js';

/** The options that put a server connection behind an SSH tunnel. */
export const sshFlagOptions = {
  ssh: { type: 'string' },
  'ssh-key': { type: 'string' },
  'ssh-agent': { type: 'boolean' },
  'ssh-jump': { type: 'string' },
  'ssh-passphrase-stdin': { type: 'boolean' },
} as const;

type SshFlags = { ssh?: string; 'ssh-key'?: string; 'ssh-agent'?: boolean; 'ssh-jump'?: string };

/** `--ssh user@host[:port] [--ssh-key FILE] [--ssh-agent] [--ssh-jump user@host[:port]]` as a saved `ssh` block. */
export function sshOf(values: SshFlags): { ssh?: SshOptions } {
  if (values.ssh === undefined) {
    if (values['ssh-key'] !== undefined || values['ssh-agent'] || values['ssh-jump'] !== undefined) {
      throw new UsageError('--ssh-key, --ssh-agent and --ssh-jump go with --ssh user@host[:port]');
    }
    return {};
  }
  const hop = parseSshHop(values.ssh);
  if (!hop) throw new UsageError('--ssh must be [user@]host[:port] (the host may be a ~/.ssh/config alias)');
  const jump = values['ssh-jump'];
  if (jump !== undefined && !jump.split(',').every((text) => parseSshHop(text))) {
    throw new UsageError('--ssh-jump must be [user@]host[:port], comma-separated for several hops');
  }
  return {
    ssh: {
      ...hop,
      ...(values['ssh-key'] !== undefined ? { keyFile: resolve(values['ssh-key']) } : {}),
      ...(values['ssh-agent'] ? { agent: true } : {}),
      ...(jump !== undefined ? { jump } : {}),
    },
  };
}

/** One line from stdin: typed without echo in a terminal, else the first line of what is piped in. */
function readSecretLine(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    return new Promise((resolve, reject) => {
      const lines = createInterface({ input: stdin, crlfDelay: Infinity });
      let first: string | undefined;
      lines.once('line', (line) => {
        first = line;
        lines.close();
      });
      lines.once('close', () => resolve(first ?? ''));
      stdin.once('error', reject);
    });
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new UsageError('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}

/**
 * With `--ssh-passphrase-stdin`: the `ssh` block with the key's passphrase, read from stdin (never from
 * the command line) and refused unless it decrypts the key, before anything is saved.
 */
export async function withSshPassphrase<T extends { ssh?: SshOptions | null }>(
  values: { 'ssh-passphrase-stdin'?: boolean },
  given: T,
): Promise<T> {
  if (!values['ssh-passphrase-stdin']) return given;
  const keyFile = given.ssh?.keyFile;
  if (!given.ssh || keyFile === undefined) throw new UsageError('--ssh-passphrase-stdin goes with --ssh user@host[:port] --ssh-key FILE');
  const passphrase = await readSecretLine(`passphrase of the SSH key ${keyFile}: `);
  if (passphrase === '') throw new UsageError('--ssh-passphrase-stdin: no passphrase was given on stdin');
  const problem = await keyPassphraseProblem(keyFile, passphrase);
  if (problem) throw new UsageError(`${problem}; nothing was saved`);
  return { ...given, ssh: { ...given.ssh, passphrase } };
}
