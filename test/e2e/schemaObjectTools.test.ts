import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { SCHEMA_OBJECTS_MAX_ITEMS } from '../../src/db/catalog/schemaObjectReads.js';
import { expectModernSuccess, expectToolError } from '../helpers/rpcAssertions.js';
import type { Engine } from '../../src/db/database.js';
import { skipListed } from '../helpers/duckdbSkips.js';
import { availableEngines, createFixture, type EngineFixture } from '../helpers/engines.js';
import { callTool, mcp, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Indexes, foreign keys, views, routines and triggers (issue 19) on each engine: the fixture gets a
 * unique index, a multi-column index, a trigger (DuckDB has none), on the servers a function and a
 * procedure, on DuckDB two macros, and every tool's structured answer is checked whole.
 */

const engines = await availableEngines();

const SCHEMA_OBJECT_TOOLS = ['list_indexes', 'list_foreign_keys', 'list_views', 'get_view_definition', 'list_routines', 'list_triggers'];

/** What each engine gets on top of the shared fixture. */
const EXTRAS: Record<Engine, string[]> = {
  sqlite: [
    'CREATE UNIQUE INDEX authors_name_key ON authors (name)',
    'CREATE INDEX books_author_title_idx ON books (author_id, title DESC)',
    'CREATE INDEX books_cheap_idx ON books (lower(title)) WHERE price < 20',
    `CREATE TRIGGER books_price_check BEFORE INSERT ON books
     BEGIN SELECT RAISE(ABORT, 'negative price') WHERE NEW.price < 0; END`,
  ],
  postgres: [
    'CREATE UNIQUE INDEX authors_name_key ON authors (name)',
    'CREATE INDEX books_author_title_idx ON books (author_id, title DESC)',
    'CREATE INDEX books_cheap_idx ON books (lower(title)) WHERE price < 20',
    `CREATE FUNCTION check_price() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN IF NEW.price < 0 THEN RAISE EXCEPTION 'negative price'; END IF; RETURN NEW; END $$`,
    'CREATE TRIGGER books_price_check BEFORE INSERT OR UPDATE ON books FOR EACH ROW EXECUTE FUNCTION check_price()',
    "CREATE FUNCTION book_count(author integer) RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM books WHERE author_id = author'",
    'CREATE PROCEDURE touch_author(author integer, note text) LANGUAGE sql AS $$ UPDATE authors SET born = born WHERE id = author $$',
    // An extension's functions are not the user's: list_routines leaves them out.
    'CREATE EXTENSION pg_trgm',
    'CREATE INDEX authors_name_trgm ON authors USING gin (name gin_trgm_ops)',
    'CREATE MATERIALIZED VIEW author_totals AS SELECT author_id, count(*) AS books FROM books GROUP BY author_id',
  ],
  mysql: [
    'CREATE UNIQUE INDEX authors_name_key ON authors (name)',
    'CREATE INDEX books_author_title_idx ON books (author_id, title(20))',
    'CREATE TRIGGER books_price_check BEFORE INSERT ON books FOR EACH ROW SET NEW.price = GREATEST(NEW.price, 0)',
    'CREATE FUNCTION book_count(author INT) RETURNS INT READS SQL DATA RETURN (SELECT COUNT(*) FROM books WHERE author_id = author)',
    'CREATE PROCEDURE touch_author(IN author INT, OUT touched INT) SELECT COUNT(*) INTO touched FROM authors WHERE id = author',
  ],
  // DuckDB has no partial indexes, no triggers and no stored procedures: its routines are macros.
  duckdb: [
    'CREATE UNIQUE INDEX authors_name_key ON authors (name)',
    // DuckDB keeps no order: the statement it keeps has no DESC.
    'CREATE INDEX books_author_title_idx ON books (author_id, title DESC)',
    'CREATE INDEX books_lower_title_idx ON books (lower(title))',
    'CREATE MACRO add_tax(price, rate := 0.2) AS price * (1 + rate)',
    'CREATE MACRO cheap_books(top) AS TABLE SELECT title FROM books WHERE price < top',
  ],
};

/** The indexes of books and authors each engine reports, in the order it lists them. */
function expectedIndexes(engine: Engine, schema: string) {
  const index = (table: string, name: string, columns: string[], more: Record<string, unknown> = {}) => ({
    schema,
    table,
    name,
    columns,
    unique: false,
    primary: false,
    method: 'btree',
    predicate: null,
    definition: null,
    ...more,
  });
  if (engine === 'sqlite')
    return [
      index('authors', 'authors_name_key', ['name'], {
        unique: true,
        definition: 'CREATE UNIQUE INDEX authors_name_key ON authors (name)',
      }),
      index('books', 'books_author_idx', ['author_id'], { definition: 'CREATE INDEX books_author_idx ON books (author_id)' }),
      index('books', 'books_author_title_idx', ['author_id', 'title'], {
        definition: 'CREATE INDEX books_author_title_idx ON books (author_id, title DESC)',
      }),
      index('books', 'books_cheap_idx', ['lower(title)'], {
        predicate: 'price < 20',
        definition: 'CREATE INDEX books_cheap_idx ON books (lower(title)) WHERE price < 20',
      }),
    ];
  if (engine === 'postgres') {
    return [
      index('authors', 'authors_name_key', ['name'], {
        unique: true,
        definition: 'CREATE UNIQUE INDEX authors_name_key ON public.authors USING btree (name)',
      }),
      index('authors', 'authors_name_trgm', ['name'], {
        method: 'gin',
        definition: 'CREATE INDEX authors_name_trgm ON public.authors USING gin (name gin_trgm_ops)',
      }),
      index('authors', 'authors_pkey', ['id'], {
        unique: true,
        primary: true,
        definition: 'CREATE UNIQUE INDEX authors_pkey ON public.authors USING btree (id)',
      }),
      index('books', 'books_author_idx', ['author_id'], { definition: 'CREATE INDEX books_author_idx ON public.books USING btree (author_id)' }),
      index('books', 'books_author_title_idx', ['author_id', 'title'], {
        definition: 'CREATE INDEX books_author_title_idx ON public.books USING btree (author_id, title DESC)',
      }),
      index('books', 'books_cheap_idx', ['lower(title::text)'], {
        predicate: 'price < 20::numeric',
        definition: 'CREATE INDEX books_cheap_idx ON public.books USING btree (lower((title)::text)) WHERE (price < (20)::numeric)',
      }),
      index('books', 'books_pkey', ['id'], {
        unique: true,
        primary: true,
        definition: 'CREATE UNIQUE INDEX books_pkey ON public.books USING btree (id)',
      }),
    ];
  }
  if (engine === 'duckdb') {
    // A key's own index is listed with its columns; DuckDB keeps no text for it.
    return [
      index('authors', 'authors_id_pkey', ['id'], { unique: true, primary: true, method: 'art' }),
      index('authors', 'authors_name_key', ['name'], { unique: true, method: 'art', definition: 'CREATE UNIQUE INDEX authors_name_key ON authors("name")' }),
      index('books', 'books_author_idx', ['author_id'], { method: 'art', definition: 'CREATE INDEX books_author_idx ON books(author_id)' }),
      index('books', 'books_author_title_idx', ['author_id', 'title'], { method: 'art', definition: 'CREATE INDEX books_author_title_idx ON books(author_id, title)' }),
      index('books', 'books_id_pkey', ['id'], { unique: true, primary: true, method: 'art' }),
      index('books', 'books_lower_title_idx', ['(lower(title))'], { method: 'art', definition: 'CREATE INDEX books_lower_title_idx ON books((lower(title)))' }),
    ];
  }
  return [
    index('authors', 'PRIMARY', ['id'], { unique: true, primary: true }),
    index('authors', 'authors_name_key', ['name'], { unique: true }),
    index('books', 'PRIMARY', ['id'], { unique: true, primary: true }),
    index('books', 'books_author_idx', ['author_id']),
    index('books', 'books_author_title_idx', ['author_id', 'title(20)']),
  ];
}

describe.each(engines)('schema objects on %s', (engine) => {
  skipListed('schemaObjectTools', engine);
  let fixture: EngineFixture;
  let app: TestApp;
  let dataDir: string;
  let headers: Record<string, string>;
  let schema: string;

  const tool = async (name: string, args: Record<string, unknown>) => callTool(app, name, { connection_id: 'db', ...args }, { headers });
  const structured = async (name: string, args: Record<string, unknown>) => {
    const result = expectModernSuccess(await tool(name, args));
    expect(result.isError, JSON.stringify(result.content)).toBe(false);
    return result.structuredContent;
  };

  beforeAll(async () => {
    fixture = await createFixture(engine);
    for (const sql of EXTRAS[engine]) await fixture.query(sql);
    schema = { sqlite: 'main', postgres: 'public', mysql: fixture.database, duckdb: 'main' }[engine];
    dataDir = mkdtempSync(join(tmpdir(), `sluice-objects-${engine}-`));
    writeConfig(dataDir, { connections: [fixture.connection] });
    app = await startTestApp({ dataDir, auth: true });
    headers = mintToken(app, `${engine} objects`, 'readOnly').headers;
  });
  afterAll(async () => {
    await app?.dispose();
    await fixture?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('tools/list shows every schema-object tool to a read-only token, as read-only', async () => {
    const { tools } = expectModernSuccess(await mcp(app, 'tools/list', {}, { headers }));
    for (const name of SCHEMA_OBJECT_TOOLS) {
      const listed = tools.find((t: { name: string }) => t.name === name);
      expect(listed, name).toBeDefined();
      expect(listed.annotations.readOnlyHint).toBe(true);
    }
  });

  it('list_indexes lists every table’s indexes, columns in key order', async () => {
    const { indexes, is_truncated } = await structured('list_indexes', {});
    expect(is_truncated).toBe(false);
    expect(indexes.filter((i: { table: string }) => ['authors', 'books'].includes(i.table))).toEqual(expectedIndexes(engine, schema));
  });

  it('list_indexes with a table lists only its indexes, and refuses an unknown table', async () => {
    const { indexes } = await structured('list_indexes', { table: 'AUTHORS' });
    expect(indexes).toEqual(expectedIndexes(engine, schema).filter((i) => i.table === 'authors'));
    expectToolError(await tool('list_indexes', { table: 'no_such_table' }), 'not_found');
  });

  it('list_foreign_keys: books → authors is outgoing from books and incoming on authors', async () => {
    const key = {
      name: { sqlite: null, postgres: 'books_author_id_fkey', mysql: 'books_ibfk_1', duckdb: 'books_author_id_id_fkey' }[engine],
      schema,
      table: 'books',
      columns: ['author_id'],
      referenced_schema: schema,
      referenced_table: 'authors',
      referenced_columns: ['id'],
      on_update: { sqlite: 'NO ACTION', postgres: 'NO ACTION', mysql: 'RESTRICT', duckdb: 'NO ACTION' }[engine],
      // DuckDB keeps no ON DELETE actions: its fixture's key has none.
      on_delete: engine === 'duckdb' ? 'NO ACTION' : 'CASCADE',
    };
    expect(await structured('list_foreign_keys', { table: 'books' })).toEqual({
      schema,
      table: 'books',
      outgoing: [key],
      incoming: [],
      is_truncated: false,
    });
    expect(await structured('list_foreign_keys', { table: 'authors' })).toEqual({
      schema,
      table: 'authors',
      outgoing: [],
      incoming: [key],
      is_truncated: false,
    });
    expectToolError(await tool('list_foreign_keys', { table: 'no_such_table' }), 'not_found');
  });

  it('list_foreign_keys: a table’s key on itself is both outgoing and incoming', async () => {
    await fixture.query('CREATE TABLE series (id INTEGER PRIMARY KEY, parent_id INTEGER, FOREIGN KEY (parent_id) REFERENCES series (id))');
    const key = {
      name: { sqlite: null, postgres: 'series_parent_id_fkey', mysql: 'series_ibfk_1', duckdb: 'series_parent_id_id_fkey' }[engine],
      schema,
      table: 'series',
      columns: ['parent_id'],
      referenced_schema: schema,
      referenced_table: 'series',
      referenced_columns: ['id'],
      on_update: { sqlite: 'NO ACTION', postgres: 'NO ACTION', mysql: 'RESTRICT', duckdb: 'NO ACTION' }[engine],
      on_delete: { sqlite: 'NO ACTION', postgres: 'NO ACTION', mysql: 'RESTRICT', duckdb: 'NO ACTION' }[engine],
    };
    expect(await structured('list_foreign_keys', { table: 'series' })).toEqual({
      schema,
      table: 'series',
      outgoing: [key],
      incoming: [key],
      is_truncated: false,
    });
  });

  it('list_views and get_view_definition', async () => {
    const views = [{ schema, name: 'book_titles', materialized: false }];
    if (engine === 'postgres') views.unshift({ schema, name: 'author_totals', materialized: true });
    expect(await structured('list_views', {})).toEqual({ views, is_truncated: false });
    const definition = {
      sqlite: 'SELECT b.title, a.name AS author FROM books b JOIN authors a ON a.id = b.author_id',
      postgres: 'SELECT b.title,\n    a.name AS author\n   FROM books b\n     JOIN authors a ON a.id = b.author_id;',
      duckdb: 'SELECT b.title, a."name" AS author FROM books AS b INNER JOIN authors AS a ON ((a.id = b.author_id))',
      mysql: `select \`b\`.\`title\` AS \`title\`,\`a\`.\`name\` AS \`author\` from (\`${fixture.database}\`.\`books\` \`b\` join \`${fixture.database}\`.\`authors\` \`a\` on(\`a\`.\`id\` = \`b\`.\`author_id\`))`,
    }[engine];
    expect(await structured('get_view_definition', { view: 'book_titles' })).toEqual({
      schema,
      name: 'book_titles',
      materialized: false,
      definition,
    });
    expectToolError(await tool('get_view_definition', { view: 'no_such_view' }), 'not_found');
    // A table is not a view.
    expectToolError(await tool('get_view_definition', { view: 'books' }), 'not_found');
  });

  it('list_routines lists functions and procedures (none on SQLite, with a note; macros on DuckDB)', async () => {
    const expected = {
      sqlite: {
        routines: [],
        is_truncated: false,
        note: 'SQLite has no stored functions or procedures; its functions are built in or registered by the application.',
      },
      postgres: {
        routines: [
          { schema, name: 'book_count', kind: 'function', signature: 'author integer', return_type: 'bigint', language: 'sql' },
          { schema, name: 'check_price', kind: 'function', signature: '', return_type: 'trigger', language: 'plpgsql' },
          { schema, name: 'touch_author', kind: 'procedure', signature: 'IN author integer, IN note text', return_type: null, language: 'sql' },
        ],
        is_truncated: false,
      },
      mysql: {
        routines: [
          { schema, name: 'book_count', kind: 'function', signature: 'author int(11)', return_type: 'int(11)', language: 'SQL' },
          { schema, name: 'touch_author', kind: 'procedure', signature: 'IN author int(11), OUT touched int(11)', return_type: null, language: 'SQL' },
        ],
        is_truncated: false,
      },
      duckdb: {
        routines: [
          { schema, name: 'add_tax', kind: 'function', signature: 'price, rate', return_type: null, language: 'SQL' },
          { schema, name: 'cheap_books', kind: 'function', signature: 'top', return_type: 'TABLE', language: 'SQL' },
        ],
        is_truncated: false,
      },
    }[engine];
    expect(await structured('list_routines', {})).toEqual(expected);
  });

  it('list_triggers gives timing, events and definition (DuckDB has no triggers: none)', async () => {
    const definitions: Partial<Record<Engine, string>> = {
      sqlite: `CREATE TRIGGER books_price_check BEFORE INSERT ON books
     BEGIN SELECT RAISE(ABORT, 'negative price') WHERE NEW.price < 0; END`,
      postgres: 'CREATE TRIGGER books_price_check BEFORE INSERT OR UPDATE ON books FOR EACH ROW EXECUTE FUNCTION check_price()',
      mysql: 'SET NEW.price = GREATEST(NEW.price, 0)',
    };
    const definition = definitions[engine];
    const triggers =
      definition === undefined
        ? []
        : [{ schema, table: 'books', name: 'books_price_check', timing: 'BEFORE', events: engine === 'postgres' ? ['INSERT', 'UPDATE'] : ['INSERT'], definition }];
    expect(await structured('list_triggers', {})).toEqual({ triggers, is_truncated: false });
    expect(await structured('list_triggers', { table: 'books' })).toEqual({ triggers, is_truncated: false });
    expect(await structured('list_triggers', { table: 'authors' })).toEqual({ triggers: [], is_truncated: false });
    expectToolError(await tool('list_triggers', { table: 'no_such_table' }), 'not_found');
  });

  it(`bounds a list at ${SCHEMA_OBJECTS_MAX_ITEMS} items and says so`, async (context) => {
    if (engine === 'mysql') return context.skip('MariaDB takes tens of seconds to make a thousand views; the bound is the same code on every engine');
    const views = Array.from({ length: SCHEMA_OBJECTS_MAX_ITEMS }, (_, i) => `CREATE VIEW many_${i} AS SELECT 1 AS one;`).join('\n');
    if (fixture.connection.engine === 'sqlite') {
      const direct = new Database(fixture.connection.path);
      direct.exec(views);
      direct.close();
    } else await fixture.query(views);
    const listed = await structured('list_views', {});
    expect(listed.is_truncated).toBe(true);
    expect(listed.views).toHaveLength(SCHEMA_OBJECTS_MAX_ITEMS);
  });
});
