import { describe, expect, it } from 'vitest';
import { resultText } from '../../../src/capabilities/resultText.js';
import { JsonRows } from '../../../src/db/database.js';

/** The text a model reads of a tool result: compact, one header row per table, every value unambiguous. */
describe('resultText', () => {
  it('renders a result set as a table with one header row, then its other fields', () => {
    const text = resultText({
      columns: [
        { name: 'id', type: 'INTEGER' },
        { name: 'title', type: 'TEXT' },
      ],
      rows: [
        [1, 'Dune'],
        [2, null],
      ],
      row_count: 2,
      is_truncated: false,
      statement_kind: 'read',
    });
    expect(text).toBe(['id\ttitle', '1\tDune', '2\tNULL', 'row_count: 2', 'is_truncated: false', 'statement_kind: read'].join('\n'));
  });

  it('reads rows a driver serialised already', () => {
    const text = resultText({ columns: [{ name: 'n', type: 'int' }], rows: new JsonRows('[[1],[2]]', 2), row_count: 2 });
    expect(text).toBe('n\n1\n2\nrow_count: 2');
  });

  it('quotes every string that would be ambiguous bare: empty, NULL, edge spaces, quotes, tabs, breaks, control characters', () => {
    const strings = ['', 'NULL', ' lead', 'trail ', 'tab\there', 'say "hi"', 'back\\slash', 'two\nlines', 'nul\u0000', 'sep\u2028'];
    const text = resultText({ columns: [{ name: 'v', type: 'text' }], rows: strings.map((s) => [s]) });
    expect(text.split('\n').slice(1)).toEqual(strings.map((s) => JSON.stringify(s)));
    // Bare text stays bare, so a value never reads as NULL or as two cells.
    expect(resultText({ columns: [{ name: 'v', type: 'text' }], rows: [['plain words, with commas | bars']] })).toBe('v\nplain words, with commas | bars');
    // In an inline list a comma would split an item: such an item is quoted.
    expect(resultText({ names: ['a, b', 'c'] })).toBe('names: "a, b", c');
  });

  it('renders lists of records as tables and lists of values inline', () => {
    const text = resultText({
      name: 'books',
      primary_key: ['id'],
      indexes: [],
      foreign_keys: [{ columns: ['author_id'], references_table: 'authors', on_delete: 'CASCADE' }],
    });
    expect(text).toBe(
      [
        'name: books',
        'primary_key: id',
        'indexes: (none)',
        'foreign_keys (1):',
        '  columns\treferences_table\ton_delete',
        '  author_id\tauthors\tCASCADE',
      ].join('\n'),
    );
  });

  it('writes multi-line text under its key, control characters escaped', () => {
    expect(resultText({ ddl: 'CREATE TABLE t (\n  id INT\u0007\n);' })).toBe('ddl:\n  CREATE TABLE t (\n    id INT\\u0007\n  );');
  });

  it('indents nested records and keeps records inside cells as JSON', () => {
    expect(resultText({ plan: { total: 3, rows: [{ step: 1, detail: { a: 1 } }] } })).toBe(
      ['plan:', '  total: 3', '  rows (1):', '    step\tdetail', '    1\t{"a":1}'].join('\n'),
    );
  });
});
