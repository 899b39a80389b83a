import type { FailureKind } from './driverFailure.js';

// What each engine's errors mean, in one table per engine, read by code (never by message where a code
// exists). `not_connected` is only for a session that could not be opened or was lost: a statement the
// server refused, however it was refused, is `query_failed`. docs/catalogue.md ("Tool errors") has the
// same table; test/e2e/failureKinds.test.ts triggers each row that a statement can trigger.

/** Node's codes for a socket that broke or never connected. */
const SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * PostgreSQL SQLSTATEs of a lost or refused session: class 08 (connection exception) but 08P01, a
 * protocol violation such as a Bind with the wrong number of values; and the shutdowns of class 57P.
 */
const POSTGRES_LOST = new Set(['08000', '08001', '08003', '08004', '08006', '08007', '57P01', '57P02', '57P03', '57P04', '57P05']);
const POSTGRES_READ_ONLY = '25006';
/** What `pg` says, without a code, of a session that ended under a statement. */
const POSTGRES_ENDED = /^Connection terminated|is not queryable/;

/** A PostgreSQL failure by its SQLSTATE, or by pg's words when there is none (an error of pg's own is `query_failed`). */
export function postgresFailureKind(code: string | undefined, message: string): FailureKind {
  if (code === POSTGRES_READ_ONLY) return 'not_read_only';
  if (code !== undefined) return POSTGRES_LOST.has(code) || SOCKET_CODES.has(code) ? 'not_connected' : 'query_failed';
  return POSTGRES_ENDED.test(message) ? 'not_connected' : 'query_failed';
}

/**
 * MySQL and MariaDB error numbers of a lost session: ER_SERVER_SHUTDOWN 1053, ER_ABORTING_CONNECTION 1152,
 * ER_NET_READ_ERROR 1158, ER_NET_READ_INTERRUPTED 1159, ER_NET_ERROR_ON_WRITE 1160,
 * ER_NET_WRITE_INTERRUPTED 1161, ER_CONNECTION_KILLED 1927, CR_SERVER_GONE_ERROR 2006, CR_SERVER_LOST
 * 2013, ER_CLIENT_INTERACTION_TIMEOUT 4031. Not ER_NET_PACKET_TOO_LARGE 1153 or
 * ER_NET_PACKETS_OUT_OF_ORDER 1156: the server refused what was sent, and closed the session after.
 */
const MYSQL_LOST = new Set([1053, 1152, 1158, 1159, 1160, 1161, 1927, 2006, 2013, 4031]);
const MYSQL_READ_ONLY = 1792;
/** mysql2's code for a session that ended under a statement. */
export const MYSQL_CONNECTION_LOST = 'PROTOCOL_CONNECTION_LOST';

/** A MySQL or MariaDB failure by its error number, or mysql2's code when there is none. */
export function mysqlFailureKind(errno: number | undefined, code: string | undefined): FailureKind {
  if (errno === MYSQL_READ_ONLY) return 'not_read_only';
  if (errno !== undefined && MYSQL_LOST.has(errno)) return 'not_connected';
  return code === MYSQL_CONNECTION_LOST || SOCKET_CODES.has(code ?? '') ? 'not_connected' : 'query_failed';
}

/** SQLite result codes of a file that cannot be opened as a database (SQLite's "unreachable"). */
const SQLITE_UNREACHABLE = new Set(['SQLITE_CANTOPEN', 'SQLITE_NOTADB']);

/** A SQLite failure by its result code (or the query process's `not_read_only`). */
export function sqliteFailureKind(code: string): FailureKind {
  if (code === 'not_read_only') return 'not_read_only';
  return SQLITE_UNREACHABLE.has(code) ? 'not_connected' : 'query_failed';
}

/**
 * A DuckDB failure: DuckDB runs in this process and has no session to lose (a database closed under a
 * statement is told apart where it is closed); it gives no code, only its error type and message.
 */
export function duckdbFailureKind(message: string): FailureKind {
  return /read-only (mode|transaction)/i.test(message) ? 'not_read_only' : 'query_failed';
}
