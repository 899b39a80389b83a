import { permissionLevels, type PermissionLevel } from '../auth/levels.js';
import { LOOPBACK_HOSTS } from '../protocol/loopback.js';
import { isValidChallenge } from './pkce.js';
import { PAIRING } from '../core/contract.js';
import { nameCharacterIn } from '../core/nameCharacters.js';

export type PairingLink = {
  clientName: string;
  challenge: string;
  redirect: URL;
  requestedLevel: PermissionLevel;
  state?: string;
  responseMode?: 'query' | 'context';
};

export type PairingLinkRefusal = {
  ok: false;
  /** One sentence for the user. */
  reason: string;
  code: 'malformed' | 'not_local_redirect';
};

const PARAMETERS = ['client', 'challenge', 'redirect', 'scopes', 'state', 'response_mode'] as const;

// RFC 8252 §7.1: a reverse domain name (com.example.app) or a plain app name (raycast). No `+`, which
// rules out compound network schemes such as svn+ssh and web pages' web+… handlers.
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*$/;

/** Schemes that must never receive a pairing code. */
const REFUSED_SCHEMES = new Set([
  'sluice',
  // Web and browser: the code would reach a web page.
  'ws', 'wss', 'javascript', 'vbscript', 'data', 'file', 'blob', 'filesystem', 'about', 'view-source', 'jar',
  'resource', 'intent', 'devtools', 'chrome', 'googlechrome', 'googlechromes', 'edge', 'firefox', 'opera',
  'brave', 'vivaldi', 'safari',
  // Network: the handler connects to a host named in the URL.
  'ftp', 'ftps', 'sftp', 'tftp', 'ssh', 'telnet', 'rlogin', 'smb', 'cifs', 'nfs', 'afp', 'rdp', 'vnc', 'git',
  'svn', 'webcal', 'webcals', 'ldap', 'ldaps', 'dav', 'davs', 'feed', 'news', 'nntp', 'gopher', 'irc', 'ircs',
  'xmpp', 'sip', 'sips', 'rtsp', 'rtmp', 'mms', 'magnet', 'ipfs', 'ipns', 'mailto', 'tel', 'sms', 'callto',
  'facetime', 'facetime-audio', 'shell', 'search-ms', 'itms-services',
]);
// Browser and OS handler families: chrome-extension, moz-extension, microsoft-edge, x-safari-https, ms-word, …
const REFUSED_PREFIXES = ['chrome-', 'moz-', 'microsoft-', 'safari-', 'x-safari-', 'opera-', 'edge-', 'ms-'];

/** Parses `sluice://integrations/pair?client=…&challenge=…&redirect=…&scopes=…[&state=…][&response_mode=…]`. */
export function parsePairingLink(url: string): { ok: true; link: PairingLink } | PairingLinkRefusal {
  const parsed = parseUrl(url);
  if (
    parsed?.protocol !== 'sluice:' ||
    parsed.host.toLowerCase() !== 'integrations' ||
    parsed.pathname !== '/pair' ||
    parsed.username !== '' ||
    parsed.password !== ''
  ) {
    return malformed('This is not a Sluice pairing link.');
  }
  const params = parsed.searchParams;
  const repeated = PARAMETERS.find((name) => params.getAll(name).length > 1);
  if (repeated) return malformed(`The pairing link gives the parameter ${repeated} more than once.`);

  const redirectText = params.get('redirect');
  if (redirectText === null) return malformed('The pairing link has no redirect.');
  const redirect = parseUrl(redirectText);
  if (!redirect) return malformed('The redirect of the pairing link is not a valid URL.');
  if (!isLocalRedirect(redirect)) {
    // The message is shown and logged: never repeat credentials the link carried.
    const shown = new URL(redirect.href);
    shown.username = '';
    shown.password = '';
    return {
      ok: false,
      code: 'not_local_redirect',
      reason: `The redirect ${shown.href} is not a local callback: Sluice only sends pairing codes to this computer.`,
    };
  }

  const clientName = params.get('client')?.trim() ?? '';
  if (clientName === '') return malformed('The pairing link does not name the client.');
  if ([...clientName].length > PAIRING.maxClientNameChars)
    return malformed(`The client name is longer than ${PAIRING.maxClientNameChars} characters.`);
  // The rule of every name (the client's becomes its token's): no controls, line breaks or bidi controls.
  if (nameCharacterIn(clientName)) return malformed('The client name contains control characters.');

  const challenge = params.get('challenge');
  if (!isValidChallenge(challenge))
    return malformed('The challenge of the pairing link is not 43 base64url characters.');

  const requestedLevel = params.get('scopes');
  if (!isPermissionLevel(requestedLevel)) {
    return malformed(`The pairing link must ask for one of the permission levels ${permissionLevels.join(', ')}.`);
  }

  const link: PairingLink = { clientName, challenge, redirect, requestedLevel };
  const state = params.get('state');
  if (state !== null) {
    if (Buffer.byteLength(state) > PAIRING.maxStateBytes)
      return malformed(`The state of the pairing link is longer than ${PAIRING.maxStateBytes} bytes.`);
    link.state = state;
  }
  const responseMode = params.get('response_mode');
  if (responseMode !== null) {
    if (responseMode !== 'query' && responseMode !== 'context')
      return malformed('The response_mode of the pairing link must be query or context.');
    link.responseMode = responseMode;
  }
  return { ok: true, link };
}

/**
 * Judged on the parsed URL, whose host the WHATWG parser has already normalised (case, percent-escapes,
 * numeric IPv4 such as `0x7f000001`): the normalised host must be exactly one of the loopback names.
 * The callback is later built from this same parsed URL, so what is judged is what is opened.
 */
function isLocalRedirect(url: URL): boolean {
  if (url.username !== '' || url.password !== '') return false;
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'http' || scheme === 'https') return LOOPBACK_HOSTS.has(url.hostname);
  return (
    scheme.length > 1 && // a one-letter "scheme" is a Windows drive: c:/Users/…
    PRIVATE_USE_SCHEME.test(scheme) &&
    !REFUSED_SCHEMES.has(scheme) &&
    !REFUSED_PREFIXES.some((prefix) => scheme.startsWith(prefix))
  );
}

function isPermissionLevel(value: string | null): value is PermissionLevel {
  return permissionLevels.some((level) => level === value);
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function malformed(reason: string): PairingLinkRefusal {
  return { ok: false, code: 'malformed', reason };
}
