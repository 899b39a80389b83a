import { CACHE_HINTS } from '../core/contract.js';

export type CacheScope = 'public' | 'private';
export type CacheHint = { ttlMs: number; cacheScope: CacheScope };

/** The contract's table (`CACHE_HINTS`); `resources/read` takes its lifetime from the resource (see the registry). */
const fixedHints: Record<string, CacheHint> = CACHE_HINTS;

export function fixedCacheHint(method: string): CacheHint | undefined {
  return fixedHints[method];
}

export function isCacheableMethod(method: string): boolean {
  return method in fixedHints || method === 'resources/read';
}
