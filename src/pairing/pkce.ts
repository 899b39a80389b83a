import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** 32 random bytes as unpadded base64url: 43 characters. */
export function createVerifier(): string {
  return randomBytes(32).toString('base64url');
}

/** Unpadded base64url of SHA-256 of the verifier (PKCE `S256`). */
export function challengeFor(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function isValidVerifier(v: unknown): v is string {
  return typeof v === 'string' && VERIFIER.test(v);
}

export function isValidChallenge(c: unknown): c is string {
  return typeof c === 'string' && CHALLENGE.test(c);
}

export function verifierMatches(verifier: string, challenge: string): boolean {
  const expected = Buffer.from(challengeFor(verifier));
  const given = Buffer.from(challenge);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
