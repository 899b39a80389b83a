import { type ColumnPolicy, type ColumnRule, parseColumnPolicy } from './columnPolicy.js';
import { ConfigError, type SavedConnection } from './savedConnections.js';

/** One change to a connection's private columns: a rule set (replacing one for the same pattern) or removed, a token exempted or not. */
export type PolicyChange = { rule: ColumnRule } | { remove: string } | { exempt: string } | { unexempt: string };

const EMPTY: ColumnPolicy = { rules: [], exemptTokens: [] };
const samePattern = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function changed(policy: ColumnPolicy, change: PolicyChange): unknown {
  if (typeof change !== 'object' || change === null) throw new ConfigError('a change to the policy is one of rule, remove, exempt or unexempt');
  if ('rule' in change) return { ...policy, rules: [...policy.rules.filter((r) => !samePattern(r.pattern, change.rule.pattern)), change.rule] };
  if ('remove' in change) {
    if (!policy.rules.some((r) => samePattern(r.pattern, change.remove))) throw new ConfigError(`no rule for the pattern "${change.remove}"`);
    return { ...policy, rules: policy.rules.filter((r) => !samePattern(r.pattern, change.remove)) };
  }
  if ('exempt' in change) return { ...policy, exemptTokens: [...policy.exemptTokens, change.exempt] };
  if (!('unexempt' in change)) throw new ConfigError('a change to the policy is one of rule, remove, exempt or unexempt');
  if (!policy.exemptTokens.includes(change.unexempt)) throw new ConfigError(`token "${change.unexempt}" is not exempt`);
  return { ...policy, exemptTokens: policy.exemptTokens.filter((t) => t !== change.unexempt) };
}

/** The connection `id` with its policy changed, checked as the config file's is; a policy left empty is dropped. */
export function withPolicyChange(list: SavedConnection[], id: string, change: PolicyChange): SavedConnection {
  const current = list.find((c) => c.id === id);
  if (!current) throw new ConfigError(`no connection with id "${id}"`);
  let policy: ColumnPolicy;
  try {
    policy = parseColumnPolicy(changed(current.columnPolicy ?? EMPTY, change), 'the policy');
  } catch (error) {
    throw error instanceof ConfigError ? error : new ConfigError((error as Error).message);
  }
  const { columnPolicy: _old, ...rest } = current;
  return policy.rules.length === 0 && policy.exemptTokens.length === 0 ? (rest as SavedConnection) : { ...current, columnPolicy: policy };
}
