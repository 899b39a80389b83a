import { describe, expect, it } from 'vitest';
import { parsePairingLink, type PairingLinkRefusal } from '../../../src/pairing/deepLink.js';
import { challengeFor, createVerifier } from '../../../src/pairing/pkce.js';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'http://127.0.0.1:51234/callback';
const VALID = { client: 'Raycast', challenge: CHALLENGE, redirect: REDIRECT, scopes: 'readWrite' };

/** A pairing link from parameters; `undefined` leaves a parameter out. */
function pairLink(params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...VALID, ...params }))
    if (value !== undefined) query.append(name, value);
  return `sluice://integrations/pair?${query}`;
}

function accepted(url: string) {
  const result = parsePairingLink(url);
  if (!result.ok) throw new Error(`refused ${url}: ${result.reason}`);
  return result.link;
}

function refused(url: string): PairingLinkRefusal {
  const result = parsePairingLink(url);
  if (result.ok) throw new Error(`accepted ${url}`);
  expect(result.reason).toMatch(/^[A-Z].*\.$/);
  return result;
}

const notLocal = (href: string) =>
  `The redirect ${href} is not a local callback: Sluice only sends pairing codes to this computer.`;

describe('parsePairingLink', () => {
  it('accepts the reference client’s link', () => {
    const challenge = challengeFor(createVerifier());
    expect(accepted(pairLink({ challenge }))).toEqual({
      clientName: 'Raycast',
      challenge,
      redirect: new URL(REDIRECT),
      requestedLevel: 'readWrite',
    });
  });

  it.each(['readOnly', 'readWrite', 'fullAccess'] as const)('accepts the level %s', (scopes) => {
    expect(accepted(pairLink({ scopes })).requestedLevel).toBe(scopes);
  });

  it('accepts state and response_mode, and ignores unknown parameters', () => {
    const link = accepted(pairLink({ state: 'xyz 123', response_mode: 'context', utm: 'a', extra: '' }));
    expect(link.state).toBe('xyz 123');
    expect(link.responseMode).toBe('context');
    expect(accepted(pairLink({ response_mode: 'query' })).responseMode).toBe('query');
    expect(accepted(pairLink({ state: '' })).state).toBe('');
    expect(accepted(`${pairLink()}&utm=a&utm=b`).clientName).toBe('Raycast');
    expect(Object.keys(accepted(pairLink()))).not.toContain('state');
  });

  it.each([
    ['SLUICE://integrations/pair', 'an upper-case scheme'],
    ['sluice://Integrations/pair', 'a mixed-case host'],
  ])('accepts %s (%s)', (base) => {
    expect(accepted(pairLink().replace('sluice://integrations/pair', base)).clientName).toBe('Raycast');
  });

  it('ignores a fragment on the link', () => {
    expect(accepted(`${pairLink()}#&scopes=fullAccess`).requestedLevel).toBe('readWrite');
  });

  describe('the client name', () => {
    it.each([
      ['  Raycast  ', 'Raycast'],
      ['\tClaude Desktop\n', 'Claude Desktop'],
      ['Émile’s 日本語 tool 😀', 'Émile’s 日本語 tool 😀'],
      ['x'.repeat(200), 'x'.repeat(200)],
      ['😀'.repeat(200), '😀'.repeat(200)],
      [` ${'x'.repeat(200)} `, 'x'.repeat(200)],
    ])('accepts %j as %j', (client, expected) => {
      expect(accepted(pairLink({ client })).clientName).toBe(expected);
    });

    it('reads + as a space, as form decoding does', () => {
      expect(accepted(pairLink().replace('client=Raycast', 'client=Claude+Desktop')).clientName).toBe(
        'Claude Desktop',
      );
    });

    it.each([
      ['missing', undefined, 'The pairing link does not name the client.'],
      ['empty', '', 'The pairing link does not name the client.'],
      ['only spaces', '   ', 'The pairing link does not name the client.'],
      ['201 characters', 'x'.repeat(201), 'The client name is longer than 200 characters.'],
      ['NUL', 'Ray\u0000cast', 'The client name contains control characters.'],
      ['a line feed inside', 'Ray\ncast', 'The client name contains control characters.'],
      ['ESC', 'Ray\u001bcast', 'The client name contains control characters.'],
      ['DEL', 'Ray\u007fcast', 'The client name contains control characters.'],
      ['a C1 control', 'Ray\u0085cast', 'The client name contains control characters.'],
      ['a right-to-left override', 'Ray\u202ecast', 'The client name contains control characters.'],
      ['a bidi isolate', 'Ray\u2066cast', 'The client name contains control characters.'],
      ['a line separator', 'Ray\u2028cast', 'The client name contains control characters.'],
    ])('refuses a client name that is %s', (_label, client, reason) => {
      expect(refused(pairLink({ client }))).toEqual({ ok: false, code: 'malformed', reason });
    });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['42 characters', CHALLENGE.slice(1)],
    ['44 characters', `${CHALLENGE}A`],
    ['padded', `${CHALLENGE.slice(1)}=`],
    ['in the standard base64 alphabet', `${CHALLENGE.slice(2)}+/`],
    ['a verifier-only character', `${CHALLENGE.slice(1)}~`],
  ])('refuses a challenge that is %s', (_label, challenge) => {
    expect(refused(pairLink({ challenge }))).toEqual({
      ok: false,
      code: 'malformed',
      reason: 'The challenge of the pairing link is not 43 base64url characters.',
    });
  });

  it.each([undefined, '', 'readwrite', 'READONLY', 'admin', 'tools:read', 'tools:read resources:read', 'readOnly '])(
    'refuses the scopes %j',
    (scopes) => {
      expect(refused(pairLink({ scopes }))).toEqual({
        ok: false,
        code: 'malformed',
        reason: 'The pairing link must ask for one of the permission levels readOnly, readWrite, fullAccess.',
      });
    },
  );

  it('limits state to 1,024 bytes of UTF-8', () => {
    expect(accepted(pairLink({ state: 's'.repeat(1024) })).state).toHaveLength(1024);
    expect(accepted(pairLink({ state: 'é'.repeat(512) })).state).toHaveLength(512);
    for (const state of ['s'.repeat(1025), 'é'.repeat(513), '😀'.repeat(257)]) {
      expect(refused(pairLink({ state }))).toEqual({
        ok: false,
        code: 'malformed',
        reason: 'The state of the pairing link is longer than 1024 bytes.',
      });
    }
  });

  it.each(['', 'fragment', 'form_post', 'QUERY', 'Context'])('refuses response_mode=%j', (mode) => {
    expect(refused(pairLink({ response_mode: mode }))).toEqual({
      ok: false,
      code: 'malformed',
      reason: 'The response_mode of the pairing link must be query or context.',
    });
  });

  it.each(['client', 'challenge', 'redirect', 'scopes', 'state', 'response_mode'])(
    'refuses a repeated %s, even with the same value or an escaped name',
    (name) => {
      const base = pairLink({ state: 's', response_mode: 'query' });
      const value = new URLSearchParams(base.split('?')[1]).get(name)!;
      const encodedName = name.replace('e', '%65');
      for (const url of [`${base}&${name}=${encodeURIComponent(value)}`, `${base}&${encodedName}=x`]) {
        expect(refused(url)).toEqual({
          ok: false,
          code: 'malformed',
          reason: `The pairing link gives the parameter ${name} more than once.`,
        });
      }
    },
  );

  it.each([
    ['', 'an empty string'],
    ['not a link', 'not a URL'],
    ['https://integrations/pair', 'another scheme'],
    ['sluicex://integrations/pair', 'a longer scheme'],
    ['sluice:integrations/pair', 'no authority'],
    ['sluice://integration/pair', 'another host'],
    ['sluice://integrations.evil.example/pair', 'a longer host'],
    ['sluice://integrations:8080/pair', 'a port'],
    ['sluice://me@integrations/pair', 'a user name'],
    ['sluice://me:pw@integrations/pair', 'a password'],
    ['sluice://integrations/pair/', 'a trailing slash'],
    ['sluice://integrations/Pair', 'another path case'],
    ['sluice://integrations/pairing', 'a longer path'],
    ['sluice://integrations/', 'no path'],
    ['sluice://integrations/exchange', 'another action'],
  ])('refuses %j (%s) as not a pairing link', (base) => {
    const query = base === '' || base === 'not a link' ? '' : `?${pairLink().split('?')[1]}`;
    expect(refused(`${base}${query}`)).toEqual({
      ok: false,
      code: 'malformed',
      reason: 'This is not a Sluice pairing link.',
    });
  });

  describe('the redirect', () => {
    it.each([
      // Loopback http(s), any port and path.
      ['http://127.0.0.1:51234/callback', 'http://127.0.0.1:51234/callback'],
      ['http://127.0.0.1/', 'http://127.0.0.1/'],
      ['http://localhost/cb', 'http://localhost/cb'],
      ['https://localhost:8443/a/b?x=1#f', 'https://localhost:8443/a/b?x=1#f'],
      ['http://[::1]:5000/x', 'http://[::1]:5000/x'],
      ['https://[::1]/', 'https://[::1]/'],
      ['http://127.0.0.1:0/', 'http://127.0.0.1:0/'],
      // What the URL parser normalises to exactly one of the three hosts is accepted in that form.
      ['HTTP://LOCALHOST/', 'http://localhost/'],
      ['http://LocalHost:80/cb', 'http://localhost/cb'],
      ['http://0x7f000001/', 'http://127.0.0.1/'],
      ['http://2130706433/', 'http://127.0.0.1/'],
      ['http://127.1/', 'http://127.0.0.1/'],
      ['http://0177.0.0.1/', 'http://127.0.0.1/'],
      ['http://%6c%6fcalhost/', 'http://localhost/'],
      ['http://%31%32%37.0.0.1/', 'http://127.0.0.1/'],
      ['http://[0:0:0:0:0:0:0:1]:9/x', 'http://[::1]:9/x'],
      ['http:127.0.0.1/cb', 'http://127.0.0.1/cb'],
      ['http:\\\\localhost\\cb', 'http://localhost/cb'],
      ['http://127.0.0.1\\@evil.example/', 'http://127.0.0.1/@evil.example/'],
      ['http://@127.0.0.1/', 'http://127.0.0.1/'],
      // Private-use schemes: reverse domain names and plain app names.
      ['raycast://extensions/acme/sluice/pair', 'raycast://extensions/acme/sluice/pair'],
      ['Raycast://extensions/x', 'raycast://extensions/x'],
      ['com.example.app:/oauth2redirect', 'com.example.app:/oauth2redirect'],
      ['com.example.app://callback?x=1', 'com.example.app://callback?x=1'],
      ['Com.Example.App:/cb', 'com.example.app:/cb'],
      ['io.github.some-user.tool2:done', 'io.github.some-user.tool2:done'],
      ['my-app:callback', 'my-app:callback'],
      ['myapp://done', 'myapp://done'],
      ['vscode://acme.sluice/pair', 'vscode://acme.sluice/pair'],
    ])('accepts %s as %s', (redirect, href) => {
      expect(accepted(pairLink({ redirect })).redirect.href).toBe(href);
    });

    it.each([
      // Hosts that only look local.
      ['http://127.0.0.1.evil.example/', 'http://127.0.0.1.evil.example/'],
      ['http://127.0.0.1%2eevil.example/', 'http://127.0.0.1.evil.example/'],
      ['http://localhost./', 'http://localhost./'],
      ['http://localhost.localdomain/', 'http://localhost.localdomain/'],
      ['http://localhost.evil.example:80/', 'http://localhost.evil.example/'],
      ['http://127.0.0.2/', 'http://127.0.0.2/'],
      ['http://0.0.0.0/', 'http://0.0.0.0/'],
      ['http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/'],
      ['http://[::]/', 'http://[::]/'],
      ['http://192.168.1.10/', 'http://192.168.1.10/'],
      ['http://evil.example/callback', 'http://evil.example/callback'],
      ['https://evil.example/callback', 'https://evil.example/callback'],
      ['http://%65vil.example/', 'http://evil.example/'],
      // Userinfo, which also hides the real host: the message shows where it really points, without it.
      ['http://localhost@evil.example', 'http://evil.example/'],
      ['http://127.0.0.1:80@evil.example/', 'http://evil.example/'],
      ['http://[::1]:80@evil', 'http://evil/'],
      ['http://user:pass@127.0.0.1/', 'http://127.0.0.1/'],
      ['http://user@localhost/', 'http://localhost/'],
      ['http://:secret@[::1]/', 'http://[::1]/'],
      ['raycast://me@extensions/x', 'raycast://extensions/x'],
      ['com.example.app://u:p@callback/', 'com.example.app://callback/'],
      // Schemes that are not private-use in shape.
      ['c:/Users/me/callback', 'c:/Users/me/callback'],
      ['C:\\Users\\me', 'c:\\Users\\me'],
      ['svn+ssh://evil.example/repo', 'svn+ssh://evil.example/repo'],
      ['git+ssh://evil.example/repo', 'git+ssh://evil.example/repo'],
      ['web+mail:x', 'web+mail:x'],
      ['com..app:/cb', 'com..app:/cb'],
      ['com.app.:/cb', 'com.app.:/cb'],
      // Tricks the parser undoes before the scheme is judged.
      [' javascript:alert(1)', 'javascript:alert(1)'],
      ['java\tscript:alert(1)', 'javascript:alert(1)'],
      ['JavaScript:alert(1)', 'javascript:alert(1)'],
    ])('refuses %j, showing %s', (redirect, href) => {
      expect(refused(pairLink({ redirect }))).toEqual({
        ok: false,
        code: 'not_local_redirect',
        reason: notLocal(href),
      });
    });

    const families: [string, string[]][] = [
      ['Sluice’s own', ['sluice']],
      [
        'web',
        ['javascript', 'vbscript', 'data', 'file', 'blob', 'filesystem', 'about', 'view-source', 'jar', 'resource'],
      ],
      ['web sockets and feeds', ['ws', 'wss', 'feed', 'intent', 'devtools']],
      [
        'browser-named',
        [
          'chrome', 'chrome-extension', 'chrome-untrusted', 'googlechrome', 'googlechromes', 'edge',
          'microsoft-edge', 'microsoft-edge-holographic', 'firefox', 'moz-extension', 'opera', 'brave',
          'vivaldi', 'safari', 'safari-extension', 'x-safari-https', 'opera-http', 'edge-beta',
        ],
      ],
      [
        'file sharing and remote login',
        ['smb', 'cifs', 'nfs', 'afp', 'ssh', 'sftp', 'ftp', 'ftps', 'tftp', 'telnet', 'rlogin', 'rdp', 'vnc'],
      ],
      ['source control', ['git', 'svn']],
      ['calendars and directories', ['webcal', 'webcals', 'ldap', 'ldaps', 'dav', 'davs']],
      [
        'messaging and calls',
        ['mailto', 'tel', 'sms', 'callto', 'facetime', 'facetime-audio', 'sip', 'sips', 'xmpp', 'irc', 'ircs'],
      ],
      ['news and media', ['news', 'nntp', 'gopher', 'rtsp', 'rtmp', 'mms', 'magnet', 'ipfs', 'ipns']],
      [
        'OS handlers that fetch',
        ['ms-msdt', 'ms-word', 'ms-excel', 'ms-appinstaller', 'ms-settings', 'search-ms', 'shell', 'itms-services'],
      ],
    ];

    it.each(families.flatMap(([family, schemes]) => schemes.map((scheme) => [family, scheme])))(
      'refuses the %s scheme %s',
      (_family, scheme) => {
        const redirect = `${scheme}://evil.example/cb`;
        const result = refused(pairLink({ redirect }));
        expect(result).toEqual({ ok: false, code: 'not_local_redirect', reason: notLocal(new URL(redirect).href) });
        expect(refused(pairLink({ redirect: redirect.toUpperCase() })).code).toBe('not_local_redirect');
      },
    );

    it.each([
      ['missing', undefined, 'The pairing link has no redirect.'],
      ['empty', '', 'The redirect of the pairing link is not a valid URL.'],
      ['relative', '/callback', 'The redirect of the pairing link is not a valid URL.'],
      ['a bare host', '127.0.0.1:5000', 'The redirect of the pairing link is not a valid URL.'],
      ['a host with an escaped NUL', 'http://localhost%00/', 'The redirect of the pairing link is not a valid URL.'],
      ['an invalid port', 'http://localhost:99999/', 'The redirect of the pairing link is not a valid URL.'],
      ['an IPv6 zone', 'http://[::1%25lo0]/', 'The redirect of the pairing link is not a valid URL.'],
      ['a scheme starting with a dot', '.app:/cb', 'The redirect of the pairing link is not a valid URL.'],
    ])('refuses a redirect that is %s as malformed', (_label, redirect, reason) => {
      expect(refused(pairLink({ redirect }))).toEqual({ ok: false, code: 'malformed', reason });
    });
  });
});
