import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../../src/db/connections/savedConnections.js';
import { expectToolError } from '../helpers/rpcAssertions.js';
import { availableServers, createFixture, type EngineFixture } from '../helpers/engines.js';
import { callTool, mintToken, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Read-only PostgreSQL never runs text as SQL, nor reaches files, the network or other sessions
 * (issue 16, finding 5): `crosstab('… pg_read_file(…) …')` once returned /etc/hostname. Each function
 * is tried on a database where tablefunc, dblink and xml2 are installed (postgresql-contrib, installed
 * by .ci/run), through execute_query with a readOnly token, and with a readWrite one too: refused
 * before anything runs, on every tool.
 */

const servers = await availableServers();
const READS_A_FILE = "SELECT pg_read_file('/etc/hostname')";

const REFUSED = [
  `SELECT * FROM crosstab($$${READS_A_FILE}, 1, 1$$) AS t(a text, b text)`,
  `SELECT * FROM public.crosstab($$${READS_A_FILE}$$, $$SELECT 1$$) AS t(a text, b text)`,
  `SELECT * FROM "crosstab"('${READS_A_FILE.replaceAll("'", "''")}') AS t(a text)`,
  `SELECT * FROM crosstab2('x')`,
  `SELECT * FROM connectby('sluice_canary', 'id', 'note', '1', 0) AS t(a int, b int, c int)`,
  `SELECT * FROM xpath_table('id', 'note', 'sluice_canary', '/a', 'true') AS t(id int, x text)`,
  `SELECT query_to_xml($$${READS_A_FILE}$$, true, false, '')`,
  `SELECT cursor_to_xml('c', 1, true, false, '')`,
  `SELECT * FROM ts_stat($$${READS_A_FILE}::tsvector$$)`,
  `SELECT ts_rewrite('a'::tsquery, $$SELECT 'a'::tsquery, 'b'::tsquery$$)`,
  `SELECT * FROM dblink('dbname=test', 'SELECT 1') AS t(a int)`,
  `SELECT dblink_exec('dbname=test', 'DROP TABLE sluice_canary')`,
  `SELECT lo_import('/etc/hostname')`,
  `SELECT lo_export(1, '/tmp/x')`,
  READS_A_FILE,
  `SELECT pg_catalog.pg_read_binary_file('/etc/hostname')`,
  `SELECT * FROM pg_ls_dir('/')`,
  `SELECT pg_stat_file('/etc/hostname')`,
  `COPY (SELECT 1) TO PROGRAM 'id'`,
  `SELECT pg_terminate_backend(1)`,
  `SELECT pg_cancel_backend(1)`,
  `SELECT pg_signal_backend(1, 15)`,
  `SELECT pg_reload_conf()`,
  `SELECT pg_log_backend_memory_contexts(1)`,
  `DO $$BEGIN PERFORM 1; END$$`,
];

if (servers.length === 0 || !servers.includes('postgres')) describe('PostgreSQL text-as-SQL', () => it.skip('needs PostgreSQL', () => {}));
else {
  describe('read-only PostgreSQL never runs text as SQL nor reaches files, network or other sessions', () => {
    let fixture: EngineFixture;
    let app: TestApp;
    let dataDir: string;
    let readOnly: Record<string, string>;
    let readWrite: Record<string, string>;

    beforeAll(async () => {
      fixture = await createFixture('postgres');
      for (const extension of ['tablefunc', 'dblink', 'xml2']) await fixture.query(`CREATE EXTENSION IF NOT EXISTS ${extension}`);
      dataDir = mkdtempSync(join(tmpdir(), 'sluice-text-as-sql-'));
      writeConfig(dataDir, { connections: [fixture.connection] });
      app = await startTestApp({ dataDir, auth: true });
      readOnly = mintToken(app, 'text as sql', 'readOnly').headers;
      readWrite = mintToken(app, 'text as sql rw', 'readWrite').headers;
    });
    afterAll(async () => {
      await app?.dispose();
      await fixture?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('the extensions are really there: the functions exist in the fixture database', async () => {
      const names = (await fixture.query("SELECT proname FROM pg_proc WHERE proname IN ('crosstab', 'connectby', 'xpath_table', 'dblink')")).map(([n]) => n);
      expect(new Set(names)).toEqual(new Set(['crosstab', 'connectby', 'xpath_table', 'dblink']));
    });

    it.each(REFUSED)('%s → denied, for readOnly and readWrite tokens alike', async (sql) => {
      for (const headers of [readOnly, readWrite]) {
        const res = await callTool(app, 'execute_query', { connection_id: 'db', sql }, { headers });
        expect(expectToolError(res, 'denied')).toMatch(/^denied: statements that reach the file system/);
        expect(res.text).not.toContain(hostname());
      }
    });
  });
}
