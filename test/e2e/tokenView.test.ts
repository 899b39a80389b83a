import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, openConsole } from '../helpers/consoleClient.js';
import { callTool, mintToken, type Minted, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * The console's view of one token (docs/console.md): its client, requests and refusals counted from the
 * activity log in `GET /api/state`, `GET /api/activity?token=<id>` (validated), and a token held back by
 * its request rate shown under `lockouts` and let in again by `lockouts.clear`.
 */
const RATE = { requestsPerWindow: 3, windowSeconds: 60, concurrent: 8 };
const clientInfo = (name: string) => ({ 'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' } });

let app: TestApp;
let console_: ConsoleClient;
let laptop: Minted;
let quiet: Minted;

const listConnections = (token: Minted, client: string) =>
  callTool(app, 'list_connections', {}, { headers: token.headers, extraMeta: clientInfo(client) });

const tokenIn = async (id: string) => ((await console_.state()).tokens as { id: string }[]).find((t) => t.id === id);

beforeAll(async () => {
  app = await startTestApp({ auth: true, callerLimits: RATE });
  console_ = await openConsole(app);
  laptop = mintToken(app, 'laptop', 'readOnly');
  quiet = mintToken(app, 'quiet', 'readOnly');
});
afterAll(async () => {
  await app?.dispose();
});

describe('per-token view in the console API', () => {
  it('a token nobody used: no client, 0 requests, 0 refusals', async () => {
    const token = await tokenIn(quiet.id);
    expect(token).toMatchObject({ id: quiet.id, name: 'quiet', requests: 0, refusals: 0 });
    expect(token).not.toHaveProperty('clientName');
    expect(token).not.toHaveProperty('lastUsedAt');
  });

  it('requests, refusals by its rate and after revocation, and the client it last declared', async () => {
    expect((await listConnections(laptop, 'Claude Desktop')).status).toBe(200);
    expect((await listConnections(laptop, 'Cursor')).status).toBe(200);
    expect((await listConnections(laptop, 'Cursor')).status).toBe(200);
    const limited = await listConnections(laptop, 'Cursor');
    expect([limited.status, limited.json.error.code]).toEqual([429, -33010]);
    expect(await tokenIn(laptop.id)).toMatchObject({ requests: 4, refusals: 1, clientName: 'Cursor', lastUsedAt: expect.any(String) });

    // Held back by its request rate: listed with its name and until when, then cleared from the console.
    const { lockouts } = await console_.state();
    expect(lockouts).toEqual([
      {
        id: `requests:${laptop.id}`,
        limit: 'requests',
        who: laptop.id,
        tokenName: 'laptop',
        locked: true,
        count: RATE.requestsPerWindow + 1,
        until: expect.any(String),
      },
    ]);
    const until = Date.parse(lockouts[0].until);
    expect(until - Date.now()).toBeGreaterThan((RATE.windowSeconds - 10) * 1000);
    expect(until - Date.now()).toBeLessThanOrEqual(RATE.windowSeconds * 1000);
    // The clear answers the lockout as it was, its `until` read again from the limiter: the same instant,
    // give or take how far apart the limiter's reading of the clock and Sluice's were (one turn of the loop).
    const { cleared } = (await console_.command('lockouts.clear', { id: `requests:${laptop.id}` })) as { cleared: { until: string }[] };
    expect(cleared).toEqual([{ ...lockouts[0], until: expect.any(String) }]);
    expect(Math.abs(Date.parse(cleared[0]!.until) - until)).toBeLessThan(1_000);
    expect((await console_.state()).lockouts).toEqual([]);
    expect((await listConnections(laptop, 'Cursor')).status).toBe(200);

    const revoked = await console_.command('tokens.revoke', { id: laptop.id });
    expect(revoked).toMatchObject({ id: laptop.id, revokedAt: expect.any(String) });
    const refused = await listConnections(laptop, 'Cursor');
    expect([refused.status, refused.json.error.code]).toEqual([401, -33009]);
    expect(await tokenIn(laptop.id)).toMatchObject({ requests: 6, refusals: 2, clientName: 'Cursor' });
    expect(await tokenIn(quiet.id)).toMatchObject({ requests: 0, refusals: 0 });
  });

  it('GET /api/activity?token=<id> lists that token\'s rows only; the clear is an admin row of its own', async () => {
    const reply = await console_.get(`/api/activity?token=${laptop.id}&limit=500`);
    expect(reply.status).toBe(200);
    const rows = reply.json.rows as { token_id: string; category: string; action: string; outcome: string; detail: string | null }[];
    expect(rows.every((row) => row.token_id === laptop.id)).toBe(true);
    expect(rows.map((row) => [row.category, row.action, row.outcome])).toEqual([
      ['auth', 'bearer', 'denied'],
      ['admin', 'token.revoked', 'success'],
      ['tool', 'list_connections', 'success'],
      ['admin', 'lockout.cleared', 'success'],
      ['access', 'tools/call', 'rateLimited'],
      ['tool', 'list_connections', 'success'],
      ['tool', 'list_connections', 'success'],
      ['tool', 'list_connections', 'success'],
    ]);
    expect(JSON.parse(rows[3]!.detail!)).toEqual({ limit: 'requests' });

    const filtered = await console_.get(`/api/activity?token=${laptop.id}&outcome=rateLimited`);
    expect(filtered.json.rows.map((row: { action: string }) => row.action)).toEqual(['tools/call']);
    expect((await console_.get(`/api/activity?token=${quiet.id}`)).json).toEqual({ rows: [] });
  });

  it.each([
    ['not a token id', 'laptop'],
    ['a token id with capitals', 'tok_ABCDEF012345'],
    ['an SQL fragment', "tok_000000000000' OR 1=1 --"],
    ['empty', ''],
  ])('a token filter that is %s is refused with 400, not read as no filter', async (_, value) => {
    const reply = await console_.get(`/api/activity?token=${encodeURIComponent(value)}`);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: 'token must be a token id (tok_ and 12 hex digits)' });
  });
});
