const RULES: [RegExp, string][] = [
  // scheme://user:password@host
  [/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi, '$1***@'],
  // password=secret, pwd: secret (connection strings, key-value dumps)
  [/\b(password|passwd|pwd|secret|token|api[_-]?key)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s;,&)]+)/gi, '$1$2***'],
  // PASSWORD 'secret' (CREATE/ALTER USER … PASSWORD, IDENTIFIED BY)
  [/\b(PASSWORD|IDENTIFIED\s+BY)(\s+)'(?:[^']|'')*'/gi, "$1$2'***'"],
  // Sluice's own bearer tokens
  [/\bsl_[A-Za-z0-9_-]{20,}/g, 'sl_***'],
];

/** Removes secrets a driver may echo (URLs with passwords, connection strings, password literals). */
export function redact(text: string): string {
  return RULES.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}
