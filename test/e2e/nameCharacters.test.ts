import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSluice } from '../helpers/cli.js';
import { type ConsoleClient, openConsole } from '../helpers/consoleClient.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * Connection and token names may not hold control characters (C0, DEL, C1), line or paragraph
 * separators, bidirectional controls or lone surrogates (issue 29, item 6): `sluice connections add
 * --name $'a\nb'` was saved. The command line refuses such a `--name` as a usage error (one line, exit
 * 2, nothing saved); the console's API answers 400 with the sentence its page shows, for creating and
 * renaming connections and for creating tokens. Zero-width joiners, which emoji and scripts need, stay.
 */

const refusal = (field: string, codePoint: string) =>
  `${field} must not contain control characters, line separators or bidirectional controls (it holds ${codePoint})`;

/** The character a name is refused for, and a name holding it that the command line can pass (no NUL in an argument). */
const CLI_NAMES: Array<[string, string]> = [
  ['U+000A', 'a\nb'],
  ['U+001B', 'Shop\u001b[2J'],
  ['U+007F', 'del\u007f'],
  ['U+0085', 'next\u0085line'],
  ['U+202E', 'Evil\u202Eclient'],
  ['U+2028', 'line\u2028break'],
];

/** Names only JSON can carry too: NUL, a C1 control, an isolate, a mark and a lone surrogate. */
const API_NAMES: Array<[string, string]> = [
  ...CLI_NAMES,
  ['U+0000', 'nul\u0000'],
  ['U+009B', 'csi\u009b'],
  ['U+2066', 'iso\u2066late'],
  ['U+200F', 'mark\u200f'],
  ['U+D800', 'half\ud800'],
];

/** Accepted: a ZWJ emoji sequence and a Persian plural with its zero-width non-joiner. */
const KEPT = ['Team 👩\u200D💻 db', 'کتاب\u200Cها'];

describe('names with control characters on the command line', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sluice-names-'));
    expect(runSluice(['connections', 'add', '--name', 'Shop', '--sqlite', join(dataDir, 'shop.db'), '--no-check', '--data-dir', dataDir]).status).toBe(0);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const outcome = (args: string[]) => {
    const result = runSluice([...args, '--data-dir', dataDir], { SLUICE_SECRETS: 'file' });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const saved = () => readFileSync(join(dataDir, 'config.json'), 'utf8');

  it.each(CLI_NAMES)('connections add, connections update and tokens create refuse a --name holding %s: one line, exit 2, nothing saved', (codePoint, name) => {
    const before = saved();
    const refused = { status: 2, stdout: '', stderr: `sluice: ${refusal('--name', codePoint)}\n` };
    expect(outcome(['connections', 'add', '--name', name, '--sqlite', join(dataDir, 'other.db'), '--no-check'])).toEqual(refused);
    expect(outcome(['connections', 'update', 'shop', '--name', name, '--no-check'])).toEqual(refused);
    expect(outcome(['tokens', 'create', '--name', name])).toEqual(refused);
    expect(saved()).toBe(before);
    expect(outcome(['tokens', 'list', '--json']).stdout).toBe('[]\n');
  });

  it('keeps zero-width joiners', () => {
    expect(outcome(['connections', 'update', 'shop', '--name', KEPT[0]!, '--no-check'])).toEqual({ status: 0, stdout: 'updated shop\n', stderr: '' });
    expect(JSON.parse(saved()).connections.find((c: { id: string }) => c.id === 'shop').name).toBe(KEPT[0]);
    expect(outcome(['tokens', 'create', '--name', KEPT[1]!]).status).toBe(0);
  });
});

describe("names with control characters in the console's API", () => {
  let app: TestApp;
  let client: ConsoleClient;
  beforeAll(async () => {
    app = await startTestApp({ auth: true });
    client = await openConsole(app);
  });
  afterAll(() => app?.dispose());

  const sqlite = (name: string) => ({ name, path: join(app.dataDir, `${name.length}.db`), check: false });

  it.each(API_NAMES)('connections.add, connections.update and tokens.create answer 400 for a name holding %s, changing nothing', async (codePoint, name) => {
    const before = { tokens: app.tokens.list().length, names: (await client.state()).connections.map((c: { name: string }) => c.name) };
    const refused = { status: 400, json: { error: refusal('name', codePoint) } };
    const only = ({ status, json }: { status: number; json: unknown }) => ({ status, json });
    expect(only(await client.post('/api/connections.add', sqlite(name)))).toEqual(refused);
    expect(only(await client.post('/api/connections.update', { id: 'demo', name, check: false }))).toEqual(refused);
    expect(only(await client.post('/api/tokens.create', { name, level: 'readOnly', connections: 'all', expiresInDays: null }))).toEqual(refused);
    expect(app.tokens.list().length).toBe(before.tokens);
    expect((await client.state()).connections.map((c: { name: string }) => c.name)).toEqual(before.names);
  });

  it('keeps zero-width joiners, in a new connection, a renamed one and a token', async () => {
    expect((await client.command('connections.add', sqlite(KEPT[0]!))).name).toBe(KEPT[0]);
    await client.command('connections.update', { id: 'demo', name: KEPT[1], check: false });
    expect((await client.state()).connections.map((c: { name: string }) => c.name)).toContain(KEPT[1]);
    await client.command('tokens.create', { name: KEPT[1], level: 'readOnly', connections: 'all', expiresInDays: null });
    expect(app.tokens.list().map((t) => t.name)).toContain(KEPT[1]);
  });
});
