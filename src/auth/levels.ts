import type { Scope } from './principal.js';

export const permissionLevels = ['readOnly', 'readWrite', 'fullAccess'] as const;
export type PermissionLevel = (typeof permissionLevels)[number];

const SCOPES: Record<PermissionLevel, readonly Scope[]> = {
  readOnly: ['tools:read', 'resources:read'],
  readWrite: ['tools:read', 'resources:read', 'tools:write'],
  fullAccess: ['tools:read', 'resources:read', 'tools:write', 'admin'],
};

/** The scopes a token of this permission level holds. */
export function scopesForLevel(level: PermissionLevel): Scope[] {
  return [...SCOPES[level]];
}

/** The permission level these scopes make up: the highest level whose scopes they all hold. */
export function levelOfScopes(scopes: ReadonlySet<Scope>): PermissionLevel {
  return [...permissionLevels].reverse().find((level) => SCOPES[level].every((scope) => scopes.has(scope))) ?? 'readOnly';
}
