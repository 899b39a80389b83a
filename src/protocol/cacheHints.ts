export type CacheScope = 'public' | 'private';
export type CacheHint = { ttlMs: number; cacheScope: CacheScope };

/** The contract's table; `resources/read` takes its lifetime from the resource (see the registry). */
const fixedHints: Record<string, CacheHint> = {
  'server/discover': { ttlMs: 3_600_000, cacheScope: 'public' },
  'prompts/list': { ttlMs: 3_600_000, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'public' },
  'tools/list': { ttlMs: 300_000, cacheScope: 'private' },
  'resources/list': { ttlMs: 30_000, cacheScope: 'private' },
};

export const RESOURCE_READ_TTL = { min: 5_000, max: 300_000 } as const;

export function fixedCacheHint(method: string): CacheHint | undefined {
  return fixedHints[method];
}

export function isCacheableMethod(method: string): boolean {
  return method in fixedHints || method === 'resources/read';
}
