import { ColumnPolicyMatcher, type ColumnRule, strictestRule } from '../db/connections/columnPolicy.js';
import type { SavedConnection } from '../db/connections/savedConnections.js';
import { type Column, type Database, type Rows, valuesOf } from '../db/database.js';
import { DriverFailure } from '../db/driverFailure.js';
import { engineModule } from '../db/engines/registry.js';
import type { Principal } from '../auth/principal.js';
import type { EffectPreview } from '../runtime/consentDialogs.js';
import { type ColumnRead, type ColumnReads, type OutputItem, tokenColumnReads } from '../sql/columnReads.js';
import { ToolError } from '../core/errors.js';
import { tokenize, tokenSpans, UnreadableSql } from '../sql/tokens.js';
import { hashValue, maskValue } from './maskedValues.js';

/**
 * The one place private columns are enforced (issue 30): every statement, table read, plan and failure
 * that may carry a value passes here before it leaves for the model. A token under the connection's
 * policy cannot learn a private value by any statement: a column the drivers' origins (or the
 * statement's own outer select list) prove a plain read of is masked, hashed or left out of the result;
 * a private column used anywhere else — a filter, an order, a join, a function, a subquery — is refused,
 * but for equality between two hashed columns and GROUP BY a hashed one; so is anything that reads
 * columns without naming them where masking cannot follow (a `*` in a subquery, a whole row, a function
 * that runs SQL text).
 */

/** How a result's columns become the answer's: each kept as it is, masked, hashed, or left out. */
export type ResultMask = (columns: Column[], rows: Rows) => { columns: Column[]; rows: Rows };

/** The guard of one call: `OPEN` when the connection has no policy or the caller's token is exempt. */
export type PrivateColumns = {
  /** Refuses a statement that would let a private value out unmasked; else how its result is masked. */
  statement(sql: string): Promise<ResultMask>;
  /** A table read as Sluice writes it (browse_table): refused if it filters or sorts on a private column. */
  table(filtered: string[], sorted: string[]): ResultMask;
  /** A failure whose message may quote a value, with every quoted value but the statement's own names redacted. */
  failure(error: unknown, sql?: string): unknown;
  /** A statement of the history (another token's, maybe) as this caller may read it: its literals left out. */
  statementText(sql: string): string;
  /** A write's tried effect, as its consent shows it to this caller's client: the rows before and after masked. */
  effect(preview: EffectPreview | undefined): EffectPreview | undefined;
};

const unchanged: ResultMask = (columns, rows) => ({ columns, rows });

const OPEN: PrivateColumns = {
  statement: () => Promise.resolve(unchanged),
  table: () => unchanged,
  failure: (error) => error,
  statementText: (sql) => sql,
  effect: (preview) => preview,
};

/** The guard for `principal` on `connection`, with `key` for hashes. */
export function privateColumns(principal: Principal, connection: SavedConnection, db: Database, key: Buffer): PrivateColumns {
  const policy = connection.columnPolicy;
  if (!policy || policy.rules.length === 0 || policy.exemptTokens.includes(principal.id)) return OPEN;
  const matcher = new ColumnPolicyMatcher(policy);
  const masked = (rule: (column: Column, index: number) => ColumnRule | undefined): ResultMask => (columns, rows) => applyRules(columns, rows, columns.map(rule), key);
  return {
    async statement(sql) {
      const reads = await analysed(db, sql);
      refuseLeaks(matcher, reads);
      return masked((column, index) => ruleOfColumn(matcher, reads.outputs, column, index));
    },
    table(filtered, sorted) {
      for (const column of [...filtered, ...sorted]) {
        const rule = matcher.forName(column);
        if (rule) throw denied(column, rule, filtered.includes(column) ? 'a filter' : 'an order');
      }
      return masked((column) => columnRule(matcher, column));
    },
    failure: (error, sql) => (error instanceof DriverFailure ? redactedFailure(error, db, sql) : error),
    statementText: (sql) => withoutLiterals(db, sql),
    effect: (preview) => maskedEffect(preview, masked((column) => columnRule(matcher, column))),
  };
}

/** The tried rows of a write's consent through `mask`: a private column's values before and after masked, hashed or left out. */
function maskedEffect(preview: EffectPreview | undefined, mask: ResultMask): EffectPreview | undefined {
  if (!preview || !('changes' in preview)) return preview;
  const columns = preview.columns.map((name) => ({ name, type: '' }));
  const shown = (row: unknown[] | null) => (row === null ? null : (valuesOf(mask(columns, [row]).rows)[0] ?? null));
  return {
    ...preview,
    columns: mask(columns, []).columns.map((c) => c.name),
    changes: preview.changes.map(({ before, after }) => ({ before: shown(before), after: shown(after) })),
  };
}

async function analysed(db: Database, sql: string): Promise<ColumnReads> {
  try {
    return await (engineModule(db.engine).columnReads?.(sql) ?? Promise.resolve(tokenColumnReads(sql, db.engine)));
  } catch (error) {
    if (error instanceof UnreadableSql) throw new ToolError('denied', `cannot tell which columns the statement reads (${error.message}), and this connection has private columns`);
    throw error;
  }
}

function denied(column: string, rule: ColumnRule, where: string): ToolError {
  return new ToolError(
    'denied',
    `column ${column.toLowerCase()} is private under this connection's policy (${rule.action}, pattern ${rule.pattern}): it may be read as itself in the outer select list, not used in ${where}${rule.action === 'hash' ? ' (a hashed column may be compared for equality with another hashed column, or grouped by)' : ''}`,
  );
}

const PLACES: Record<ColumnRead['place'], string> = {
  output: 'the select list',
  equality: 'a comparison',
  other: 'an expression, filter, join, order, function or subquery',
  alias: 'an alias, as the name of another value',
};

/** Refuses a statement that uses a private column where its value could leak, or reads columns nobody can name. */
function refuseLeaks(matcher: ColumnPolicyMatcher, reads: ColumnReads): void {
  for (const read of reads.reads) {
    const rule = matcher.forName(read.column);
    if (!rule || read.place === 'output') continue;
    const hashedPair = read.partner === undefined || matcher.forName(read.partner)?.action === 'hash';
    if (read.place === 'equality' && rule.action === 'hash' && hashedPair) continue;
    throw denied(read.column, rule, PLACES[read.place]);
  }
  if (reads.outputs.length > 1 && reads.outputs.flat().some((item) => item.kind === 'wildcard')) {
    throw new ToolError('denied', "a * in a UNION ALL may read a column that this connection's policy keeps private; name the columns");
  }
  const [hidden] = reads.hidden;
  if (hidden) throw new ToolError('denied', `${hidden} may read a column that this connection's policy keeps private; name the columns in the outer select list`);
  for (const position of reads.positions) {
    if (reads.outputs.length === 0) throw new ToolError('denied', `ORDER BY or GROUP BY ${position} names a column of a result whose columns Sluice cannot tell, and this connection's policy keeps some private; name the column instead`);
    for (const arm of reads.outputs) {
      const item = arm[position - 1];
      if (item?.kind === 'column' && !matcher.forName(item.column)) continue;
      if (item?.kind === 'expression') continue;
      throw new ToolError('denied', `ORDER BY or GROUP BY ${position} may order by a column that this connection's policy keeps private; name the column instead`);
    }
  }
}

/** The stricter of the rules for a column's own name and for the table column it reads (its origin). */
const columnRule = (matcher: ColumnPolicyMatcher, column: Column): ColumnRule | undefined =>
  strictestRule([matcher.forName(column.name), column.origin ? matcher.forName(column.origin.column) : undefined].filter((rule) => rule !== undefined));

/**
 * The rule of one result column: its name's and its origin's, where the driver says what it reads and
 * the statement has one select list (a UNION ALL's origins are its first arm's); and the rule of the
 * column each arm of the select list has in its place. A wildcard leaves the places unknown: without
 * origins, a private column aliased beside it is refused (a `*` across arms is, before the run).
 */
function ruleOfColumn(matcher: ColumnPolicyMatcher, outputs: OutputItem[][], column: Column, index: number): ColumnRule | undefined {
  const own = outputs.length <= 1 ? columnRule(matcher, column) : matcher.forName(column.name);
  const items = outputs.flat();
  if (items.some((item) => item.kind === 'wildcard')) {
    const aliased = items.find((item) => item.kind === 'column' && matcher.forName(item.column) && item.column !== column.name.toUpperCase());
    if (aliased?.kind === 'column' && !own && !column.origin) {
      throw new ToolError('denied', `cannot tell which result column reads ${aliased.column.toLowerCase()}, which this connection's policy keeps private, beside a *; name the columns`);
    }
    return own;
  }
  const placed = outputs.map((arm) => arm[index]).flatMap((item) => (item?.kind === 'column' ? [matcher.forName(item.column)] : []));
  return strictestRule([own, ...placed].filter((rule) => rule !== undefined));
}

function applyRules(columns: Column[], rows: Rows, rules: Array<ColumnRule | undefined>, key: Buffer): { columns: Column[]; rows: Rows } {
  if (rules.every((rule) => rule === undefined)) return { columns, rows };
  const kept = columns.flatMap((_, i) => (rules[i]?.action === 'hide' ? [] : [i]));
  const change = (value: unknown, i: number) => {
    const action = rules[i]?.action;
    return action === 'mask' ? maskValue(value) : action === 'hash' ? hashValue(key, value) : value;
  };
  return {
    columns: kept.map((i) => columns[i] as Column),
    rows: valuesOf(rows).map((row) => kept.map((i) => change(row[i], i))),
  };
}

/** The statement with each string and number written in it as `?`: what another token compared a private column with stays out. */
function withoutLiterals(db: Database, sql: string): string {
  try {
    const spans = tokenSpans(sql, db.engine).filter((t) => t.kind === 'literal' || (t.kind === 'word' && /^[0-9]/.test(t.text)));
    return spans.reduceRight((text, t) => `${text.slice(0, t.start)}?${text.slice(t.end)}`, sql);
  } catch {
    return '(not shown: this connection has private columns, and its text cannot be read for its values)';
  }
}

/** Names the statement (or the table) wrote, which a failure may quote back without telling a value. */
function namesIn(db: Database, sql: string | undefined): Set<string> {
  if (sql === undefined) return new Set();
  try {
    return new Set(tokenize(sql, db.engine).flatMap((t) => (t.kind === 'word' || t.kind === 'quoted' ? [t.text] : [])));
  } catch {
    return new Set();
  }
}

/** Every quoted span of a failure's message redacted but the names the statement wrote: a value (a unique key's, a cast's) never leaves. */
function redactedFailure(error: DriverFailure, db: Database, sql: string | undefined): DriverFailure {
  const names = namesIn(db, sql);
  const message = error.message
    .replace(/'(?:[^']|'')*'/g, "'***'")
    .replace(/"((?:[^"]|"")*)"/g, (span, inside: string) => (names.has(inside.toUpperCase()) ? span : '"***"'))
    .replace(/\(([^()]*)\)=\(([^()]*)\)/g, '($1)=(***)');
  return new DriverFailure(error.kind, message, [], error.engineCode);
}

