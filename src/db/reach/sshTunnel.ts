import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { Client, ConnectConfig } from 'ssh2';
import type { AppClock } from '../../core/clock.js';
import { SSH } from '../../core/contract.js';
import { DriverFailure } from '../driverFailure.js';
import { addHostKey, checkHostKey, fingerprint, hostField, KNOWN_HOSTS_FILE, keyType, type KnownKey, preferredAlgorithms } from './knownHosts.js';
import { knownKeys } from './knownKeys.js';
import { defaultUserKnownHostsFiles, readSshHostConfig } from './sshConfig.js';
import { parseSshHop, type SshOptions } from './sshOptions.js';

/** One SSH server on the way, after `~/.ssh/config`, with how to authenticate to it and the user's own known-hosts files for it. */
type Hop = { host: string; port: number; user: string; keyFile?: string; userKnownHostsFiles: string[] };

/** Judges a hop's host key against the keys known for it; throws to refuse it. */
type Verify = (hop: Hop, key: Buffer, known: KnownKey[]) => void;

export type TrustedKey = { host: string; fingerprint: string; status: 'known' | 'added' | 'replaced' };

/** Where a tunnel reads and records host keys, and whose OpenSSH files it reads. */
export type SshPlaces = {
  /** Sluice's own known-hosts file, the one `trust-host` writes. */
  knownHostsFile: string;
  /** The home directory whose `.ssh` holds the user's config, default keys and known hosts (read, never written). */
  home: string;
};

/** Sluice's known-hosts file in the support directory `dataDir`, and the user's home (`HOME` on Unix). */
export const sshPlaces = (dataDir: string, home: string = homedir()): SshPlaces => ({ knownHostsFile: join(dataDir, KNOWN_HOSTS_FILE), home });

export type TunnelSettings = SshPlaces & {
  /** The saved connection's id, named in the errors that say how to accept a host key. */
  connectionId: string;
  ssh: SshOptions;
  /** The database server as the last SSH server reaches it. */
  target: { host: string; port: number };
  clock: AppClock;
};

type ParseKey = (typeof import('ssh2'))['utils']['parseKey'];

const defaultKeys = (home: string) => ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((name) => join(home, '.ssh', name));
const ignore = () => {};

/** The hops from the first jump host to the tunnel's own host, each completed from `~/.ssh/config`. */
function resolveHops(ssh: SshOptions, home: string): Hop[] {
  const hop = (alias: string, given: { user?: string; port?: number; keyFile?: string }): Hop & { jump?: string } => {
    const config = readSshHostConfig(alias, home);
    const keyFile = given.keyFile ?? config.identityFile;
    return {
      host: config.hostName ?? alias,
      port: given.port ?? config.port ?? 22,
      user: given.user ?? config.user ?? userInfo().username,
      ...(keyFile ? { keyFile } : {}),
      userKnownHostsFiles: config.userKnownHostsFiles ?? defaultUserKnownHostsFiles(home),
      ...(config.proxyJump && config.proxyJump !== 'none' ? { jump: config.proxyJump } : {}),
    };
  };
  const { jump: configJump, ...last } = hop(ssh.host, ssh);
  const jump = ssh.jump ?? configJump;
  const jumps = (jump ? jump.split(',') : []).map((text) => {
    const parsed = parseSshHop(text);
    if (!parsed) throw new DriverFailure('not_connected', `the SSH jump host "${text}" is not [user@]host[:port]`);
    const { jump: _nested, ...resolved } = hop(parsed.host, { ...parsed, ...(ssh.keyFile ? { keyFile: ssh.keyFile } : {}) });
    return resolved;
  });
  return [...jumps, last];
}

/**
 * One SSH tunnel of a server connection: a listener on 127.0.0.1 whose every connection is forwarded,
 * over one SSH connection (through the ProxyJump hosts, if any), to the database server. The SSH
 * connection is opened on first use, opened again after it drops, and closed after `SSH.idleCloseMs`
 * with nothing through it. Host keys are checked against Sluice's `known_hosts` and the user's own
 * (read only); an unknown or changed one is refused with its fingerprint, and accepted only by `trust`,
 * a revoked one never.
 */
export class SshTunnel {
  readonly #settings: TunnelSettings;
  #listening: Promise<number> | undefined;
  #server: Server | undefined;
  #session: Promise<Client[]> | undefined;
  #channels = 0;
  #idleTimer: unknown;
  /** How many times an open SSH connection dropped; a statement that saw it change lost its session to it. */
  drops = 0;
  lastDrop = '';

  constructor(settings: TunnelSettings) {
    this.#settings = settings;
  }

  /** `user@host:port` of the tunnel's own SSH server, for messages. */
  get name(): string {
    const hops = resolveHops(this.#settings.ssh, this.#settings.home);
    const last = hops[hops.length - 1]!;
    return `${last.user}@${hostField(last.host, last.port)}`;
  }

  /** The local port the drivers connect to. */
  listen(): Promise<number> {
    this.#listening ??= new Promise((resolve, reject) => {
      const server = createServer((socket) => this.#forward(socket));
      this.#server = server;
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
    return this.#listening;
  }

  /** Opens the SSH connection unless it is open; a failure says which hop and why. */
  async ready(): Promise<void> {
    await this.#connect();
  }

  /**
   * Connects once, recording in Sluice's `known_hosts` every hop's host key that no known-hosts file
   * knows; a changed key is refused unless `replace`, a revoked one always. Each hop's key is reported
   * as it is seen, and stays recorded when a later step (authentication, the next hop) fails.
   */
  async trust(replace: boolean, report: (key: TrustedKey) => void): Promise<void> {
    const clients = await this.#open((hop, key, known) => {
      const check = checkHostKey(known, key);
      if (check.status === 'revoked') throw this.#keyRevoked(hop, key, check.by);
      if (check.status === 'changed' && !replace) throw this.#keyRefused(hop, key, check.known);
      if (check.status !== 'known') addHostKey(this.#settings.knownHostsFile, hop.host, hop.port, key, check.status === 'changed');
      const status = check.status === 'known' ? 'known' : check.status === 'changed' ? 'replaced' : 'added';
      report({ host: hostField(hop.host, hop.port), fingerprint: `${keyType(key)} ${fingerprint(key)}`, status });
    });
    for (const client of clients) client.end();
  }

  async close(): Promise<void> {
    this.#end();
    const server = this.#server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #connect(): Promise<Client[]> {
    if (this.#session) return this.#session;
    const session = this.#open((hop, key, known) => this.#verify(hop, key, known));
    this.#session = session;
    session.then(
      (clients) => {
        const last = clients[clients.length - 1]!;
        last.once('close', () => {
          if (this.#session !== session) return;
          this.#session = undefined;
          this.drops += 1;
          this.lastDrop = `the SSH connection to ${this.name} closed`;
          for (const client of clients) client.end();
        });
        if (this.#channels === 0) this.#idleSoon();
      },
      () => {
        if (this.#session === session) this.#session = undefined;
      },
    );
    return session;
  }

  /** Connects hop by hop, each through a channel of the one before; `verify` throws to refuse a host key. */
  async #open(verify: Verify): Promise<Client[]> {
    const hops = resolveHops(this.#settings.ssh, this.#settings.home);
    // Loaded on first use, like the database drivers.
    const { default: ssh2 } = await import('ssh2');
    const clients: Client[] = [];
    try {
      let sock: Duplex | undefined;
      for (const [index, hop] of hops.entries()) {
        const client = new ssh2.Client();
        clients.push(client);
        await this.#handshake(client, hop, sock, verify, ssh2.utils.parseKey);
        const next = hops[index + 1];
        if (next) sock = await forwardOut(client, next.host, next.port);
      }
      return clients;
    } catch (error) {
      for (const client of clients) client.end();
      throw error;
    }
  }

  async #handshake(client: Client, hop: Hop, sock: Duplex | undefined, verify: Verify, parseKey: ParseKey): Promise<void> {
    const { auth, tried } = this.#auth(hop, parseKey);
    const known = await knownKeys([this.#settings.knownHostsFile, ...hop.userKnownHostsFiles], hop.host, hop.port);
    const preferred = preferredAlgorithms(known);
    return new Promise((resolve, reject) => {
      let refused: Error | undefined;
      client.once('ready', () => {
        client.on('error', ignore);
        resolve();
      });
      client.once('error', (error: Error & { level?: string }) => reject(refused ?? explain(error, hop, tried)));
      const config: ConnectConfig = {
        host: hop.host,
        port: hop.port,
        username: hop.user,
        ...(sock ? { sock } : {}),
        ...auth,
        readyTimeout: SSH.connectTimeoutMs,
        keepaliveInterval: SSH.keepaliveMs,
        keepaliveCountMax: 3,
        // ssh2 applies these in order: the known types move to the front of its default list.
        ...(preferred.length > 0 ? { algorithms: { serverHostKey: { remove: preferred, prepend: preferred, append: [] } } } : {}),
        hostVerifier: (key: Buffer) => {
          try {
            verify(hop, key, known);
            return true;
          } catch (error) {
            refused = error as Error;
            return false;
          }
        },
      };
      client.connect(config);
    });
  }

  /** The key file (given, from `~/.ssh/config`, or OpenSSH's default ones) and the agent, if chosen. */
  #auth(hop: Hop, parseKey: ParseKey): { auth: Pick<ConnectConfig, 'privateKey' | 'passphrase' | 'agent'>; tried: string } {
    const { passphrase } = this.#settings.ssh;
    const useAgent = this.#settings.ssh.agent === true;
    const agent = process.env.SSH_AUTH_SOCK;
    if (useAgent && !agent) throw new DriverFailure('not_connected', 'the SSH tunnel is to use the SSH agent, but no agent is running (SSH_AUTH_SOCK is not set)');
    const keyFile = hop.keyFile ?? (useAgent ? undefined : defaultKeys(this.#settings.home).find((file) => existsSync(file)));
    let privateKey: Buffer | undefined;
    if (keyFile) {
      try {
        privateKey = readFileSync(keyFile);
      } catch (error) {
        throw new DriverFailure('not_connected', `cannot read the SSH key ${keyFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      const parsed = parseKey(privateKey, passphrase);
      if (parsed instanceof Error && passphrase !== undefined && hop.keyFile === this.#settings.ssh.keyFile) {
        throw new DriverFailure('not_connected', `the SSH key ${keyFile} cannot be decrypted with its saved passphrase: ${parsed.message}`);
      }
      if (parsed instanceof Error) {
        if (!/passphrase/.test(parsed.message)) throw new DriverFailure('not_connected', `the SSH key ${keyFile} is not a private key Sluice can read: ${parsed.message}`);
        if (!useAgent) {
          throw new DriverFailure(
            'not_connected',
            `the SSH key ${keyFile} is protected by a passphrase and none is saved with the connection: add it to the SSH agent (ssh-add ${keyFile}) and let the connection use the agent` +
              `, or save the passphrase with the connection (sluice connections update ${this.#settings.connectionId} --ssh … --ssh-key ${keyFile} --ssh-passphrase-stdin)`,
          );
        }
        privateKey = undefined;
      }
    }
    const tried = [privateKey ? `the key ${keyFile}` : '', useAgent ? "the SSH agent's keys" : ''].filter(Boolean).join(' and ') || 'no key (none given, none in ~/.ssh)';
    const decrypt = privateKey && passphrase !== undefined ? { passphrase } : {};
    return { auth: { ...(privateKey ? { privateKey, ...decrypt } : {}), ...(useAgent ? { agent } : {}) }, tried };
  }

  #verify(hop: Hop, key: Buffer, known: KnownKey[]): void {
    const check = checkHostKey(known, key);
    if (check.status === 'revoked') throw this.#keyRevoked(hop, key, check.by);
    if (check.status === 'unknown') {
      throw new DriverFailure(
        'not_connected',
        `the SSH host key of ${hostField(hop.host, hop.port)} is not known: ${keyType(key)} ${fingerprint(key)}. ` +
          `If that is the server's key, accept it with: sluice connections trust-host ${this.#settings.connectionId}`,
      );
    }
    if (check.status === 'changed') throw this.#keyRefused(hop, key, check.known);
  }

  #keyRefused(hop: Hop, key: Buffer, known: KnownKey[]): DriverFailure {
    return new DriverFailure(
      'not_connected',
      `the SSH host key of ${hostField(hop.host, hop.port)} has CHANGED to ${keyType(key)} ${fingerprint(key)} (known: ${known.map(described).join(', ')}); ` +
        `refusing to connect, as the connection may be intercepted. If the server's key was replaced on purpose, accept the new one with: ` +
        `sluice connections trust-host ${this.#settings.connectionId} --replace`,
    );
  }

  #keyRevoked(hop: Hop, key: Buffer, by: KnownKey): DriverFailure {
    return new DriverFailure(
      'not_connected',
      `the SSH host key of ${hostField(hop.host, hop.port)}, ${keyType(key)} ${fingerprint(key)}, is REVOKED (@revoked in ${by.file}:${by.line}); refusing to connect`,
    );
  }

  /** A driver's connection to the local port: one channel to the database server, or closed at once. */
  #forward(socket: Socket): void {
    socket.on('error', ignore);
    this.#connect().then(
      (clients) =>
        clients[clients.length - 1]!.forwardOut('127.0.0.1', 0, this.#settings.target.host, this.#settings.target.port, (error, channel) => {
          if (error || socket.destroyed) {
            channel?.close();
            socket.destroy();
            return;
          }
          this.#channels += 1;
          this.#settings.clock.clearTimeout(this.#idleTimer);
          let open = true;
          const closed = () => {
            if (!open) return;
            open = false;
            this.#channels -= 1;
            socket.destroy();
            channel.close();
            if (this.#channels === 0) this.#idleSoon();
          };
          channel.on('error', ignore);
          channel.on('close', closed);
          socket.on('close', closed);
          socket.pipe(channel).pipe(socket);
        }),
      () => socket.destroy(),
    );
  }

  #idleSoon(): void {
    this.#settings.clock.clearTimeout(this.#idleTimer);
    this.#idleTimer = this.#settings.clock.setTimeout(() => {
      if (this.#channels === 0) this.#end();
    }, SSH.idleCloseMs);
  }

  /** Closes the SSH connection on purpose (not a drop). */
  #end(): void {
    this.#settings.clock.clearTimeout(this.#idleTimer);
    const session = this.#session;
    this.#session = undefined;
    session?.then((clients) => clients.forEach((client) => client.end()), ignore);
  }
}

/**
 * Why `passphrase` does not open the private key in `keyFile` (it cannot be read, is not a key, or the
 * passphrase does not decrypt it), or undefined when it does. Never says the passphrase.
 */
export async function keyPassphraseProblem(keyFile: string, passphrase: string): Promise<string | undefined> {
  let key: Buffer;
  try {
    key = readFileSync(keyFile);
  } catch (error) {
    return `cannot read the SSH key ${keyFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  const { default: ssh2 } = await import('ssh2');
  const parsed = ssh2.utils.parseKey(key, passphrase);
  if (!(parsed instanceof Error)) return undefined;
  if (!/passphrase/i.test(parsed.message)) {
    return `the SSH key ${keyFile} is not a private key Sluice can read: ${parsed.message}`;
  }
  return `the SSH key ${keyFile} cannot be decrypted with the given passphrase`;
}

/** A known key as the messages name it: its type, fingerprint and the line that holds it. */
const described = (known: KnownKey) => `${keyType(known.key)} ${fingerprint(known.key)} in ${known.file}:${known.line}`;

function forwardOut(client: Client, host: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) =>
    client.forwardOut('127.0.0.1', 0, host, port, (error, channel) =>
      error ? reject(new DriverFailure('not_connected', `the SSH jump host could not reach ${hostField(host, port)}: ${error.message}`)) : resolve(channel),
    ),
  );
}

/** An ssh2 failure as a sentence about the hop it happened on. */
function explain(error: Error & { level?: string }, hop: Hop, tried: string): DriverFailure {
  const where = `${hop.user}@${hostField(hop.host, hop.port)}`;
  if (error.level === 'client-authentication') {
    return new DriverFailure('not_connected', `SSH authentication as ${where} failed: the server accepted none of ${tried}`);
  }
  if (error.level === 'client-timeout') {
    return new DriverFailure('timeout', `the SSH server ${hostField(hop.host, hop.port)} did not complete the handshake within ${SSH.connectTimeoutMs / 1000} s`);
  }
  if (error.level === 'client-socket') {
    return new DriverFailure('not_connected', `cannot reach the SSH server ${hostField(hop.host, hop.port)}: ${error.message}`);
  }
  return new DriverFailure('not_connected', `the SSH connection to ${where} failed: ${error.message}`);
}
