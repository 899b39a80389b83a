export const scopeNames = ['tools:read', 'tools:write', 'resources:read', 'admin'] as const;
export type Scope = (typeof scopeNames)[number];

export type Principal = {
  readonly kind: 'token' | 'anonymous';
  /** Token id, or `anonymous:<address>` when authentication is off. */
  readonly id: string;
  readonly name: string;
  readonly scopes: ReadonlySet<Scope>;
  /** `all`, or the ids of the connections this principal may use. */
  readonly connections: 'all' | ReadonlySet<string>;
  /** A grant of custom tools: the only tools this principal sees and calls (no resources, prompts or completion). */
  readonly tools?: ReadonlySet<string>;
};

const ANONYMOUS_SCOPES: ReadonlySet<Scope> = new Set(['tools:read', 'resources:read']);

/** The caller when authentication is off: read-only, every connection, never raised. */
export function anonymousPrincipal(address: string): Principal {
  return {
    kind: 'anonymous',
    id: `anonymous:${address}`,
    name: 'anonymous (loopback)',
    scopes: ANONYMOUS_SCOPES,
    connections: 'all',
  };
}
