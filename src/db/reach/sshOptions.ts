import { isAbsolute } from 'node:path';
import { isPlainObject } from '../../protocol/jsonrpc.js';

/**
 * The SSH tunnel of a server connection, as saved. `host` may be a `~/.ssh/config` alias; `jump` is
 * ProxyJump's `[user@]host[:port]`, comma-separated for several hops. A key's passphrase
 * (`passphrase`) is in memory only: the config file keeps it like a database password (see `writeConfig`).
 */
export type SshOptions = {
  host: string;
  port?: number;
  user?: string;
  keyFile?: string;
  agent?: boolean;
  jump?: string;
  knownHostsFile?: string;
  /** Decrypts `keyFile`; never in the config file when the OS credential store keeps it. */
  passphrase?: string;
};

export type SshHop = { user?: string; host: string; port?: number };

/** `[user@]host[:port]` (`[v6]:port` too); undefined when it is not one. */
export function parseSshHop(text: string): SshHop | undefined {
  const match = /^(?:([^@\s]+)@)?(\[[^\]\s]+\]|[^:@\s[\]]+)(?::(\d{1,5}))?$/.exec(text.trim());
  if (!match) return undefined;
  const port = match[3] === undefined ? undefined : Number(match[3]);
  if (port !== undefined && (port < 1 || port > 65_535)) return undefined;
  return {
    ...(match[1] ? { user: match[1] } : {}),
    host: match[2]!.replace(/^\[|\]$/g, ''),
    ...(port ? { port } : {}),
  };
}

/** Validates a saved `ssh` block; `where` names it in the error. */
export function parseSshOptions(value: unknown, where: string): SshOptions {
  if (!isPlainObject(value)) throw new Error(`${where} must be an object`);
  const { host, port, user, keyFile, agent, jump, knownHostsFile, passphrase } = value;
  if (typeof host !== 'string' || !parseSshHop(host) || host.includes('@') || host.includes(':')) {
    throw new Error(`${where}.host must be a host name or a ~/.ssh/config alias`);
  }
  if (port !== undefined && (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65_535)) {
    throw new Error(`${where}.port must be a port number`);
  }
  if (user !== undefined && (typeof user !== 'string' || !/^[^@\s:]+$/.test(user))) throw new Error(`${where}.user must be a user name`);
  for (const [name, file] of [['keyFile', keyFile], ['knownHostsFile', knownHostsFile]] as const) {
    if (file !== undefined && (typeof file !== 'string' || !isAbsolute(file))) throw new Error(`${where}.${name} must be an absolute file path`);
  }
  if (agent !== undefined && typeof agent !== 'boolean') throw new Error(`${where}.agent must be true or false`);
  if (jump !== undefined && (typeof jump !== 'string' || !jump.split(',').every((hop) => parseSshHop(hop)))) {
    throw new Error(`${where}.jump must be [user@]host[:port], comma-separated for several hops`);
  }
  if (passphrase !== undefined && (typeof passphrase !== 'string' || passphrase === '' || keyFile === undefined)) {
    throw new Error(`${where}.passphrase must be a non-empty string, with keyFile`);
  }
  return {
    host,
    ...(port !== undefined ? { port: port as number } : {}),
    ...(user !== undefined ? { user: user as string } : {}),
    ...(keyFile !== undefined ? { keyFile: keyFile as string } : {}),
    ...(agent ? { agent: true } : {}),
    ...(jump !== undefined ? { jump: jump as string } : {}),
    ...(knownHostsFile !== undefined ? { knownHostsFile: knownHostsFile as string } : {}),
    ...(passphrase !== undefined ? { passphrase: passphrase as string } : {}),
  };
}
