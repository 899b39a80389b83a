import { describe, expect, it } from 'vitest';
import { resultContentText, resultText } from '../../../src/capabilities/resultText.js';
import { JsonRows } from '../../../src/db/database.js';
import { RawJson, toJsonText } from '../../../src/protocol/rawJson.js';

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

  it('splices row lines the driver wrote, JSON-escaped, into the content as they stand', () => {
    const rows = [[1, 'a\tb'], [null, 'x"y']];
    const written = new JsonRows(JSON.stringify(rows), 2, JSON.stringify('1\t"a\\tb"\nNULL\t"x\\"y"').slice(1, -1));
    const structured = { columns: [{ name: 'n', type: 'int' }, { name: 's', type: 'text' }], rows: written, note: 'tab\there' };
    const expected = resultText({ ...structured, rows });
    expect(expected).toBe('n\ts\n1\t"a\\tb"\nNULL\t"x\\"y"\nnote: "tab\\there"');
    const content = resultContentText(structured);
    expect(content).toBeInstanceOf(RawJson);
    expect(toJsonText({ text: content })).toBe(JSON.stringify({ text: expected }));
    expect(resultText(structured)).toBe(expected);
    // No rows: no line between the header and the fields.
    const none = { columns: [{ name: 'n', type: 'int' }], rows: new JsonRows('[]', 0, ''), row_count: 0 };
    expect(JSON.parse(toJsonText(resultContentText(none)))).toBe('n\nrow_count: 0');
    // Values, or lines under an indented key (which would need the indent), are rendered here as a plain string.
    expect(resultContentText({ columns: [{ name: 'n', type: 'int' }], rows: [[1]] })).toBe('n\n1');
    expect(resultContentText({ plan: { columns: [{ name: 'n', type: 'int' }], rows: new JsonRows('[[1]]', 1, '1') } })).toBe('plan:\n  n\n  1');
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
