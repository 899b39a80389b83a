import { DATABASES } from '../../core/contract.js';
import type { Database, Engine } from '../database.js';
import { PERFORMANCE, type IndexSuggestion } from './performanceFindings.js';
import { nameAsWritten as nameOf, type SpannedToken, tokenSpans, UnreadableSql } from '../../sql/tokens.js';
import { SQL_DIALECTS } from '../../sql/dialects.js';

/**
 * The index heuristic every engine shares: a full scan of a big table whose conditions use columns that
 * no index starts with is worth an index on those columns. Each engine finds its scans in its own plan.
 */

/** A full scan a plan shows: the table, the name the conditions call it by, and the conditions' text. */
export type Scan = { schema: string; table: string; alias: string; conditions: string; estimatedRows?: number };

/** The statement budget of the catalog queries behind the advice. */
export const ADVICE_READ = { maxRows: 10_000, timeoutMs: DATABASES.introspectionTimeoutMs };

function spans(sql: string, engine: Engine): SpannedToken[] {
  try {
    return tokenSpans(sql, engine);
  } catch (error) {
    if (error instanceof UnreadableSql) return [];
    throw error;
  }
}

const same = (a: string | undefined, b: string) => a !== undefined && a.toLowerCase() === b.toLowerCase();

/** The table's columns that `text` uses, unqualified or qualified by `alias`, in order of first use. */
function columnsReferenced(text: string, engine: Engine, alias: string, columns: string[]): string[] {
  const byName = new Map(columns.map((c) => [c.toLowerCase(), c]));
  const tokens = spans(text, engine);
  const found = new Set<string>();
  tokens.forEach((token, i) => {
    const column = byName.get(nameOf(text, token)?.toLowerCase() ?? '');
    if (!column || tokens[i + 1]?.text === '.') return;
    if (tokens[i - 1]?.text === '.' && !same(nameOf(text, tokens[i - 2]), alias)) return;
    found.add(column);
  });
  return [...found];
}

const CONDITION_STARTS = new Set(['WHERE', 'ON']);
const CONDITION_ENDS = new Set(['GROUP', 'ORDER', 'LIMIT', 'HAVING', 'WINDOW', 'UNION', 'INTERSECT', 'EXCEPT', 'JOIN', 'SELECT', 'FROM', 'RETURNING']);

/** The text of a statement's WHERE and ON clauses, for plans that do not show their conditions (SQLite). */
export function conditionText(sql: string, engine: Engine): string {
  const parts: string[] = [];
  let from: number | undefined;
  for (const token of spans(sql, engine)) {
    if (token.kind !== 'word') continue;
    if (from !== undefined && CONDITION_ENDS.has(token.text)) {
      parts.push(sql.slice(from, token.start));
      from = undefined;
    } else if (CONDITION_STARTS.has(token.text)) from ??= token.end;
  }
  if (from !== undefined) parts.push(sql.slice(from));
  return parts.join(' AND ');
}

const TABLE_LEADS = new Set(['FROM', 'JOIN', ',']);

/** The table a plan's name stands for: `[schema.]table [AS] name` after FROM, JOIN or a comma; else the name itself. */
export function aliasedTable(sql: string, engine: Engine, name: string): { schema?: string; table: string } {
  const tokens = spans(sql, engine);
  for (let i = 0; i < tokens.length; i++) {
    if (!same(nameOf(sql, tokens[i]), name)) continue;
    if (tokens[i - 1]?.text === '.' && TABLE_LEADS.has(tokens[i - 3]?.text ?? '')) return { schema: nameOf(sql, tokens[i - 2]), table: name };
    let t = tokens[i - 1]?.kind === 'word' && tokens[i - 1]?.text === 'AS' ? i - 2 : i - 1;
    const table = nameOf(sql, tokens[t]);
    if (table === undefined || TABLE_LEADS.has(tokens[t]?.text ?? '')) continue;
    const schema = tokens[t - 1]?.text === '.' ? nameOf(sql, tokens[t - 2]) : undefined;
    if (schema !== undefined) t -= 2;
    if (TABLE_LEADS.has(tokens[t - 1]?.text ?? '')) return { ...(schema === undefined ? {} : { schema }), table };
  }
  return { table: name };
}

function createIndex(engine: Engine, schema: string, table: string, columns: string[]): string {
  const { quoteIdent: q, schemaOnIndex } = SQL_DIALECTS[engine];
  const name = q(`${table}_${columns.join('_')}_idx`.slice(0, 60));
  const list = columns.map(q).join(', ');
  return schemaOnIndex ? `CREATE INDEX ${q(schema)}.${name} ON ${q(table)} (${list});` : `CREATE INDEX ${name} ON ${q(schema)}.${q(table)} (${list});`;
}

/** An index for each scan of a table of at least `PERFORMANCE.indexAdviceMinRows` rows on columns no index starts with. */
export async function adviseScans(db: Database, scans: Scan[], signal: AbortSignal): Promise<IndexSuggestion[]> {
  const suggestions = new Map<string, IndexSuggestion>();
  for (const scan of scans) {
    const description = await db.describeTable(scan.schema, scan.table, signal);
    if (!description || description.type !== 'table') continue;
    const leading = new Set(
      [description.primary_key[0], ...description.indexes.map((i) => i.columns[0])].flatMap((c) => (c === undefined ? [] : [c.toLowerCase()])),
    );
    const columns = columnsReferenced(scan.conditions, db.engine, scan.alias, description.columns.map((c) => c.name))
      .filter((c) => !leading.has(c.toLowerCase()))
      .slice(0, PERFORMANCE.indexAdviceColumns);
    if (columns.length === 0) continue;
    const rows = scan.estimatedRows ?? (await db.countRows(description.schema, description.name, false, signal)).count;
    if (rows < PERFORMANCE.indexAdviceMinRows) continue;
    const statement = createIndex(db.engine, description.schema, description.name, columns);
    suggestions.set(statement, {
      schema: description.schema,
      table: description.name,
      columns,
      statement,
      reason: `a full scan of about ${rows} rows filters on ${columns.join(', ')}, and no index starts with ${columns.length === 1 ? 'it' : 'them'}`,
      estimated_rows: rows,
    });
  }
  return [...suggestions.values()];
}
