import { describe, expect, it } from 'vitest';
import { LAUNCHER_SCHEMES, approvalCallback, denialCallback } from '../../../src/pairing/callback.js';
import type { PairingLink } from '../../../src/pairing/deepLink.js';

const CODE = '9f1c1a56-3c1e-4c7e-9d0e-6f5b2b7f0a11';
const RAYCAST = 'raycast://extensions/acme/sluice/pair';
const LOOPBACK = 'http://127.0.0.1:51234/callback';
const APP = 'com.example.app:/oauth2redirect';

const link = (redirect: string, extra: Partial<PairingLink> = {}): PairingLink => ({
  clientName: 'Test client',
  challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  redirect: new URL(redirect),
  requestedLevel: 'readWrite',
  ...extra,
});

const context = (json: object) => `context=${encodeURIComponent(JSON.stringify(json))}`;
const approved = { code: CODE };
const denied = { error: 'denied', error_description: 'user_denied' };
const DENIED_FLAT = 'error=denied&error_description=user_denied';

describe('pairing callbacks', () => {
  it('knows raycast as a launcher', () => {
    expect([...LAUNCHER_SCHEMES]).toEqual(['raycast']);
  });

  it.each([
    // Launcher scheme: JSON in context.
    ['approve', RAYCAST, {}, `${RAYCAST}?${context(approved)}`],
    ['approve', RAYCAST, { state: 's1' }, `${RAYCAST}?${context({ ...approved, state: 's1' })}`],
    ['deny', RAYCAST, {}, `${RAYCAST}?${context(denied)}`],
    ['deny', RAYCAST, { state: 's1' }, `${RAYCAST}?${context({ ...denied, state: 's1' })}`],
    // Any other redirect: flat parameters.
    ['approve', LOOPBACK, {}, `${LOOPBACK}?code=${CODE}`],
    ['approve', LOOPBACK, { state: 's1' }, `${LOOPBACK}?code=${CODE}&state=s1`],
    ['deny', LOOPBACK, {}, `${LOOPBACK}?${DENIED_FLAT}`],
    ['deny', LOOPBACK, { state: 's1' }, `${LOOPBACK}?${DENIED_FLAT}&state=s1`],
    ['approve', APP, {}, `${APP}?code=${CODE}`],
    ['deny', APP, { state: 's1' }, `${APP}?${DENIED_FLAT}&state=s1`],
    // response_mode=query forces flat parameters, even for a launcher.
    ['approve', RAYCAST, { responseMode: 'query' }, `${RAYCAST}?code=${CODE}`],
    ['deny', RAYCAST, { responseMode: 'query', state: 's1' }, `${RAYCAST}?${DENIED_FLAT}&state=s1`],
    ['approve', LOOPBACK, { responseMode: 'query' }, `${LOOPBACK}?code=${CODE}`],
    // response_mode=context forces JSON, for any redirect.
    ['approve', LOOPBACK, { responseMode: 'context' }, `${LOOPBACK}?${context(approved)}`],
    [
      'deny',
      APP,
      { responseMode: 'context', state: 's1' },
      `${APP}?${context({ ...denied, state: 's1' })}`,
    ],
    ['approve', RAYCAST, { responseMode: 'context' }, `${RAYCAST}?${context(approved)}`],
  ] as const)('%s to %s with %j → %s', (outcome, redirect, extra, expected) => {
    const target = link(redirect, extra);
    const url = outcome === 'approve' ? approvalCallback(target, CODE) : denialCallback(target);
    expect(url.href).toBe(expected);
  });

  it('reads back as the JSON the contract describes', () => {
    const url = approvalCallback(link(RAYCAST, { state: 'abc' }), CODE);
    expect(url.searchParams.get('context')).toBe(`{"code":"${CODE}","state":"abc"}`);
    const denial = denialCallback(link(RAYCAST));
    expect(denial.searchParams.get('context')).toBe('{"error":"denied","error_description":"user_denied"}');
  });

  it('escapes the JSON and the state so every decoder reads them back unchanged', () => {
    const state = 'a b&c=d+e/f?g#h%20"é😀\'()*!~';
    for (const url of [
      approvalCallback(link(RAYCAST, { state }), CODE),
      denialCallback(link(LOOPBACK, { responseMode: 'context', state })),
    ]) {
      const raw = url.search.slice(1);
      expect(raw).toMatch(/^context=[A-Za-z0-9%\-_.!~*'()]+$/);
      expect(JSON.parse(url.searchParams.get('context')!).state).toBe(state);
      expect(JSON.parse(decodeURIComponent(raw.slice('context='.length))).state).toBe(state);
    }
    const flat = approvalCallback(link(LOOPBACK, { state }), CODE);
    expect(flat.searchParams.get('state')).toBe(state);
    expect(decodeURIComponent(flat.search.split('&state=')[1]!)).toBe(state);
    expect(flat.hash).toBe('');
  });

  it('echoes an empty state', () => {
    expect(approvalCallback(link(LOOPBACK, { state: '' }), CODE).href).toBe(`${LOOPBACK}?code=${CODE}&state=`);
    expect(JSON.parse(approvalCallback(link(RAYCAST, { state: '' }), CODE).searchParams.get('context')!)).toEqual(
      { code: CODE, state: '' },
    );
  });

  it('keeps the redirect’s own query parameters byte for byte, and its fragment', () => {
    const redirect = 'http://localhost:8080/cb?session=a%20b&flag&x=1+2&path=%2Fhome#done';
    expect(approvalCallback(link(redirect, { state: 's' }), CODE).href).toBe(
      `http://localhost:8080/cb?session=a%20b&flag&x=1+2&path=%2Fhome&code=${CODE}&state=s#done`,
    );
    expect(denialCallback(link('raycast://extensions/acme/sluice/pair?launchType=background')).href).toBe(
      `raycast://extensions/acme/sluice/pair?launchType=background&${context(denied)}`,
    );
  });

  it('replaces a parameter of the redirect that has the name of a callback field', () => {
    const redirect = 'http://127.0.0.1:9/cb?code=stale&keep=1&state=old&c%6Fde=encoded&error=x';
    expect(approvalCallback(link(redirect, { state: 'new' }), CODE).href).toBe(
      `http://127.0.0.1:9/cb?keep=1&error=x&code=${CODE}&state=new`,
    );
    expect(approvalCallback(link(`${RAYCAST}?context=stale&keep=1`), CODE).href).toBe(
      `${RAYCAST}?keep=1&${context(approved)}`,
    );
  });

  it('leaves the link’s redirect untouched', () => {
    const target = link(`${LOOPBACK}?keep=1`, { state: 's' });
    approvalCallback(target, CODE);
    denialCallback(target);
    expect(target.redirect.href).toBe(`${LOOPBACK}?keep=1`);
  });
});
