import { existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { matchesPatternList } from './hostPatterns.js';

/** What `~/.ssh/config` says about one host, in the subset Sluice reads. */
export type SshHostConfig = {
  hostName?: string;
  port?: number;
  user?: string;
  identityFile?: string;
  proxyJump?: string;
  /** `UserKnownHostsFile`: the user's known-hosts files, expanded; empty for `none`. */
  userKnownHostsFiles?: string[];
};

const KEYS: Record<string, keyof SshHostConfig> = {
  hostname: 'hostName',
  port: 'port',
  user: 'user',
  identityfile: 'identityFile',
  proxyjump: 'proxyJump',
  userknownhostsfile: 'userKnownHostsFiles',
};

/** The user's OpenSSH client configuration under the home directory `home`. */
export const sshConfigFile = (home: string) => join(home, '.ssh', 'config');

/** The files OpenSSH keeps the user's host keys in when the configuration names none. */
export const defaultUserKnownHostsFiles = (home: string) => [join(home, '.ssh', 'known_hosts'), join(home, '.ssh', 'known_hosts2')];

/** A path as ssh_config writes it: a leading `~`, and the tokens `%d` (the home), `%u` (the local user) and `%%`. */
function expandPath(path: string, home: string): string {
  const tilde = path === '~' || path.startsWith('~/') ? join(home, path.slice(1)) : path;
  return tilde.replace(/%([du%])/g, (_, token: string) => (token === 'd' ? home : token === 'u' ? userInfo().username : '%'));
}

/** A value's words; double quotes keep spaces inside one. */
const words = (value: string) => [...value.matchAll(/"([^"]*)"|(\S+)/g)].map((word) => word[1] ?? word[2]!);

/** Records one keyword's value, as OpenSSH reads it, unless it is invalid. */
function record(found: SshHostConfig, key: keyof SshHostConfig, value: string, alias: string, home: string): void {
  const unquoted = value.replace(/^"(.*)"$/, '$1');
  if (key === 'port') {
    const port = Number(unquoted);
    if (Number.isInteger(port) && port > 0 && port < 65_536) found.port = port;
  } else if (key === 'userKnownHostsFiles') {
    found.userKnownHostsFiles = value.toLowerCase() === 'none' ? [] : words(value).map((file) => expandPath(file, home));
  } else if (key === 'hostName') found.hostName = unquoted.replaceAll('%h', alias);
  else if (key === 'identityFile') found.identityFile = expandPath(unquoted, home);
  else found[key] = unquoted;
}

/**
 * The settings for `alias` in an ssh_config text: Host, HostName (with `%h`), Port, User, IdentityFile
 * and UserKnownHostsFile (paths with `~` meaning `home`) and ProxyJump, the first value found winning
 * as in OpenSSH. Other keywords, and `Match` blocks, are ignored.
 */
export function sshHostConfig(text: string, alias: string, home: string): SshHostConfig {
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
      applies = matchesPatternList(value.split(/\s+/).map((p) => p.replace(/^"|"$/g, '')), alias);
      continue;
    }
    if (keyword === 'match') {
      applies = false;
      continue;
    }
    const key = KEYS[keyword];
    if (applies && key && found[key] === undefined) record(found, key, value, alias, home);
  }
  return found;
}

/** `sshHostConfig` of `~/.ssh/config` under the home directory `home`; nothing when there is no such file. */
export function readSshHostConfig(alias: string, home: string): SshHostConfig {
  const file = sshConfigFile(home);
  return existsSync(file) ? sshHostConfig(readFileSync(file, 'utf8'), alias, home) : {};
}
