import { MASKING } from '../../core/contract.js';

/**
 * A connection's private columns (issue 30): rules that mark columns by name or pattern as `mask`
 * (the value's shape kept), `hash` (a stable keyed hash) or `hide` (left out), and the tokens exempt from
 * them. A pattern is a column name or a glob with `*` (`*email*`, `*_ssn`, `phone*`), read without regard
 * to case, and holds for a column of that name in every table and view: a view or a subquery carries a
 * column under its name from any table, so a rule for one table's column would not hold. Enforced in
 * capabilities/privateColumns.ts.
 */

export const MASK_ACTIONS = ['mask', 'hash', 'hide'] as const;

export type MaskAction = (typeof MASK_ACTIONS)[number];

export type ColumnRule = { pattern: string; action: MaskAction };

export type ColumnPolicy = { rules: ColumnRule[]; exemptTokens: string[] };

/** Where a column comes from, as far as the driver says: its table and its own name there. */
export type ColumnOrigin = { schema?: string; table: string; column: string };

const PATTERN = /^[A-Za-z0-9_$*\u0080-\uffff]+$/;
const TOKEN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Why `pattern` cannot be a rule's pattern, or undefined when it can. */
export function patternRefusal(pattern: string): string | undefined {
  if (pattern.length === 0 || pattern.length > 128) return 'a column pattern has 1 to 128 characters';
  if (!PATTERN.test(pattern)) return `"${pattern}" is not a column pattern: a column name or a glob with * (letters, digits, _ and $)`;
  if (/^\*+$/.test(pattern)) return `"${pattern}" would match every column; name the columns`;
  return undefined;
}

/** Checks a policy read from the config file or given by a person; `where` names it in the message. */
export function parseColumnPolicy(value: unknown, where: string): ColumnPolicy {
  const fail = (why: string): never => {
    throw new Error(`${where}: ${why}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('must be an object with rules and exemptTokens');
  const { rules = [], exemptTokens = [] } = value as Record<string, unknown>;
  if (!Array.isArray(rules) || rules.length > MASKING.maxRules) return fail(`rules must be an array of at most ${MASKING.maxRules}`);
  if (Array.isArray(exemptTokens) && exemptTokens.length > MASKING.maxExemptTokens) return fail(`at most ${MASKING.maxExemptTokens} exempt tokens`);
  if (!Array.isArray(exemptTokens) || exemptTokens.some((t) => typeof t !== 'string' || !TOKEN_ID.test(t))) {
    return fail('exemptTokens must be an array of token ids');
  }
  const parsed = rules.map((rule, i): ColumnRule => {
    const { pattern, action } = (rule ?? {}) as Record<string, unknown>;
    if (typeof pattern !== 'string') return fail(`rules[${i}].pattern must be a string`);
    const refused = patternRefusal(pattern);
    if (refused) return fail(`rules[${i}]: ${refused}`);
    if (!MASK_ACTIONS.includes(action as MaskAction)) return fail(`rules[${i}].action must be one of ${MASK_ACTIONS.join(', ')}`);
    return { pattern, action: action as MaskAction };
  });
  return { rules: parsed, exemptTokens: [...new Set(exemptTokens as string[])] };
}

const glob = (text: string) => new RegExp(`^${text.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');

/** How strict each action is: where two rules match one column, the stricter wins. */
const STRICTNESS: Record<MaskAction, number> = { hash: 0, mask: 1, hide: 2 };

/** A policy ready to answer, per column name, which rule holds. */
export class ColumnPolicyMatcher {
  readonly #rules: Array<{ column: RegExp; rule: ColumnRule }>;

  constructor(readonly policy: ColumnPolicy) {
    this.#rules = policy.rules.map((rule) => ({ column: glob(rule.pattern), rule }));
  }

  /** The strictest rule for a column named `column`, in whichever table or view. */
  forName(column: string): ColumnRule | undefined {
    return strictestRule(this.#rules.filter((r) => r.column.test(column)).map((r) => r.rule));
  }
}

/** The strictest of `rules`: `hide` over `mask` over `hash`. */
export function strictestRule(rules: ColumnRule[]): ColumnRule | undefined {
  return [...rules].sort((a, b) => STRICTNESS[b.action] - STRICTNESS[a.action])[0];
}
