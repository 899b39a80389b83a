/**
 * Fuzzing the pairing deep link `sluice://integrations/pair?…` (issue 9, item 2; wire-contract.md "Deep
 * link that starts pairing", "Pairing request", Authentication 8; decisions.md "Pairing details").
 *
 * Links are built from parts whose verdict under the contract is known by construction (a loopback or
 * private-use redirect is local; another host, a refused scheme or any userinfo is not; the challenge is
 * exactly 43 base64url characters; the state at most 1,024 bytes; no parameter twice…), plus raw text
 * that no model describes. Where the contract is silent (a client name with control characters, an
 * unknown permission level, an unknown response_mode, a scheme no list names) either verdict is allowed.
 *
 * - parsePairingLink (pure) never throws, and returns a link that honours every rule, or a refusal with a
 *   reason and a code; it runs several times the area's budget.
 * - app.pairing.openLink never throws; a refusal is logged as auth/denied; an accepted link opens an
 *   approval sheet, which the property denies again: the denial reaches exactly the redirect, carries
 *   error=denied and error_description=user_denied (flat, or in `context` for launcher apps) and the state
 *   unchanged, and the live actors return to their baseline.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionLevels } from '../../src/auth/levels.js';
import { parsePairingLink } from '../../src/pairing/deepLink.js';
import { isWellFormed, text } from './arbitraries.js';
import { type FuzzApp, startFuzzApp } from './fuzzApp.js';
import { CaseTally, FUZZ_RUNS, fuzzParameters, share, timeoutFor } from './fuzzBudget.js';

const RUNS = {
  parseModel: share(2.5),
  parseRaw: share(1.5),
  open: FUZZ_RUNS,
};

let f: FuzzApp;
const tally = new CaseTally('deep links');
let passwords = 0;
const count = (label: string) => tally.outcome('verdicts', label);

beforeAll(async () => {
  f = await startFuzzApp();
});
afterAll(async () => {
  tally.print();
  await f?.dispose();
});

type Locality = 'local' | 'not_local' | 'unparseable' | 'unknown';
type Redirect = { url: string; locality: Locality; password?: string; context?: boolean };

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]', 'LOCALHOST', 'LocalHost', '[0:0:0:0:0:0:0:1]', '2130706433', '0x7f000001', '127.1', '0177.0.0.1', '127.0.0.1.'];
const NOT_LOOPBACK = [
  'example.com',
  '127.0.0.2',
  '10.0.0.1',
  '192.168.1.1',
  'localhost.',
  'localhost.example.com',
  '127.0.0.1.nip.io',
  '[::2]',
  '[::ffff:127.0.0.1]',
  '0.0.0.0',
  'evil.com#@127.0.0.1',
  'evil.com\\@127.0.0.1',
  'xn--lcalhost-9za',
];
/** Schemes decisions.md refuses by name or family. */
const REFUSED = [
  'javascript:alert(1)',
  'data:text/html,<b>x</b>',
  'file:///tmp/cb',
  'ftp://127.0.0.1/cb',
  'ssh://127.0.0.1',
  'smb://host/share',
  'webcal://127.0.0.1/x',
  'ldap://127.0.0.1',
  'sluice://integrations/pair',
  'blob:http://127.0.0.1/x',
  'chrome-extension://abcdef/cb',
  'moz-extension://abcdef/cb',
  'ws://127.0.0.1/cb',
  'wss://127.0.0.1/cb',
  'svn+ssh://127.0.0.1/x',
  'web+app:cb',
  'c:/Users/x/cb',
  'about:blank',
  'view-source:http://127.0.0.1/',
  'x-safari-https://example.com',
];
const PRIVATE_USE = ['raycast://extensions/acme/sluice/pair', 'com.example.app:/callback', 'my-app://cb', 'app.desktop.client:/oauth?x=1', 'vscode://acme.sluice/pair'];

const path = fc.oneof(fc.constantFrom('', '/', '/cb', '/callback?x=1&state=old&error=old', '/a/b?code=1#frag', '/%7E/cb'), fc.webPath());
const port = fc.oneof(fc.constant(''), fc.integer({ min: 1, max: 65535 }).map((p) => `:${p}`));
const password = fc.stringMatching(/^[A-Za-z0-9]{10,16}$/);

const redirectArb: fc.Arbitrary<Redirect> = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.constantFrom('http', 'https', 'HTTP'), fc.constantFrom(...LOOPBACK), port, path).map(([s, h, p, rest]) => ({ url: `${s}://${h}${p}${rest}`, locality: 'local' as const })) },
  { weight: 2, arbitrary: fc.constantFrom(...PRIVATE_USE).map((url) => ({ url, locality: 'local' as const })) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('http', 'https'), fc.constantFrom(...NOT_LOOPBACK), port, path).map(([s, h, p, rest]) => ({ url: `${s}://${h}${p}${rest}`, locality: 'not_local' as const })) },
  { weight: 2, arbitrary: fc.constantFrom(...REFUSED).map((url) => ({ url, locality: 'not_local' as const })) },
  {
    weight: 2,
    // Any userinfo refuses a redirect, even a loopback one; the refusal must not repeat it.
    arbitrary: fc
      .tuple(fc.constantFrom('http://', 'https://', 'raycast://'), fc.stringMatching(/^[a-z]{1,8}$/), fc.option(password, { nil: undefined }), fc.constantFrom('127.0.0.1', 'localhost', '[::1]', 'extensions'), path)
      .map(([s, user, pw, host, rest]) => ({ url: `${s}${user}${pw === undefined ? '' : `:${pw}`}@${host}${rest}`, locality: 'not_local' as const, ...(pw === undefined ? {} : { password: pw }) })),
  },
  { weight: 1, arbitrary: fc.constantFrom('not a url', '', 'http://', '://x', 'http://[::1', 'http://exa mple.com/', '127.0.0.1/cb', 'http://%zz/').map((url) => ({ url, locality: 'unparseable' as const })) },
  // Parsed as a URL of scheme "localhost" or "127.0.0.1"-less host-ish text: a private-use scheme nobody lists.
  { weight: 1, arbitrary: fc.constantFrom('localhost:', 'localhost:8080/cb', 'loopback:cb').map((url) => ({ url, locality: 'unknown' as const })) },
  { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }).map((url) => ({ url, locality: 'unknown' as const })) },
  { weight: 1, arbitrary: fc.tuple(fc.stringMatching(/^[a-z][a-z0-9+.-]{1,10}$/), fc.oneof(fc.constant('://x/cb'), fc.constant(':cb'), fc.constant(':/cb'))).map(([scheme, rest]) => ({ url: `${scheme}${rest}`, locality: 'unknown' as const })) },
);

const base64url = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split(''));
type Part = { value: string; ok: boolean | 'unknown' };
const challengeArb: fc.Arbitrary<Part> = fc.oneof(
  { weight: 10, arbitrary: fc.string({ unit: base64url, minLength: 43, maxLength: 43 }).map((value) => ({ value, ok: true })) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ unit: base64url, maxLength: 42 }), fc.string({ unit: base64url, minLength: 44, maxLength: 90 })).map((value) => ({ value, ok: false })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ unit: base64url, minLength: 42, maxLength: 42 }), fc.constantFrom('+', '/', '=', ' ', '.', '~', '%', 'é', '\u0000'), fc.nat({ max: 42 }))
      .map(([s, bad, at]) => ({ value: `${s.slice(0, at)}${bad}${s.slice(at)}`, ok: false })),
  },
  { weight: 1, arbitrary: text(50).map((value) => ({ value, ok: /^[A-Za-z0-9_-]{43}$/.test(value) })) },
);

const CONTROL = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const clientArb: fc.Arbitrary<Part> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('Test client', 'Raycast', 'Claude Desktop', 'Cursor', '日本語クライアント', 'Zoë 😀').map((value) => ({ value, ok: true })) },
  { weight: 3, arbitrary: text(40) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 190, maxLength: 260 }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t\n', '  padded  ', 'a\u202eevil', 'line\nbreak', 'nul\u0000', 'bell\u0007') },
).map((value) => {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  // Empty is no name at all; the contract does not say how long a display name may be, or whether it may hold controls.
  const ok = trimmed === '' ? false : [...trimmed].length > 200 || CONTROL.test(trimmed) ? 'unknown' : true;
  return { value, ok };
});

const scopesArb: fc.Arbitrary<Part> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...permissionLevels).map((value) => ({ value, ok: true })) },
  // "Other allowed values: not shown."
  { weight: 1, arbitrary: fc.oneof(fc.constantFrom('readwrite', 'admin', 'tools:read', 'READONLY', ''), text(12)).map((value) => ({ value, ok: 'unknown' as const })) },
);

const stateArb: fc.Arbitrary<Part> = fc.oneof(
  { weight: 3, arbitrary: text(40).filter(isWellFormed) },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(1024), 'é'.repeat(512), 'x'.repeat(1025), 'é'.repeat(513), '😀'.repeat(257)) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ minLength: 1, maxLength: 4 }), fc.integer({ min: 100, max: 1_500 })).map(([s, n]) => s.repeat(n)) },
).map((value) => ({ value, ok: Buffer.byteLength(value) <= 1024 }));

const modeArb: fc.Arbitrary<Part> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('query', 'context').map((value) => ({ value, ok: true })) },
  { weight: 1, arbitrary: fc.oneof(fc.constantFrom('fragment', 'form_post', 'QUERY', ''), text(8)).map((value) => ({ value, ok: 'unknown' as const })) },
);

type Envelope = { prefix: string; ok: boolean | 'unknown'; suffix: string };
const envelopeArb: fc.Arbitrary<Envelope> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ prefix: 'sluice://integrations/pair', ok: true, suffix: '' }) },
  { weight: 1, arbitrary: fc.constantFrom('SLUICE://integrations/pair', 'sluice://INTEGRATIONS/pair', 'Sluice://Integrations/pair').map((prefix) => ({ prefix, ok: true, suffix: '' })) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('sluice://integrations/pair/', 'sluice://integrations/Pair', 'sluice://integration/pair', 'sluice://user@integrations/pair', 'sluice://u:p@integrations/pair', 'sluicex://integrations/pair', 'http://integrations/pair', 'sluice:integrations/pair', 'sluice:///integrations/pair', 'sluice://integrations:80/pair', 'sluice://integrations/pair/../pair2')
      .map((prefix) => ({ prefix, ok: false, suffix: '' })),
  },
  // The contract says nothing of a fragment.
  { weight: 1, arbitrary: text(10).map((t) => ({ prefix: 'sluice://integrations/pair', ok: 'unknown' as const, suffix: `#${encodeURIComponent(t)}` })) },
);

type Link = {
  url: string;
  redirect: Redirect | undefined;
  /** The parameters as sent, decoded. */
  params: [string, string][];
  expect: { ok: boolean | 'unknown'; code?: 'malformed' | 'not_local_redirect' | 'either' };
};

const PARAMETERS = ['client', 'challenge', 'redirect', 'scopes', 'state', 'response_mode'];

/** A link from parts, its query encoded as a form (URLSearchParams), with parameters left out, repeated or extra. */
const linkArb: fc.Arbitrary<Link> = fc
  .record({
    envelope: envelopeArb,
    client: fc.option(clientArb, { freq: 12, nil: undefined }),
    challenge: fc.option(challengeArb, { freq: 12, nil: undefined }),
    redirect: fc.option(redirectArb, { freq: 12, nil: undefined }),
    scopes: fc.option(scopesArb, { freq: 12, nil: undefined }),
    state: fc.option(stateArb, { freq: 1, nil: undefined }),
    mode: fc.option(modeArb, { freq: 1, nil: undefined }),
    extra: fc.array(fc.tuple(fc.oneof(fc.constantFrom('code', 'token', 'error', 'Client', 'REDIRECT'), fc.string({ maxLength: 6 })), text(10)), { maxLength: 2 }),
    repeat: fc.option(fc.tuple(fc.constantFrom(...PARAMETERS), fc.boolean()), { freq: 1, nil: undefined }),
    order: fc.nat(),
  })
  .map(({ envelope, client, challenge, redirect, scopes, state, mode, extra, repeat, order }): Link => {
    const params: [string, string][] = [];
    if (client) params.push(['client', client.value]);
    if (challenge) params.push(['challenge', challenge.value]);
    if (redirect) params.push(['redirect', redirect.url]);
    if (scopes) params.push(['scopes', scopes.value]);
    if (state) params.push(['state', state.value]);
    if (mode) params.push(['response_mode', mode.value]);
    params.push(...extra.filter(([name]) => !PARAMETERS.includes(name)));
    let repeated = false;
    const existing = repeat && params.find(([n]) => n === repeat[0]);
    if (repeat && existing) {
      params.push([existing[0], repeat[1] ? existing[1] : 'other']);
      repeated = true;
    }
    // Rotate the order: the parameters are named, their order must not matter.
    const rotated = params.map((_, i) => params[(i + order) % params.length]!);
    const query = new URLSearchParams(rotated).toString();
    const url = `${envelope.prefix}${query ? `?${query}` : ''}${envelope.suffix}`;

    // What the contract (and decisions.md) says of the parts.
    const definite: ('malformed' | 'not_local_redirect')[] = [];
    let unknown = false;
    /** `absent`: what leaving the parameter out is (required: malformed; optional: fine; unknown: either). */
    const judge = (part: Part | undefined, absent: 'required' | 'optional' | 'unknown') => {
      if (part === undefined) {
        if (absent === 'required') definite.push('malformed');
        if (absent === 'unknown') unknown = true;
      } else if (part.ok === false) definite.push('malformed');
      else if (part.ok === 'unknown') unknown = true;
    };
    if (envelope.ok === false) definite.push('malformed');
    if (envelope.ok === 'unknown') unknown = true;
    if (repeated) definite.push('malformed');
    judge(client, 'required');
    judge(challenge, 'required');
    judge(scopes, 'unknown');
    judge(state, 'optional');
    judge(mode, 'optional');
    if (!redirect || redirect.locality === 'unparseable') definite.push('malformed');
    else if (redirect.locality === 'not_local') definite.push('not_local_redirect');
    else if (redirect.locality === 'unknown') unknown = true;

    let expected: Link['expect'];
    if (definite.length > 0) {
      // The contract does not order the checks: with faults of both kinds, either code; only a redirect
      // of unknown locality can add a not-local refusal to malformed parts.
      const codes = new Set(definite);
      const either = codes.size > 1 || (redirect?.locality === 'unknown' && !codes.has('not_local_redirect'));
      expected = { ok: false, code: either ? 'either' : [...codes][0]! };
    } else {
      expected = { ok: unknown ? 'unknown' : true };
    }
    return { url, redirect, params: rotated, expect: expected };
  });

/** Raw text that only looks like a link, or is one with unencoded, broken or hostile query text. */
const rawLinkArb: fc.Arbitrary<string> = fc.oneof(
  text(120),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.string({ maxLength: 200 }).map((q) => `sluice://integrations/pair?${q}`),
  fc
    .array(fc.tuple(fc.constantFrom(...PARAMETERS, 'x'), fc.oneof(fc.string({ maxLength: 60 }), text(30), fc.constantFrom('%', '%zz', '%E0%A4%A', '&', '=', '#', '+', '%2B', '%00', '\u0000', ' '))), { maxLength: 8 })
    .map((pairs) => `sluice://integrations/pair?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
  linkArb.chain((link) => fc.tuple(fc.constant(link.url), fc.nat(), fc.string({ maxLength: 3 })).map(([url, at, insert]) => `${url.slice(0, at % (url.length + 1))}${insert}${url.slice(at % (url.length + 1))}`)),
);

/** The rules every accepted link honours, whatever the input. */
function expectLinkRules(link: { clientName: string; challenge: string; redirect: URL; requestedLevel: string; state?: string; responseMode?: string }): void {
  expect(link.clientName.trim()).toBe(link.clientName);
  expect(link.clientName.length).toBeGreaterThan(0);
  expect(link.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(permissionLevels).toContain(link.requestedLevel);
  if (link.state !== undefined) expect(Buffer.byteLength(link.state)).toBeLessThanOrEqual(1024);
  if (link.responseMode !== undefined) expect(['query', 'context']).toContain(link.responseMode);
  const { redirect } = link;
  expect(redirect.username + redirect.password, 'a redirect with credentials is never accepted').toBe('');
  const scheme = redirect.protocol.slice(0, -1);
  if (scheme === 'http' || scheme === 'https') expect(['127.0.0.1', 'localhost', '[::1]']).toContain(redirect.hostname);
  else expect(['javascript', 'data', 'file', 'blob', 'ftp', 'ssh', 'smb', 'webcal', 'ldap', 'sluice', 'ws', 'wss', 'mailto']).not.toContain(scheme);
}

type Refusal = { ok: false; reason: string; code?: string };

/** A refusal names its reason; a refused non-local redirect says so and never repeats credentials. */
function expectRefusal(refusal: Refusal, link: Link | undefined): void {
  expect(typeof refusal.reason).toBe('string');
  expect(refusal.reason.length).toBeGreaterThan(0);
  const pw = link?.redirect?.password;
  if (pw !== undefined && !link!.url.replace(`:${pw}@`, ':@').includes(pw)) {
    expect(refusal.reason, 'the refusal does not repeat the redirect’s password').not.toContain(pw);
  }
}

function expectVerdict(got: { ok: boolean; code?: string }, link: Link, where: string): void {
  const label = `${where} ${got.ok ? 'accepted' : `refused${got.code ? `:${got.code}` : ''}`}`;
  count(label);
  if (link.expect.ok !== 'unknown') expect(got.ok, `${link.url}\n  should be ${link.expect.ok ? 'accepted' : 'refused'}`).toBe(link.expect.ok);
  if (!got.ok && link.expect.code !== undefined && link.expect.code !== 'either' && got.code !== undefined) {
    expect(got.code, link.url).toBe(link.expect.code);
  }
}

describe('deep link fuzzing', () => {
  it(
    'parsePairingLink on links built from parts: never throws, and decides as the contract says',
    () => {
      fc.assert(
        fc.property(
          linkArb,
          tally.count('parsePairingLink (model)', (link) => {
            const parsed = parsePairingLink(link.url);
            expectVerdict(parsed.ok ? { ok: true } : { ok: false, code: parsed.code }, link, 'parse');
            if (parsed.ok) {
              expectLinkRules(parsed.link);
              const sentClient = link.params.find(([n]) => n === 'client')?.[1];
              expect(parsed.link.clientName).toBe(sentClient?.trim());
            } else {
              expect(['malformed', 'not_local_redirect']).toContain(parsed.code);
              expectRefusal(parsed, link);
            }
          }),
        ),
        fuzzParameters(RUNS.parseModel),
      );
    },
    timeoutFor(RUNS.parseModel, 2),
  );

  it(
    'parsePairingLink on raw text: never throws; whatever it accepts honours every rule',
    () => {
      fc.assert(
        fc.property(
          rawLinkArb,
          tally.count('parsePairingLink (raw)', (url) => {
            const parsed = parsePairingLink(url);
            if (parsed.ok) expectLinkRules(parsed.link);
            else {
              expect(['malformed', 'not_local_redirect']).toContain(parsed.code);
              expectRefusal(parsed, undefined);
            }
          }),
        ),
        fuzzParameters(RUNS.parseRaw),
      );
    },
    timeoutFor(RUNS.parseRaw, 2),
  );

  it(
    'app.pairing.openLink: never throws; refusals are logged auth/denied; accepted sheets are denied and cleaned up',
    () => {
      fc.assert(
        fc.property(
          fc.oneof({ weight: 4, arbitrary: linkArb }, { weight: 1, arbitrary: rawLinkArb.map((url): Link => ({ url, redirect: undefined, params: [], expect: { ok: 'unknown' } })) }),
          tally.count('openLink', (link) => {
            if (link.redirect?.password) passwords += 1;
            const before = f.app.activity.list({ limit: 1 })[0]?.seq ?? 0;
            const delivered = f.delivered.length;
            let opened: ReturnType<typeof f.app.pairing.openLink>;
            try {
              opened = f.app.pairing.openLink(link.url);
            } catch (error) {
              throw new Error(`openLink threw for ${JSON.stringify(link.url)}: ${String(error)}`, { cause: error });
            }
            const rows = f.app.activity.list({ limit: 5 }).filter((r) => r.seq > before);
            // The activity log never keeps a password the redirect carried.
            const pw = link.redirect?.password;
            if (pw !== undefined) expect(JSON.stringify(rows), 'the activity log never holds the redirect’s password').not.toContain(pw);
            if (!opened.ok) {
              expectVerdict({ ok: false }, link, 'openLink');
              expectRefusal(opened, link);
              expect(rows.map((r) => [r.category, r.outcome]), 'a refused link is logged as auth/denied').toEqual([['auth', 'denied']]);
              return;
            }
            expectVerdict({ ok: true }, link, 'openLink');
            const { sheet } = opened;
            const parsed = parsePairingLink(link.url);
            if (!parsed.ok) throw new Error('openLink accepted a link parsePairingLink refuses');
            expect(sheet).toMatchObject({ kind: 'pairing', clientName: parsed.link.clientName, redirect: parsed.link.redirect.href, requestedLevel: parsed.link.requestedLevel, status: 'awaitingApproval' });
            expect(sheet.secondsLeft).toBeGreaterThanOrEqual(299);
            expect(sheet.secondsLeft).toBeLessThanOrEqual(300);
            expect(f.app.liveActors()).toBe(f.baseline + 1);

            // Deny it: the client hears error=denied at its own redirect, with its state unchanged.
            expect(f.app.pairing.deny(sheet.id)).toEqual({ ok: true });
            expect(f.app.liveActors(), 'a denied sheet leaves no actor behind').toBe(f.baseline);
            expect(f.delivered.length).toBe(delivered + 1);
            const callback = new URL(f.delivered.at(-1)!);
            const redirect = parsed.link.redirect;
            expect(callback.protocol).toBe(redirect.protocol);
            expect(callback.host).toBe(redirect.host);
            expect(callback.pathname).toBe(redirect.pathname);
            const context = parsed.link.responseMode === 'context' || (parsed.link.responseMode === undefined && redirect.protocol === 'raycast:');
            const fields = context ? (JSON.parse(callback.searchParams.get('context') ?? 'null') as Record<string, string>) : Object.fromEntries(['error', 'error_description', 'state'].map((k) => [k, callback.searchParams.getAll(k)]));
            const expected = context
              ? { error: 'denied', error_description: 'user_denied', ...(parsed.link.state !== undefined ? { state: parsed.link.state } : {}) }
              : // Without a state of its own, the redirect's own state parameter (if any) is left as it was.
                { error: ['denied'], error_description: ['user_denied'], state: parsed.link.state !== undefined ? [parsed.link.state] : redirect.searchParams.getAll('state') };
            expect(fields).toEqual(expected);
          }),
        ),
        fuzzParameters(RUNS.open),
      );
    },
    timeoutFor(RUNS.open, 4),
  );

  it('afterwards no actor is left', () => {
    expect(f.app.liveActors()).toBe(f.baseline);
    tally.note(`links with a password in the redirect: ${passwords}`);
  });
});
