import type { SqlDialect } from './browseSql.js';
import type { Engine } from '../core/shared/engineNames.js';

const doubleQuoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
const backQuoted = (name: string) => `\`${name.replaceAll('`', '``')}\``;

/** How each engine quotes an identifier and numbers its placeholders, for SQL that Sluice writes. */
export const SQL_DIALECTS: Record<Engine, SqlDialect> = {
  sqlite: { quoteIdent: doubleQuoted, placeholder: () => '?', schemaOnIndex: true },
  postgres: { quoteIdent: doubleQuoted, placeholder: (n) => `$${n}` },
  duckdb: { quoteIdent: doubleQuoted, placeholder: (n) => `$${n}` },
  mysql: { quoteIdent: backQuoted, placeholder: () => '?' },
};
