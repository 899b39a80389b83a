import { resolve } from 'node:path';
import { parseSshHop, type SshOptions } from '../db/sshOptions.js';
import { UsageError } from './usageError.js';

/** The options that put a server connection behind an SSH tunnel. */
export const sshFlagOptions = {
  ssh: { type: 'string' },
  'ssh-key': { type: 'string' },
  'ssh-agent': { type: 'boolean' },
  'ssh-jump': { type: 'string' },
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
