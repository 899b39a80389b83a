import mysql from 'mysql2';
import type { ExactValue } from '../../keptWrites.js';

/** The binary protocol's numbers: read as the driver reads them (a 64-bit integer past 2^53 as text), then as text. */
const NUMBERS = new Set(['TINY', 'SHORT', 'LONG', 'INT24', 'LONGLONG', 'FLOAT', 'DOUBLE', 'YEAR']);
/** Dates and times, which the driver writes out in full (a DATETIME(6)'s microseconds included). */
const TEMPORALS = new Set(['DATE', 'NEWDATE', 'DATETIME', 'TIMESTAMP', 'TIME']);
/** Types sent as text although their character set is `binary` (63). */
const TEXT_IN_BINARY = new Set<number>([mysql.Types.DECIMAL, mysql.Types.NEWDECIMAL, mysql.Types.JSON]);
const BINARY_CHARSET = 63;

type CastField = { type: string; string(): string | null; buffer(): Buffer | null };
type Field = { columnType?: number; type?: number; characterSet?: number };

/**
 * mysql2's `typeCast` for a kept write's reads, over the binary protocol (which `execute` speaks): a
 * FLOAT as the exact single it holds (the text protocol prints FLOAT to 6 digits, which reads back as
 * another value), -0 kept; dates and times as text; everything else as its bytes, which `exactRow` makes
 * text or base64 once the column's character set is known.
 */
export function exactCast(field: CastField, next: () => unknown): unknown {
  if (NUMBERS.has(field.type)) {
    const value = next();
    return value === null ? null : Object.is(value, -0) ? '-0' : String(value as number | string);
  }
  return TEMPORALS.has(field.type) ? field.string() : field.buffer();
}

/** A row `exactCast` read, as exact values: bytes of a `binary` column (BLOB, BINARY, BIT…) in base64, other bytes as UTF-8 text. */
export function exactRow(row: unknown[], fields: Field[]): ExactValue[] {
  return row.map((value, i) => {
    if (!Buffer.isBuffer(value)) return value as ExactValue;
    const field = fields[i];
    const binary = field?.characterSet === BINARY_CHARSET && !TEXT_IN_BINARY.has(field.columnType ?? field.type ?? -1);
    return binary ? { b: value.toString('base64') } : value.toString('utf8');
  });
}
