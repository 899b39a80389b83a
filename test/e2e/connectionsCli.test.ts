import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, runSluice, SLUICE_BIN, spawnServe, waitForHandshake, type ServeProcess } from '../helpers/cli.js';

/**
 * `sluice connections add|update|remove|test` against real SQLite files, the local PostgreSQL and
 * MariaDB: each bad input refused with its own message and the config left as it was; with the
 * application running, through its control socket so that the change holds at once.
 */
const PG = 'postgres://postgres@127.0.0.1:5432/test';
const MARIADB = 'mysql://root@127.0.0.1:3306/test';
/** `ID: PRODUCT VERSION[, TLS], N ms`: servers say whether the session uses TLS (these URLs ask for none). */
const VERSION_LINE = (id: string, product: string) =>
  new RegExp(`^${id}: ${product} \\d+\\.\\d+(\\.\\d+)?, ${product === 'SQLite' ? '' : 'no TLS, '}\\d+ ms\\n$`);

let dir: string;
let sqlitePath: string;
let textPath: string;

function sqliteFile(name: string): string {
  const path = join(dir, name);
  const db = new Database(path);
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
  db.close();
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-connections-cli-'));
  sqlitePath = sqliteFile('notes.db');
  textPath = join(dir, 'notes.txt');
  writeFileSync(textPath, 'these are notes, not a database\n'.repeat(10));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const outcome = (result: ReturnType<typeof runSluice>) => ({ status: result.status, stdout: result.stdout, stderr: result.stderr });
const refused = (status: number, stderr: string) => ({ status, stdout: '', stderr: `sluice: ${stderr}\n` });

describe('without a running application (the config file)', () => {
  let dataDir: string;
  const sluice = (...args: string[]) => runSluice([...args, '--data-dir', dataDir]);
  const config = () => readFileSync(join(dataDir, 'config.json'), 'utf8');
  const ids = () => (JSON.parse(config()) as { connections: Array<{ id: string }> }).connections.map((c) => c.id);

  beforeAll(() => {
    dataDir = mkdtempSync(join(dir, 'offline-'));
    expect(outcome(sluice('connections', 'add', '--name', 'Notes', '--sqlite', sqlitePath))).toEqual({ status: 0, stdout: 'added notes\n', stderr: '' });
  });

  it.each([
    ['a text file', ['--name', 'Text', '--sqlite', 'TEXT'], 78, 'TEXT is not a SQLite database'],
    ['a missing file', ['--name', 'Gone', '--sqlite', 'MISSING'], 78, 'MISSING does not exist'],
    ['a malformed URL', ['--name', 'Bad', '--url', 'postgres//127.0.0.1/test'], 2, '--url must be postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE or mysql://… (mariadb://…)'],
    ['an unreachable host', ['--name', 'Down', '--url', 'postgres://postgres@127.0.0.1:1/test'], 78, 'cannot reach the PostgreSQL server: connect ECONNREFUSED 127.0.0.1:1'],
    ['an unknown PostgreSQL role', ['--name', 'Who', '--url', 'postgres://nobody_here:pw@127.0.0.1:5432/test'], 78, 'cannot reach the PostgreSQL server: role "nobody_here" does not exist'],
    ['a wrong MariaDB password', ['--name', 'Wrong', '--url', 'mysql://root:s3cret-pw@127.0.0.1:3306/test'], 78, "cannot reach the MySQL server: Access denied for user 'root'@'127.0.0.1' (using password: ***)"],
    ['a missing MariaDB database', ['--name', 'Nodb', '--url', 'mysql://root@127.0.0.1:3306/no_such_db'], 78, "cannot reach the MySQL server: Unknown database 'no_such_db'"],
    ['a name already taken (case aside)', ['--name', 'NOTES', '--id', 'other', '--sqlite', 'SQLITE'], 78, 'the name "NOTES" is taken by connection "notes" (names must be unique)'],
    ['an id already taken', ['--name', 'Again', '--id', 'notes', '--sqlite', 'SQLITE'], 78, 'a connection with id "notes" exists already (choose another with --id)'],
  ])('add refuses %s with its own message and leaves the config as it was', (_, args, status, message) => {
    const paths = (text: string) => text.replace('TEXT', textPath).replace('MISSING', join(dir, 'missing.db')).replace('SQLITE', sqlitePath);
    const before = config();
    expect(outcome(sluice('connections', 'add', ...args.map(paths)))).toEqual(refused(status, paths(message)));
    expect(config()).toBe(before);
  });

  it('--no-check saves without opening the database', () => {
    const missing = join(dir, 'later.db');
    expect(outcome(sluice('connections', 'add', '--name', 'Later', '--sqlite', missing, '--no-check'))).toEqual({ status: 0, stdout: 'added later\n', stderr: '' });
    expect(JSON.parse(config()).connections.find((c: { id: string }) => c.id === 'later')).toMatchObject({ engine: 'sqlite', path: missing });
  });

  it('adds PostgreSQL and MariaDB once they answer; test prints each version and latency', () => {
    expect(outcome(sluice('connections', 'add', '--name', 'pg', '--url', PG))).toEqual({ status: 0, stdout: 'added pg\n', stderr: '' });
    expect(outcome(sluice('connections', 'add', '--name', 'maria', '--url', MARIADB))).toEqual({ status: 0, stdout: 'added maria\n', stderr: '' });
    expect(sluice('connections', 'test', 'notes').stdout).toMatch(VERSION_LINE('notes', 'SQLite'));
    expect(sluice('connections', 'test', 'pg').stdout).toMatch(VERSION_LINE('pg', 'PostgreSQL'));
    expect(sluice('connections', 'test', 'maria').stdout).toMatch(VERSION_LINE('maria', 'MariaDB'));
    expect(outcome(sluice('connections', 'test', 'nope'))).toEqual(refused(78, 'no connection with id "nope"'));
    expect(outcome(sluice('connections', 'test', 'later'))).toEqual(refused(78, `${join(dir, 'later.db')} does not exist`));
  });

  it('update changes what it is given, checked as add checks; a bad edit is refused whole', () => {
    expect(outcome(sluice('connections', 'update', 'pg', '--name', 'Postgres', '--external-access', 'readWrite'))).toEqual({ status: 0, stdout: 'updated pg\n', stderr: '' });
    expect(JSON.parse(config()).connections.find((c: { id: string }) => c.id === 'pg')).toEqual({
      id: 'pg',
      name: 'Postgres',
      engine: 'postgres',
      url: PG,
      externalAccess: 'readWrite',
      aiPolicy: 'askEachTime',
    });
    const before = config();
    expect(outcome(sluice('connections', 'update', 'pg', '--name', 'Changed', '--url', 'postgres://postgres@127.0.0.1:1/test'))).toEqual(
      refused(78, 'cannot reach the PostgreSQL server: connect ECONNREFUSED 127.0.0.1:1'),
    );
    expect(outcome(sluice('connections', 'update', 'pg', '--sqlite', textPath))).toEqual(refused(78, `${textPath} is not a SQLite database`));
    expect(outcome(sluice('connections', 'update', 'pg', '--name', 'notes'))).toEqual(refused(78, 'the name "notes" is taken by connection "notes" (names must be unique)'));
    expect(outcome(sluice('connections', 'update', 'pg', '--ai-policy', 'sometimes'))).toEqual(refused(78, 'the connection.aiPolicy must be one of never, askEachTime, always'));
    expect(outcome(sluice('connections', 'update', 'nope', '--name', 'x'))).toEqual(refused(78, 'no connection with id "nope"'));
    expect(outcome(sluice('connections', 'update', 'pg'))).toEqual(refused(2, 'nothing to change: give --name, --sqlite, --url, --external-access, --ai-policy, --ssh … or --no-ssh'));
    expect(config()).toBe(before);

    // A new target: the engine follows it.
    expect(outcome(sluice('connections', 'update', 'pg', '--sqlite', sqlitePath))).toEqual({ status: 0, stdout: 'updated pg\n', stderr: '' });
    expect(JSON.parse(config()).connections.find((c: { id: string }) => c.id === 'pg')).toMatchObject({ engine: 'sqlite', path: sqlitePath, name: 'Postgres' });
  });

  /** The command run in a pseudo-terminal (util-linux `script`), with `answer` typed in. */
  const inTerminal = (answer: string, ...args: string[]) => {
    const command = [process.execPath, SLUICE_BIN, ...args, '--data-dir', dataDir].map((a) => `'${a}'`).join(' ');
    return spawnSync('script', ['-qec', command, '/dev/null'], { input: answer, encoding: 'utf8', timeout: 20_000 });
  };

  it.skipIf(spawnSync('script', ['--version']).error !== undefined)('remove asks in a terminal: only y removes', () => {
    const no = inTerminal('n\n', 'connections', 'remove', 'later');
    expect(no.stdout).toContain('Remove connection "Later" (later)? [y/N] ');
    expect(no.stdout).toMatch(/kept later\r?\n$/);
    expect(ids()).toContain('later');
    const yes = inTerminal('y\n', 'connections', 'remove', 'later');
    expect(yes.stdout).toMatch(/removed later\r?\n$/);
    expect(ids()).not.toContain('later');
  });

  it('remove is refused without --yes when stdin is not a terminal; --yes removes', () => {
    const before = config();
    expect(outcome(sluice('connections', 'remove', 'pg'))).toEqual(refused(2, 'not removing "pg": stdin is not a terminal to ask in; add --yes'));
    expect(config()).toBe(before);
    expect(outcome(sluice('connections', 'remove', 'nope', '--yes'))).toEqual(refused(78, 'no connection with id "nope"'));
    expect(outcome(sluice('connections', 'remove', 'pg', '--yes'))).toEqual({ status: 0, stdout: 'removed pg\n', stderr: '' });
    expect(ids()).toEqual(['demo', 'notes', 'maria']);
  });
});

describe('with a running application (the control socket)', () => {
  let dataDir: string;
  let serve: ServeProcess;
  const sluice = (...args: string[]) => runSluice([...args, '--data-dir', dataDir]);
  const listed = () => JSON.parse(sluice('connections', 'list', '--json').stdout) as Array<{ id: string; name: string; engine: string }>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(dir, 'running-'));
    serve = spawnServe(['--port', '0', '--no-console', '--data-dir', dataDir]);
    await waitForHandshake(dataDir);
  });
  afterAll(async () => {
    serve.child.kill('SIGTERM');
    await exited(serve.child);
  });

  it('add, test, update and remove reach the application at once; bad input is refused the same way', () => {
    const before = readFileSync(join(dataDir, 'config.json'), 'utf8');
    expect(outcome(sluice('connections', 'add', '--name', 'Text', '--sqlite', textPath))).toEqual(refused(1, `${textPath} is not a SQLite database`));
    expect(outcome(sluice('connections', 'add', '--name', 'Demo bookshop', '--sqlite', sqlitePath))).toEqual(
      refused(1, 'the name "Demo bookshop" is taken by connection "demo" (names must be unique)'),
    );
    expect(readFileSync(join(dataDir, 'config.json'), 'utf8')).toBe(before);

    expect(outcome(sluice('connections', 'add', '--name', 'maria', '--url', MARIADB))).toEqual({ status: 0, stdout: 'added maria\n', stderr: '' });
    expect(sluice('connections', 'test', 'maria').stdout).toMatch(VERSION_LINE('maria', 'MariaDB'));
    expect(sluice('connections', 'test', 'demo').stdout).toMatch(VERSION_LINE('demo', 'SQLite'));

    expect(outcome(sluice('connections', 'update', 'maria', '--name', 'Shop', '--url', PG))).toEqual({ status: 0, stdout: 'updated maria\n', stderr: '' });
    expect(listed().find((c) => c.id === 'maria')).toMatchObject({ name: 'Shop', engine: 'postgres' });
    expect(sluice('connections', 'test', 'maria').stdout).toMatch(VERSION_LINE('maria', 'PostgreSQL'));

    expect(outcome(sluice('connections', 'remove', 'maria'))).toEqual(refused(2, 'not removing "maria": stdin is not a terminal to ask in; add --yes'));
    expect(outcome(sluice('connections', 'remove', 'maria', '--yes'))).toEqual({ status: 0, stdout: 'removed maria\n', stderr: '' });
    expect(listed().map((c) => c.id)).toEqual(['demo']);
    expect(outcome(sluice('connections', 'test', 'maria'))).toEqual(refused(1, 'no connection with id "maria"'));
  });
});
