import mysql from 'mysql2';
import { describe, expect, it } from 'vitest';
import { exactCast, exactRow } from '../../../src/db/engines/mysql/mysqlExactValues.js';

/** A field as mysql2's typeCast sees it, over bytes it would read from the packet. */
const field = (type: string, bytes: Buffer | null, text: string | null = null) => ({ type, string: () => text, buffer: () => bytes });

describe("MySQL's values in exact form (a kept write's reads)", () => {
  it('writes numbers as text, a FLOAT as the single it holds and -0 as itself, without reading their bytes', () => {
    const numbers = [
      exactCast(field('FLOAT', null), () => 1.2345677614212036),
      exactCast(field('DOUBLE', null), () => -0),
      exactCast(field('LONGLONG', null), () => '9007199254740993'),
      exactCast(field('TINY', null), () => 7),
      exactCast(field('DOUBLE', null), () => null),
    ];
    expect(numbers).toEqual(['1.2345677614212036', '-0', '9007199254740993', '7', null]);
  });

  it('takes dates and times as the driver writes them out, and everything else as bytes', () => {
    expect(exactCast(field('DATETIME', null, '2024-02-29 23:59:59.999999'), () => undefined)).toBe('2024-02-29 23:59:59.999999');
    expect(exactCast(field('BLOB', Buffer.from([0, 255])), () => undefined)).toEqual(Buffer.from([0, 255]));
    expect(exactCast(field('NEWDECIMAL', null), () => undefined)).toBeNull();
  });

  it('makes the bytes of a binary column base64 and other bytes UTF-8 text, DECIMAL and JSON included', () => {
    const binary = 63;
    const fields = [
      { columnType: mysql.Types.BLOB, characterSet: binary },
      { columnType: mysql.Types.VAR_STRING, characterSet: binary },
      { columnType: mysql.Types.BIT, characterSet: binary },
      { columnType: mysql.Types.BLOB, characterSet: 45 },
      { columnType: mysql.Types.NEWDECIMAL, characterSet: binary },
      { columnType: mysql.Types.JSON, characterSet: binary },
      { columnType: mysql.Types.LONGLONG, characterSet: binary },
    ];
    const row = [Buffer.from([0, 1, 255]), Buffer.from('a '), Buffer.from([1, 2]), Buffer.from('é 😀  '), Buffer.from('-1.50'), Buffer.from('{"a": 1}'), '42'];
    expect(exactRow(row, fields)).toEqual([{ b: 'AAH/' }, { b: 'YSA=' }, { b: 'AQI=' }, 'é 😀  ', '-1.50', '{"a": 1}', '42']);
  });
});
