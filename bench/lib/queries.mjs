// The statements the benchmark runs: 10,000 rows made by the database itself, so no table is needed.

/** Three narrow columns: the 10,000-row timing against the raw driver. */
export const NARROW_ROWS = {
  sqlite:
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000) SELECT x AS id, 'row ' || x AS label, x * 1.5 AS value FROM c",
  postgres: "SELECT x AS id, 'row ' || x AS label, x * 1.5 AS value FROM generate_series(1, 10000) AS x",
};

/** 0–9999 from four crossed digit tables: MySQL 8 stops recursive CTEs at 1,000 rows by default. */
const digits = "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)";
const mysqlNumbers = `(SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 1 AS x FROM ${digits} a CROSS JOIN ${digits} b CROSS JOIN ${digits} c CROSS JOIN ${digits} e) AS n`;

/** Ten columns of mixed types, about 150 bytes of JSON a row: the "big result" of the footprint. */
export const WIDE_ROWS = {
  sqlite:
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000) SELECT x AS id, 'customer ' || x AS name, 'customer' || x || '@example.com' AS email, x * 1.5 AS amount, x % 7 AS weekday, 'status-' || (x % 5) AS status, printf('%08d', x) AS code, x * 3 AS quantity, 'a longer free-text note for row ' || x AS note, x % 2 = 0 AS flag FROM c",
  postgres:
    "SELECT x AS id, 'customer ' || x AS name, 'customer' || x || '@example.com' AS email, x * 1.5 AS amount, x % 7 AS weekday, 'status-' || (x % 5) AS status, lpad(x::text, 8, '0') AS code, x * 3 AS quantity, 'a longer free-text note for row ' || x AS note, x % 2 = 0 AS flag FROM generate_series(1, 10000) AS x",
  mysql: `SELECT x AS id, CONCAT('customer ', x) AS name, CONCAT('customer', x, '@example.com') AS email, x * 1.5 AS amount, x % 7 AS weekday, CONCAT('status-', x % 5) AS status, LPAD(x, 8, '0') AS code, x * 3 AS quantity, CONCAT('a longer free-text note for row ', x) AS note, x % 2 = 0 AS flag FROM ${mysqlNumbers} ORDER BY x`,
};

/** A small table for the SQLite files copied per connection, and the statement that reads it. */
export const SMALL_TABLE = [
  'CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL)',
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) INSERT INTO items SELECT x, 'item ' || x, x * 0.25 FROM c",
];
export const SMALL_QUERY = 'SELECT id, name, price FROM items ORDER BY id LIMIT 20';
