import { describe, expect, it } from 'vitest';
import {
  challengeFor,
  createVerifier,
  isValidChallenge,
  isValidVerifier,
  verifierMatches,
} from '../../../src/pairing/pkce.js';

// RFC 7636, Appendix B.
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE', () => {
  it('creates 43-character verifiers that are valid and never repeat', () => {
    const verifiers = Array.from({ length: 200 }, createVerifier);
    for (const v of verifiers) {
      expect(v).toHaveLength(43);
      expect(isValidVerifier(v)).toBe(true);
    }
    expect(new Set(verifiers).size).toBe(verifiers.length);
  });

  it('derives the S256 challenge of RFC 7636', () => {
    expect(challengeFor(RFC_VERIFIER)).toBe(RFC_CHALLENGE);
    expect(isValidChallenge(challengeFor(createVerifier()))).toBe(true);
  });

  it.each([
    ['43 characters', 'a'.repeat(43), true],
    ['128 characters', 'a'.repeat(128), true],
    ['every unreserved character', `${'A'.repeat(36)}Zaz09-._~`, true],
    ['42 characters', 'a'.repeat(42), false],
    ['129 characters', 'a'.repeat(129), false],
    ['a plus', `${'a'.repeat(42)}+`, false],
    ['a slash', `${'a'.repeat(42)}/`, false],
    ['padding', `${'a'.repeat(42)}=`, false],
    ['a space', `${'a'.repeat(42)} `, false],
    ['a non-ASCII letter', `${'a'.repeat(42)}é`, false],
    ['a trailing newline', `${'a'.repeat(43)}\n`, false],
    ['a number', 42, false],
    ['null', null, false],
  ])('isValidVerifier: %s → %s', (_label, value, expected) => {
    expect(isValidVerifier(value)).toBe(expected);
  });

  it.each([
    ['the RFC challenge', RFC_CHALLENGE, true],
    ['42 characters', RFC_CHALLENGE.slice(1), false],
    ['44 characters', `${RFC_CHALLENGE}A`, false],
    ['padded', `${RFC_CHALLENGE}=`, false],
    ['standard base64 alphabet', `${RFC_CHALLENGE.slice(2)}+/`, false],
    ['a tilde (allowed in verifiers only)', `${RFC_CHALLENGE.slice(1)}~`, false],
    ['a trailing newline', `${RFC_CHALLENGE}\n`, false],
    ['undefined', undefined, false],
  ])('isValidChallenge: %s → %s', (_label, value, expected) => {
    expect(isValidChallenge(value)).toBe(expected);
  });

  it('matches a verifier only against its own challenge', () => {
    expect(verifierMatches(RFC_VERIFIER, RFC_CHALLENGE)).toBe(true);
    const verifier = createVerifier();
    expect(verifierMatches(verifier, challengeFor(verifier))).toBe(true);
    expect(verifierMatches(createVerifier(), challengeFor(verifier))).toBe(false);
    expect(verifierMatches(RFC_CHALLENGE, RFC_CHALLENGE)).toBe(false);
  });

  it('answers false, without throwing, for a challenge of another length', () => {
    for (const challenge of ['', RFC_CHALLENGE.slice(1), `${RFC_CHALLENGE}A`, 'é'.repeat(43)])
      expect(verifierMatches(RFC_VERIFIER, challenge)).toBe(false);
  });
});
