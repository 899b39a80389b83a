const RULES: [RegExp, string][] = [
  // scheme://user:password@host
  [/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi, '$1***@'],
  // password=secret, pwd: secret (connection strings, key-value dumps)
  [/\b(password|passwd|pwd|secret|token|api[_-]?key)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s;,&)]+)/gi, '$1$2***'],
  // PASSWORD 'secret' (CREATE/ALTER USER … PASSWORD, IDENTIFIED BY)
  [/\b(PASSWORD|IDENTIFIED\s+BY)(\s+)'(?:[^']|'')*'/gi, "$1$2'***'"],
  // Sluice's own bearer tokens and bridge tokens
  [/\b(slb?_)[A-Za-z0-9_-]{20,}/g, '$1***'],
];

/**
 * Removes secrets a driver may echo (URLs with passwords, connection strings, password literals), and
 * any of `secrets` (a connection's own password) wherever it appears.
 */
export function redact(text: string, secrets: readonly string[] = []): string {
  const general = RULES.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
  return secrets.reduce((out, secret) => (secret.length >= 3 ? out.replaceAll(secret, '***') : out), general);
}
