import { describe, expect, it } from 'vitest';
import { duckdbFailureKind, mysqlFailureKind, postgresFailureKind, sqliteFailureKind } from '../../../src/db/failureKinds.js';

describe('failure kinds: not_connected only for a session that could not be opened or was lost', () => {
  it.each([
    ['08P01', 'bind message supplies 0 parameters, but prepared statement "" requires 1', 'query_failed'],
    ['08006', 'connection failure', 'not_connected'],
    ['08003', 'connection does not exist', 'not_connected'],
    ['57P01', 'terminating connection due to administrator command', 'not_connected'],
    ['57014', 'canceling statement due to user request', 'query_failed'],
    ['25006', 'cannot execute INSERT in a read-only transaction', 'not_read_only'],
    ['42601', 'syntax error', 'query_failed'],
    ['ECONNRESET', 'read ECONNRESET', 'not_connected'],
    [undefined, 'Connection terminated unexpectedly', 'not_connected'],
    [undefined, 'Client has encountered a connection error and is not queryable', 'not_connected'],
    [undefined, 'Maximum call stack size exceeded', 'query_failed'],
  ] as const)('PostgreSQL %s (%s): %s', (code, message, kind) => {
    expect(postgresFailureKind(code, message)).toBe(kind);
  });

  it.each([
    [1064, 'ER_PARSE_ERROR', 'query_failed'],
    [1153, 'ER_NET_PACKET_TOO_LARGE', 'query_failed'],
    [1156, 'ER_NET_PACKETS_OUT_OF_ORDER', 'query_failed'],
    [1210, 'ER_WRONG_ARGUMENTS', 'query_failed'],
    [1792, 'ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION', 'not_read_only'],
    [1927, 'ER_CONNECTION_KILLED', 'not_connected'],
    [2013, 'CR_SERVER_LOST', 'not_connected'],
    [1158, 'ER_NET_READ_ERROR', 'not_connected'],
    [undefined, 'PROTOCOL_CONNECTION_LOST', 'not_connected'],
    [undefined, 'EPIPE', 'not_connected'],
    [undefined, undefined, 'query_failed'],
  ] as const)('MySQL %s %s: %s', (errno, code, kind) => {
    expect(mysqlFailureKind(errno, code)).toBe(kind);
  });

  it.each([
    ['SQLITE_CANTOPEN', 'not_connected'],
    ['SQLITE_NOTADB', 'not_connected'],
    ['SQLITE_CORRUPT', 'query_failed'],
    ['SQLITE_ABORT', 'query_failed'],
    ['SQLITE_ERROR', 'query_failed'],
    ['not_read_only', 'not_read_only'],
  ] as const)('SQLite %s: %s', (code, kind) => {
    expect(sqliteFailureKind(code)).toBe(kind);
  });

  it('DuckDB: a write in a read-only transaction, and anything else refused', () => {
    expect(duckdbFailureKind('Invalid Input Error: Cannot execute statement of type "INSERT" on database "memory" which is attached in read-only mode!')).toBe('not_read_only');
    expect(duckdbFailureKind('Catalog Error: Table with name nope does not exist!')).toBe('query_failed');
  });
});
