import { controlCharacterIn } from '../../core/controlCharacters.js';
import type { ServerAddress } from '../connections/connectionUrl.js';
import type { HeldResult, PagedRead, PageReader, ResultSet } from '../database.js';
import { DriverFailure } from '../driverFailure.js';
import type { HeldStatementOptions, ServerSessions, StatementOptions } from '../serverDatabase.js';
import type { SshTunnel } from './sshTunnel.js';
import type { RehearsalPlan, Rehearsed } from '../rehearsal.js';
import type { KeepPlan, KeptVerb, KeptWrite, RestorePlan, Restored } from '../keptWrites.js';

/**
 * A server's sessions through its SSH tunnel: each statement first has the tunnel open (or says why it
 * cannot be), and a statement whose tunnel dropped under it fails saying so; the next one reopens it.
 */
class TunneledSessions implements ServerSessions {
  readonly #sessions: ServerSessions;
  readonly #tunnel: SshTunnel;

  constructor(sessions: ServerSessions, tunnel: SshTunnel) {
    this.#sessions = sessions;
    this.#tunnel = tunnel;
  }

  async #through<T>(work: () => Promise<T>): Promise<T> {
    await this.#tunnel.ready();
    const drops = this.#tunnel.drops;
    try {
      return await work();
    } catch (error) {
      if (this.#tunnel.drops === drops) throw error;
      throw new DriverFailure('not_connected', `the SSH tunnel through ${this.#tunnel.name} dropped during the statement (${this.#tunnel.lastDrop}); the next statement opens it again`);
    }
  }

  check(sql: string, signal: AbortSignal): Promise<void> {
    return this.#through(() => this.#sessions.check(sql, signal));
  }

  read(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#through(() => this.#sessions.read(sql, options));
  }

  readPages(sql: string, options: StatementOptions, onPage: PageReader): Promise<PagedRead> {
    return this.#through(() => this.#sessions.readPages(sql, options, onPage));
  }

  /** The held read's later pages go over the same tunnel; a tunnel that drops fails them as a lost session. */
  holdRead(sql: string, options: HeldStatementOptions): Promise<HeldResult> {
    const { holdRead } = this.#sessions;
    if (!holdRead) return this.#through(async () => ({ result: await this.#sessions.read(sql, options) }));
    return this.#through(() => holdRead.call(this.#sessions, sql, options));
  }

  write(sql: string, options: StatementOptions): Promise<ResultSet> {
    return this.#through(() => this.#sessions.write(sql, options));
  }

  rehearse(plan: RehearsalPlan, signal: AbortSignal): Promise<Rehearsed> {
    return this.#through(() => this.#sessions.rehearse(plan, signal));
  }

  keepWrite(plan: KeepPlan): Promise<KeptWrite> {
    return this.#through(() => this.#sessions.keepWrite(plan));
  }

  restoreRows(plan: RestorePlan): Promise<Restored> {
    return this.#through(() => this.#sessions.restoreRows(plan));
  }

  async whyNotKept(verb: KeptVerb, signal: AbortSignal): Promise<string | undefined> {
    return this.#sessions.whyNotKept ? this.#through(() => (this.#sessions.whyNotKept as NonNullable<ServerSessions['whyNotKept']>).call(this.#sessions, verb, signal)) : undefined;
  }

  async close(): Promise<void> {
    await this.#sessions.close();
    await this.#tunnel.close();
  }
}

/** The address options the drivers send as text in their start-up message or handshake. */
const TEXT_OPTIONS = ['host', 'user', 'database'] as const;

/**
 * The engine's sessions, made by `open` for the tunnel's local port when there is a tunnel. An option
 * holding a control character is never given to a driver (a NUL ends a value in PostgreSQL's start-up
 * message and MySQL's handshake): the capabilities refuse such a `database` first; this holds whatever
 * path an address took.
 */
export async function sessionsThrough(
  address: ServerAddress,
  tunnel: SshTunnel | undefined,
  open: (address: ServerAddress) => ServerSessions,
): Promise<ServerSessions> {
  for (const option of TEXT_OPTIONS) {
    const found = controlCharacterIn(address[option]);
    if (found) throw new DriverFailure('invalid_argument', `the connection's ${option} holds a control character (${found}); it is never sent to the server`);
  }
  if (!tunnel) return open(address);
  return new TunneledSessions(open({ ...address, host: '127.0.0.1', port: await tunnel.listen() }), tunnel);
}
