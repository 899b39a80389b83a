import { randomBytes } from 'node:crypto';
import { childOf, heldReadId, type Supervisor } from '../../machines/supervisor.js';
import type { Column, HandOn, HeldRead, PageOptions, ResultSet, Rows } from '../db/database.js';
import { TextSeal } from '../protocol/textSeal.js';
import { ActorKeys } from './actorKeys.js';
import type { AppClock } from '../core/clock.js';
import { RESULT_CURSORS } from '../core/contract.js';
import { ToolError } from '../core/errors.js';

/** Whose a cursor is: the token, the connection (and database) and the tool it was issued for. */
export type CursorScope = { principalId: string; connectionKey: string; tool: string };

/** A page read on with a cursor, and the cursor of the page after it when rows remain. */
export type ReadOn = { result: ResultSet<Rows>; nextCursor?: string };

/**
 * How many of a page's rows its reader hands on, told the cursor the answer would carry if rows remain
 * after them (the answer is sized with it): `Database.holdRead`'s `handOn`, with the cursor.
 */
export type CursorHandOn = (page: ResultSet<Rows>, more: boolean, cursor: string) => Promise<number>;

/** What every page of a read goes through before it is handed on (a connection's private columns masked). */
export type PageMask = (columns: Column[], rows: Rows) => { columns: Column[]; rows: Rows };

/** A read not yet held: the cursor its first page carries if `hold` holds it (its answer is sized with it). */
export type Reserved = { readonly cursor: string };

type Held = CursorScope & {
  key: string;
  /** Tells this read from an earlier one whose actor key it reuses. */
  nonce: string;
  sql: string;
  /** Applied to each later page as to the first, before its rows are counted or handed on. */
  mask: PageMask | undefined;
  rest: HeldRead;
  /** Pages handed on so far: only the cursor of the last one reads on. */
  page: number;
  reading: boolean;
  closed?: Promise<void>;
};

/** A read whose cursor was reserved, not yet held. */
type Reservation = Omit<Held, 'rest'>;

/** What a cursor carries, sealed: [key, nonce, token, connection, tool, page, expires at]. */
type CursorBody = [string, string, string, string, string, number, number];

const MAX_CURSOR_CHARS = 1_024;
const minutes = (ms: number) => `${ms / 60_000} minutes`;
const refused = (why: string) => new ToolError('invalid_argument', `the cursor ${why}`);

/**
 * Reads held open behind `next_cursor`s, each a `heldRead` child of the supervisor, which ends it when
 * its last page is read, when it has been idle `RESULT_CURSORS.idleMs`, when its token is revoked and
 * when the server stops; `releaseConnection` ends those of a connection that was removed or changed.
 * An ended read closes its statement and transaction and gives its session back. A cursor is sealed
 * (protocol/textSeal.ts) and names its token, connection and tool, its page and when it expires, so a
 * refusal can say which: malformed, another token's, another connection's or tool's, expired, closed.
 */
export class HeldReads {
  readonly #supervisor: Supervisor;
  readonly #clock: AppClock;
  readonly #seal = new TextSeal();
  readonly #open = new Map<string, Held>();
  /** Why reads were evicted (`#evicted`), by their nonce, oldest first. */
  readonly #evictions = new Map<string, string>();
  /** Reads not yet held, by the cursor they will carry (`reserve`). */
  readonly #reserved = new Map<string, Reservation>();
  /** Reused keys: see ActorKeys. */
  readonly keys = new ActorKeys(heldReadId);

  constructor(supervisor: Supervisor, clock: AppClock) {
    this.#supervisor = supervisor;
    this.#clock = clock;
  }

  /**
   * The cursor a read of `sql` for `scope` will carry if it is held (`hold`), its later pages passed
   * through `mask` as its first was; one not held gives its key back (`unused`).
   */
  reserve(scope: CursorScope, sql: string, mask?: PageMask): Reserved {
    const reservation: Reservation = { ...scope, key: this.keys.take(), nonce: randomBytes(9).toString('base64url'), sql, mask, page: 1, reading: false };
    const cursor = this.#cursor(reservation);
    this.#reserved.set(cursor, reservation);
    return { cursor };
  }

  /** A reserved cursor whose read was not held: its key names the next read. */
  unused(reserved: Reserved): void {
    const reservation = this.#reserved.get(reserved.cursor);
    if (!reservation) return;
    this.#reserved.delete(reserved.cursor);
    this.keys.reaped(heldReadId(reservation.key));
  }

  /**
   * Keeps `rest` open behind the `reserved` cursor, or closes it and refuses (`invalid_argument`) when
   * its token has `RESULT_CURSORS.perToken` open, or its connection `perConnection` (fewer on a pool of
   * fewer sessions: one of `sessions` always stays for other statements). Returns the first cursor.
   */
  async hold(reserved: Reserved, rest: HeldRead, sessions: number): Promise<string> {
    const reservation = this.#reserved.get(reserved.cursor);
    if (!reservation) throw new Error('hold: the cursor was not reserved');
    this.#reserved.delete(reserved.cursor);
    const scope: CursorScope = reservation;
    const open = [...this.#open.values()];
    const ofToken = open.filter((held) => held.principalId === scope.principalId).length;
    const ofConnection = open.filter((held) => held.connectionKey === scope.connectionKey).length;
    const connectionCap = Math.max(1, Math.min(RESULT_CURSORS.perConnection, sessions - 1));
    const over =
      ofToken >= RESULT_CURSORS.perToken
        ? `this token has ${ofToken} cursors open, the most`
        : ofConnection >= connectionCap
          ? `this connection has ${ofConnection} cursors open, the most it holds`
          : undefined;
    if (over) {
      this.keys.reaped(heldReadId(reservation.key));
      await rest.close();
      throw new ToolError(
        'invalid_argument',
        `the answer was cut and ${over}: read one to its end or let one expire (${minutes(RESULT_CURSORS.idleMs)} after its last page), or ask for fewer rows`,
      );
    }
    const held: Held = { ...reservation, rest };
    this.#open.set(held.key, held);
    this.#supervisor.send({
      type: 'read.hold',
      key: held.key,
      input: { principalId: scope.principalId, connectionKey: scope.connectionKey, settle: () => this.#settle(held) },
    });
    // Heard once its actor lives: it may have been evicted already, while its first page was being cut.
    rest.onEvicted?.((why) => this.#evicted(held, why));
    return reserved.cursor;
  }

  /**
   * The next page of the read `cursor` names, for `scope`; `sql`, when given, must be the statement it
   * reads; `handOn` how many of its rows leave, told the cursor of the page after it. That cursor comes
   * back while rows remain after them; the read ends after its last.
   */
  async next(scope: CursorScope, cursor: string, sql: string | undefined, options: Omit<PageOptions, 'handOn'>, handOn?: CursorHandOn): Promise<ReadOn> {
    const held = this.#heldFor(scope, cursor);
    if (sql !== undefined && sql !== held.sql) throw refused('reads on another statement: leave sql out, or pass the statement it was issued for');
    held.reading = true;
    this.#send(held, 'page');
    try {
      const nextCursor = this.#cursor({ ...held, page: held.page + 1 });
      const masked = (page: ResultSet<Rows>): ResultSet<Rows> => (held.mask ? { ...page, ...held.mask(page.columns, page.rows) } : page);
      const pageHandOn: HandOn | undefined = handOn && ((page, more) => handOn(masked(page), more, nextCursor));
      const read = await held.rest.next({ ...options, ...(pageHandOn ? { handOn: pageHandOn } : {}) });
      const { more } = read;
      const result = masked(read.result);
      if (!more) {
        this.#send(held, 'finish');
        await held.closed;
        return { result };
      }
      held.page += 1;
      this.#send(held, 'page');
      return { result, nextCursor };
    } catch (error) {
      this.#send(held, 'release');
      await held.closed;
      throw error;
    } finally {
      held.reading = false;
    }
  }

  /** Ends the held reads of connection `id` (every database of it) and waits for their sessions to be given back. */
  async releaseConnection(id: string): Promise<void> {
    const ofConnection = [...this.#open.values()].filter((held) => held.connectionKey === id || held.connectionKey.startsWith(`${id}\u0000`));
    for (const held of ofConnection) this.#send(held, 'release');
    await Promise.all(ofConnection.map((held) => held.closed));
  }

  /** Ends every held read (the server stops) once the supervisor has been told, and waits for them. */
  async closed(): Promise<void> {
    await Promise.all([...this.#open.values()].map((held) => held.closed));
  }

  /** Held reads open now (for tests and the inspector). */
  get size(): number {
    return this.#open.size;
  }

  #heldFor(scope: CursorScope, cursor: string): Held {
    const text = cursor.length <= MAX_CURSOR_CHARS ? this.#seal.open(cursor) : undefined;
    if (text === undefined) throw refused('is malformed or was not issued by this server (cursors do not outlive a restart)');
    const [key, nonce, principalId, connectionKey, tool, page, expiresAt] = JSON.parse(text) as CursorBody;
    if (principalId !== scope.principalId) throw refused('is not yours: it was issued to another token');
    if (connectionKey !== scope.connectionKey) throw refused('was issued for another connection or database');
    if (tool !== scope.tool) throw refused(`was issued by ${tool}, not ${scope.tool}`);
    const held = this.#open.get(key);
    const evicted = this.#evictions.get(nonce);
    if (evicted) throw refused(`is closed: ${evicted}; run the statement again`);
    if (held === undefined || held.nonce !== nonce) {
      if (this.#clock.now() >= expiresAt) throw refused(`expired: its read was closed ${minutes(RESULT_CURSORS.idleMs)} after its last page; run the statement again`);
      throw refused('is closed: its read ended (read to its end, its connection changed or the server stopped); run the statement again');
    }
    if (page !== held.page) throw refused('was used already: pass the next_cursor of the latest page');
    if (held.reading) throw refused('is being read: wait for its page');
    return held;
  }

  #cursor(held: Reservation): string {
    const body: CursorBody = [held.key, held.nonce, held.principalId, held.connectionKey, held.tool, held.page, this.#clock.now() + RESULT_CURSORS.idleMs];
    return this.#seal.seal(JSON.stringify(body));
  }

  #send(held: Held, type: 'page' | 'finish' | 'release'): void {
    const actor = childOf(this.#supervisor, heldReadId(held.key));
    // Its actor is gone already (the supervisor stopped): the read ends all the same.
    if (actor) actor.send({ type });
    else if (type !== 'page') this.#settle(held);
  }

  /** The actor ended: the read closes and gives its session back. */
  #settle(held: Held): void {
    if (this.#open.get(held.key) === held) this.#open.delete(held.key);
    held.closed ??= held.rest.close().catch(() => {});
  }

  /**
   * A read SessionShares closed to free a session for its token ends at once (its actor too); its
   * cursor still says why, for as long as the last `RESULT_CURSORS.evictionsRemembered` evictions.
   */
  #evicted(held: Held, why: string): void {
    this.#evictions.set(held.nonce, why);
    for (const nonce of this.#evictions.keys()) {
      if (this.#evictions.size <= RESULT_CURSORS.evictionsRemembered) break;
      this.#evictions.delete(nonce);
    }
    this.#send(held, 'release');
  }
}
