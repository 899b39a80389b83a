import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultContentText, resultText } from '../../src/capabilities/resultText.js';
import { RESULTS } from '../../src/core/contract.js';
import { JsonRows } from '../../src/db/database.js';
import { SqliteDatabase } from '../../src/db/engines/sqlite/sqliteDatabase.js';
import { toJsonText } from '../../src/protocol/rawJson.js';

/**
 * The SQLite query process writes each result's rows as the lines of its text beside their JSON, so that
 * the server splices them into the response unparsed: those lines must be the ones resultText writes of
 * the JSON a client reads in structuredContent.
 */

const TRICKY_TEXT = [
  '',
  'NULL',
  'null',
  ' lead',
  'trail ',
  '\u00a0nbsp',
  'bom\ufeff',
  'tab\there',
  'two\nlines',
  'cr\r',
  'say "hi"',
  'back\\slash',
  'nul\u0000',
  'bell\u0007',
  'del\u007f',
  'sep\u2028',
  'para\u2029',
  'smile 🙂',
  'comma, text',
  '0x41',
  '9007199254740993',
];
const TRICKY_NUMBERS = [0, -0, 1.5, -2.25, 1e300, 1e-300, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
const TRICKY_INTEGERS = [0n, -1n, 9007199254740991n, 9007199254740993n, -9223372036854775808n, 9223372036854775807n];
const BLOBS = [Buffer.alloc(0), Buffer.from([0, 255, 34, 92]), Buffer.alloc(RESULTS.cellBytes, 7)];
const LONG_TEXT = ['"x'.repeat(RESULTS.cellBytes), 'y'.repeat(RESULTS.cellBytes + 1)];

let dir: string;
let db: SqliteDatabase;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-row-lines-'));
  const path = join(dir, 'lines.sqlite');
  const file = new BetterSqlite(path);
  file.exec('CREATE TABLE tricky (v ANY); CREATE TABLE many (id INTEGER, label TEXT, amount REAL, note TEXT, data BLOB)');
  const insert = file.prepare('INSERT INTO tricky VALUES (?)');
  for (const value of [...TRICKY_TEXT, ...TRICKY_NUMBERS, ...TRICKY_INTEGERS, ...BLOBS, ...LONG_TEXT, null]) insert.run(value);
  file.exec(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2345)
    INSERT INTO many SELECT x, 'row ' || x, x * 1.5, CASE x % 3 WHEN 0 THEN NULL WHEN 1 THEN '' ELSE 'a' || char(9) || 'b' END, x'00ff' FROM c`);
  file.close();
  db = new SqliteDatabase(path);
});
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A read's result as execute_query passes it on: the rows' JSON and their written lines. */
async function read(sql: string, maxRows = 10_000) {
  const result = await db.read(sql, { maxRows, maxBytes: RESULTS.capBytes, timeoutMs: 60_000, signal: new AbortController().signal, rowsAs: 'json' });
  expect(result.rows).toBeInstanceOf(JsonRows);
  return { columns: result.columns, rows: result.rows as JsonRows, cells_truncated: result.cellsCut ?? 0 };
}

/** The text the server sends, and the one resultText writes of what a client reads. */
function texts(structured: Awaited<ReturnType<typeof read>>) {
  const sent = JSON.parse(toJsonText({ text: resultContentText(structured) })) as { text: string };
  const read = JSON.parse(toJsonText(structured)) as Record<string, unknown>;
  return { sent: sent.text, fromJson: resultText(read) };
}

describe('the row lines the SQLite query process writes', () => {
  it('equal resultText of the JSON for tricky values: quoted strings, NULL, big integers, blobs, cut cells', async () => {
    const structured = await read('SELECT v, typeof(v) AS kind FROM tricky ORDER BY rowid');
    expect(structured.rows.lines).toEqual(expect.any(String));
    expect(structured.cells_truncated).toBe(3);
    const { sent, fromJson } = texts(structured);
    expect(sent).toBe(fromJson);
    const lines = sent.split('\n');
    expect(lines.slice(0, 5)).toEqual(['v\tkind', '""\ttext', '"NULL"\ttext', 'null\ttext', '" lead"\ttext']);
    expect(lines).toContain('NULL\treal'); // Infinity, which JSON carries as null
    expect(lines).toContain('9223372036854775807\tinteger');
    expect(lines).toContain('0x00ff225c\tblob');
    expect(lines).toContain('NULL\tnull');
  });

  it('join the chunks sent ahead of the reply, and write nothing for no rows', async () => {
    for (const maxRows of [1_000, 2_000, 2_345]) {
      const structured = await read('SELECT * FROM many ORDER BY id', maxRows);
      const { sent, fromJson } = texts(structured);
      expect(sent).toBe(fromJson);
      expect(sent.split('\n')).toHaveLength(maxRows + 2);
    }
    const none = await read('SELECT * FROM many WHERE id < 0');
    expect(none.rows.lines).toBe('');
    expect(texts(none)).toEqual({ sent: 'id\tlabel\tamount\tnote\tdata\ncells_truncated: 0', fromJson: 'id\tlabel\tamount\tnote\tdata\ncells_truncated: 0' });
  });
});
