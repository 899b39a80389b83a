/** An OpenSSH host pattern (`*`, `?`) as a whole-name, case-insensitive expression. */
const patternRegExp = (pattern: string) =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');

/**
 * OpenSSH's pattern lists (an ssh_config `Host` line, a known_hosts line's names): `name` matches when
 * one pattern does and no negated (`!`) one does.
 */
export function matchesPatternList(patterns: string[], name: string): boolean {
  let matched = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    if (patternRegExp(negated ? pattern.slice(1) : pattern).test(name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}
