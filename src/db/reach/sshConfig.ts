import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** What `~/.ssh/config` says about one host, in the subset Sluice reads. */
export type SshHostConfig = { hostName?: string; port?: number; user?: string; identityFile?: string; proxyJump?: string };

const KEYS: Record<string, keyof SshHostConfig> = {
  hostname: 'hostName',
  port: 'port',
  user: 'user',
  identityfile: 'identityFile',
  proxyjump: 'proxyJump',
};

export const SSH_CONFIG_FILE = join(homedir(), '.ssh', 'config');

/** An OpenSSH host pattern (`*`, `?`) as a whole-name, case-insensitive expression. */
const patternRegExp = (pattern: string) =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');

/** A `Host` line's patterns match `alias` when one matches and no negated (`!`) one does. */
function hostMatches(patterns: string[], alias: string): boolean {
  let matched = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    if (patternRegExp(negated ? pattern.slice(1) : pattern).test(alias)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

const expandHome = (path: string) => (path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path);

/**
 * The settings for `alias` in an ssh_config text: Host, HostName (with `%h`), Port, User, IdentityFile
 * (with `~`) and ProxyJump, the first value found winning as in OpenSSH. Other keywords, and `Match`
 * blocks, are ignored.
 */
export function sshHostConfig(text: string, alias: string): SshHostConfig {
  const found: SshHostConfig = {};
  let applies = true;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\S+?)(?:\s*=\s*|\s+)(.*)$/.exec(line);
    if (!match) continue;
    const keyword = match[1]!.toLowerCase();
    const value = match[2]!.trim();
    if (keyword === 'host') {
      applies = hostMatches(value.split(/\s+/).map((p) => p.replace(/^"|"$/g, '')), alias);
      continue;
    }
    if (keyword === 'match') {
      applies = false;
      continue;
    }
    const key = KEYS[keyword];
    if (!applies || !key || found[key] !== undefined) continue;
    const unquoted = value.replace(/^"(.*)"$/, '$1');
    if (key === 'port') {
      const port = Number(unquoted);
      if (Number.isInteger(port) && port > 0 && port < 65_536) found.port = port;
    } else if (key === 'hostName') found.hostName = unquoted.replaceAll('%h', alias);
    else if (key === 'identityFile') found.identityFile = expandHome(unquoted);
    else found[key] = unquoted;
  }
  return found;
}

/** `sshHostConfig` of the user's `~/.ssh/config` (or `file`); nothing when there is no such file. */
export function readSshHostConfig(alias: string, file: string = SSH_CONFIG_FILE): SshHostConfig {
  return existsSync(file) ? sshHostConfig(readFileSync(file, 'utf8'), alias) : {};
}
