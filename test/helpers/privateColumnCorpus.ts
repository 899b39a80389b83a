import type { Engine } from '../../src/db/database.js';

/**
 * Private columns (issue 30): a table whose columns a policy masks, hashes and hides, and a corpus of
 * statements that try to read the values. Each is either refused (`denied`) or answered with the values
 * masked; no cleartext of `SECRETS` may appear anywhere in the answer.
 */

export const PRIVATE_TABLES = [
  'CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR(50), email VARCHAR(100), ssn VARCHAR(20), phone VARCHAR(30), login_email VARCHAR(100))',
  `INSERT INTO people (id, name, email, ssn, phone, login_email) VALUES
     (1, 'Ada', 'ada.lovelace@example.org', '078-05-1120', '+44 20 7946 0958', 'ada.lovelace@example.org'),
     (2, 'Grace', 'grace.hopper@navy.example', '219-09-9999', '+1 202 555 0147', 'grace.hopper@navy.example')`,
  'CREATE TABLE orders (id INTEGER PRIMARY KEY, person_id INTEGER, buyer_email VARCHAR(100), amount INTEGER)',
  "INSERT INTO orders (id, person_id, buyer_email, amount) VALUES (1, 1, 'ada.lovelace@example.org', 10), (2, 2, 'grace.hopper@navy.example', 20), (3, 1, 'ada.lovelace@example.org', 30)",
  'CREATE VIEW people_view AS SELECT id, email, phone FROM people',
];

/** `email` and `phone*` masked, `*ssn` hidden, `*_email` hashed (both sides of a join). */
export const POLICY_RULES = [
  { pattern: 'email', action: 'mask' },
  { pattern: '*ssn', action: 'hide' },
  { pattern: 'phone*', action: 'mask' },
  { pattern: '*_email', action: 'hash' },
] as const;

/** Cleartext no answer may hold: parts of every private value. */
export const SECRETS = ['lovelace', 'hopper', 'example.org', 'navy.example', '078-05', '1120', '219-09', '9999', '7946', '0958', '0147'];

export type Probe = { sql: string; outcome: 'denied' | 'masked'; engines?: Engine[] };

const ALL: Probe[] = [
  // Plain reads: masked, not refused.
  { sql: 'SELECT * FROM people', outcome: 'masked' },
  { sql: 'SELECT email AS e, phone AS p, ssn FROM people', outcome: 'masked' },
  { sql: 'SELECT p.email FROM people p', outcome: 'masked' },
  { sql: 'SELECT people.* FROM people', outcome: 'masked' },
  { sql: 'SELECT id, email FROM people UNION ALL SELECT id, name FROM people', outcome: 'masked' },
  { sql: 'SELECT id, name FROM people UNION ALL SELECT id, email FROM people', outcome: 'masked' },
  { sql: 'SELECT * FROM people WHERE id = 1 LIMIT 1', outcome: 'masked' },
  { sql: 'SELECT DISTINCT email FROM people', outcome: 'masked' },
  // Used in expressions, filters, orders, joins, functions: refused.
  { sql: "SELECT id FROM people WHERE email LIKE 'a%'", outcome: 'denied' },
  { sql: "SELECT count(*) FROM people WHERE email > 'g'", outcome: 'denied' },
  { sql: 'SELECT id FROM people ORDER BY email LIMIT 1', outcome: 'denied' },
  { sql: 'SELECT id, email FROM people ORDER BY 2', outcome: 'denied' },
  { sql: 'SELECT * FROM people ORDER BY 3', outcome: 'denied' },
  { sql: 'SELECT upper(email) FROM people', outcome: 'denied' },
  { sql: 'SELECT lower(email) AS x FROM people', outcome: 'denied' },
  { sql: "SELECT email || '' FROM people", outcome: 'denied' },
  { sql: 'SELECT substr(email, 1, 3) FROM people', outcome: 'denied' },
  { sql: 'SELECT CAST(email AS VARCHAR(100)) FROM people', outcome: 'denied' },
  { sql: 'SELECT length(ssn) FROM people', outcome: 'denied' },
  { sql: "SELECT CASE WHEN email LIKE 'a%' THEN 1 ELSE 0 END FROM people", outcome: 'denied' },
  { sql: 'SELECT e FROM (SELECT email AS e FROM people) s', outcome: 'denied' },
  { sql: 'WITH c AS (SELECT email FROM people) SELECT * FROM c', outcome: 'denied' },
  { sql: 'SELECT * FROM (SELECT * FROM people) s', outcome: 'denied' },
  { sql: 'SELECT (SELECT email FROM people LIMIT 1) AS x', outcome: 'denied' },
  { sql: 'SELECT id FROM people WHERE id IN (SELECT id FROM people WHERE email LIKE \'a%\')', outcome: 'denied' },
  { sql: 'SELECT email FROM people UNION SELECT name FROM people', outcome: 'denied' },
  { sql: "SELECT email FROM people INTERSECT SELECT 'ada.lovelace@example.org'", outcome: 'denied' },
  { sql: 'SELECT email, count(*) FROM people GROUP BY email', outcome: 'denied' },
  { sql: 'SELECT max(email) FROM people', outcome: 'denied' },
  { sql: 'SELECT min(ssn) FROM people', outcome: 'denied' },
  { sql: 'SELECT p.id FROM people p JOIN people q ON p.email = q.name', outcome: 'denied' },
  { sql: "SELECT login_email FROM people WHERE login_email = 'ada.lovelace@example.org'", outcome: 'denied' },
  { sql: 'SELECT id FROM people WHERE ssn IS NULL', outcome: 'denied' },
  { sql: 'SELECT id FROM people WHERE phone BETWEEN \'+1\' AND \'+2\'', outcome: 'denied' },
  { sql: "SELECT replace(phone, ' ', '') FROM people", outcome: 'denied' },
  { sql: 'SELECT COALESCE(ssn, name) FROM people', outcome: 'denied' },
  // Hashed columns: equality between two hashed columns, and grouping, are allowed; output hashed.
  { sql: 'SELECT p.login_email, o.buyer_email, o.amount FROM people p JOIN orders o ON p.login_email = o.buyer_email', outcome: 'masked' },
  { sql: 'SELECT buyer_email FROM orders', outcome: 'masked' },
  { sql: 'SELECT * FROM people_view', outcome: 'masked' },
  { sql: "SELECT 'ada.lovelace@example.org' AS buyer_email, count(*) AS login_email FROM people", outcome: 'masked' },
  { sql: 'SELECT email AS name, name AS email FROM people', outcome: 'masked' },
  { sql: 'SELECT *, email AS x FROM people', outcome: 'masked', engines: ['sqlite', 'postgres', 'mysql'] },
  { sql: 'SELECT *, email AS x FROM people', outcome: 'denied', engines: ['duckdb'] },
  { sql: 'SELECT login_email, count(*) FROM people GROUP BY login_email', outcome: 'masked', engines: ['postgres'] },
  { sql: 'SELECT login_email, count(*) FROM people GROUP BY login_email', outcome: 'denied', engines: ['sqlite', 'mysql', 'duckdb'] },
  { sql: 'SELECT email FROM people WHERE id = 1 OR email IS NULL', outcome: 'denied' },
  { sql: 'SELECT p.id FROM people p NATURAL JOIN orders o', outcome: 'denied' },
  { sql: 'SELECT p.id FROM people p JOIN people q USING (email)', outcome: 'denied' },
  { sql: 'SELECT id FROM people WHERE EXISTS (SELECT 1 FROM orders WHERE buyer_email > \'b\')', outcome: 'denied' },
  { sql: "SELECT p.id FROM people p JOIN (SELECT 'ada.lovelace@example.org' AS buyer_email) g ON p.login_email = g.buyer_email", outcome: 'denied' },
  { sql: "WITH g AS (SELECT 'ada.lovelace@example.org' AS buyer_email) SELECT p.id FROM people p, g WHERE p.login_email = g.buyer_email", outcome: 'denied' },
  { sql: "SELECT p.id FROM people p JOIN (SELECT 'ada.lovelace@example.org') AS g(buyer_email) ON p.login_email = g.buyer_email", outcome: 'denied', engines: ['postgres', 'duckdb'] },
  // Writes that would copy or probe a private value: refused before anyone is asked.
  { sql: 'UPDATE people SET name = email WHERE id = 1', outcome: 'denied' },
  { sql: "DELETE FROM people WHERE email LIKE 'zz%'", outcome: 'denied' },
  { sql: 'INSERT INTO orders (id, buyer_email) SELECT id + 100, email FROM people', outcome: 'denied' },
  { sql: 'CREATE TABLE copied AS SELECT email FROM people', outcome: 'denied' },
  { sql: 'CREATE VIEW copied AS SELECT * FROM people', outcome: 'denied' },
  // Statistics the planner keeps, and summaries, hold other columns' values.
  { sql: "SELECT most_common_vals::text, histogram_bounds::text FROM pg_stats WHERE attname = 'email'", outcome: 'denied', engines: ['postgres'] },
  { sql: 'SELECT * FROM pg_catalog.pg_statistic', outcome: 'denied', engines: ['postgres'] },
  { sql: 'SELECT * FROM sqlite_stat1', outcome: 'denied', engines: ['sqlite'] },
  { sql: 'SELECT * FROM information_schema.COLUMN_STATISTICS', outcome: 'denied', engines: ['mysql'] },
  { sql: 'SELECT * FROM mysql.column_stats', outcome: 'denied', engines: ['mysql'] },
  { sql: 'SUMMARIZE people', outcome: 'denied', engines: ['duckdb'] },
  { sql: 'FROM people ORDER BY 3 LIMIT 1', outcome: 'denied', engines: ['duckdb'] },
  { sql: 'SELECT email, id FROM people ORDER BY ALL LIMIT 1', outcome: 'denied', engines: ['duckdb'] },
  { sql: 'FROM people', outcome: 'masked', engines: ['duckdb'] },
  { sql: "SELECT * FROM pragma_storage_info('people')", outcome: 'denied', engines: ['duckdb'] },
  { sql: 'SELECT email FROM people PROCEDURE ANALYSE()', outcome: 'denied', engines: ['mysql'] },
  { sql: 'SELECT substring(email FROM 1 FOR 3) FROM people', outcome: 'denied', engines: ['postgres', 'mysql', 'duckdb'] },
  { sql: "SELECT trim(LEADING 'a' FROM email) FROM people", outcome: 'denied', engines: ['postgres', 'mysql', 'duckdb'] },
  { sql: "SELECT position('@' IN email) FROM people", outcome: 'denied', engines: ['postgres', 'mysql', 'duckdb'] },
  { sql: "DO $$ BEGIN RAISE EXCEPTION '%', (SELECT email FROM people LIMIT 1); END $$", outcome: 'denied', engines: ['postgres'] },
  { sql: "CREATE FUNCTION leak() RETURNS text AS 'SELECT email FROM people LIMIT 1' LANGUAGE sql", outcome: 'denied', engines: ['postgres'] },
  { sql: 'ALTER TABLE people RENAME COLUMN email TO contact', outcome: 'denied' },
  { sql: 'COPY people TO STDOUT', outcome: 'denied', engines: ['postgres'] },
  { sql: "COPY people TO '/tmp/sluice-people.csv' (HEADER false)", outcome: 'denied', engines: ['duckdb'] },
  // Engine-specific ways to read a whole row or JSON of it.
  { sql: 'SELECT row_to_json(p) FROM people p', outcome: 'denied', engines: ['postgres', 'duckdb'] },
  { sql: 'SELECT to_json(p.*) FROM people p', outcome: 'denied', engines: ['postgres'] },
  { sql: 'SELECT p FROM people p', outcome: 'denied', engines: ['postgres', 'duckdb'] },
  { sql: 'SELECT (p).email FROM people p', outcome: 'denied', engines: ['postgres'] },
  { sql: 'SELECT email::text FROM people', outcome: 'denied', engines: ['postgres', 'duckdb'] },
  { sql: 'SELECT * FROM people u(a, b, c, d, e, f)', outcome: 'masked', engines: ['postgres'] },
  { sql: 'SELECT * FROM people u(a, b, c, d, e, f)', outcome: 'denied', engines: ['duckdb'] },
  { sql: "SELECT query_to_xml('select email from people', true, false, '')", outcome: 'denied', engines: ['postgres'] },
  { sql: 'TABLE people', outcome: 'masked', engines: ['postgres'] },
  { sql: 'SELECT COLUMNS(*) FROM people', outcome: 'denied', engines: ['duckdb'] },
  { sql: 'SELECT * EXCLUDE (id) FROM people', outcome: 'denied', engines: ['duckdb'] },
  { sql: "SELECT * FROM query('SELECT email FROM people')", outcome: 'denied', engines: ['duckdb'] },
  { sql: "SELECT json_object('e', email) FROM people", outcome: 'denied', engines: ['sqlite', 'mysql'] },
  { sql: 'SELECT json_group_array(email) FROM people', outcome: 'denied', engines: ['sqlite'] },
  { sql: 'SELECT group_concat(email) FROM people', outcome: 'denied', engines: ['sqlite', 'mysql'] },
  { sql: 'SELECT email INTO @x FROM people LIMIT 1', outcome: 'denied', engines: ['mysql'] },
  { sql: 'SELECT string_agg(email, \',\') FROM people', outcome: 'denied', engines: ['postgres', 'duckdb'] },
  { sql: 'SELECT hex(email) FROM people', outcome: 'denied', engines: ['sqlite', 'mysql', 'duckdb'] },
];

export const probesFor = (engine: Engine): Probe[] => ALL.filter((p) => !p.engines || p.engines.includes(engine));
