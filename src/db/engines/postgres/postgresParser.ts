import { DriverFailure } from '../../driverFailure.js';

/** The real PostgreSQL parser (libpg-query, WebAssembly), loaded on first use. */
export const parser = () => import('libpg-query');

/** The statements `PREPARE` takes (VALUES and TABLE parse as SELECT). */
const PREPARABLE = new Set(['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

/** A relation or procedure as a statement names it: unqualified names are looked up on the search path. */
export type CatalogName = { schema: string | null; name: string };

/**
 * What the catalogue can check of a statement before anyone is asked about it, without running it:
 * the statement `PREPARE` takes (the statement itself, or the one an EXPLAIN wraps), the relations a
 * DDL statement changes (they must exist), the procedure a CALL names.
 */
export type CatalogCheck = { prepare?: string; relations: CatalogName[]; procedure?: CatalogName };

type Node = Record<string, unknown>;
type RangeVar = { schemaname?: string; relname: string };

/** DDL whose `relation` must exist, unless the statement says IF EXISTS (`missing_ok`). */
const CHANGES_RELATION = new Set(['AlterTableStmt', 'IndexStmt', 'RenameStmt', 'CreateTrigStmt', 'RuleStmt']);

/**
 * Refuses, with `invalid_argument` and the parser's own message, a statement PostgreSQL cannot parse.
 * Nothing is sent to the server. Says what of it the catalogue can check (only for one statement).
 */
export async function assertParses(sql: string): Promise<CatalogCheck> {
  const statements = await parsed(sql);
  const [only] = statements;
  if (statements.length !== 1 || only === undefined) return { relations: [] };
  const [kind, node] = (Object.entries(only)[0] ?? []) as [string?, Node?];
  if (kind === undefined || node === undefined) return { relations: [] };
  if (PREPARABLE.has(kind)) return { prepare: sql, relations: [] };
  if (kind === 'ExplainStmt') return explainCheck(sql, node.query as Node);
  if (kind === 'CallStmt') return { relations: [], procedure: qualified(((node.funccall as Node).funcname as Node[]).map(stringValue)) };
  const relation = node.relation as RangeVar | undefined;
  if (CHANGES_RELATION.has(kind) && relation?.relname !== undefined && node.missing_ok !== true) {
    return { relations: [{ schema: relation.schemaname ?? null, name: relation.relname }] };
  }
  return { relations: [] };
}

async function parsed(sql: string): Promise<Node[]> {
  const { parse } = await parser();
  try {
    return ((await parse(sql)).stmts ?? []).map((raw: { stmt?: Node }) => raw.stmt ?? {});
  } catch (error) {
    throw new DriverFailure('invalid_argument', `the statement is not valid: ${(error as Error).message}`);
  }
}

/**
 * The statement an EXPLAIN wraps (`query`, parsed already), as its own text when PREPARE takes it: what
 * follows `EXPLAIN`, its parenthesised options or its bare ANALYZE / VERBOSE keywords. PREPARE does not
 * take EXPLAIN itself.
 */
async function explainCheck(sql: string, query: Node): Promise<CatalogCheck> {
  if (!Object.keys(query).some((kind) => PREPARABLE.has(kind))) return { relations: [] };
  const { scan } = await parser();
  const tokens = (await scan(sql)).tokens;
  let next = 1;
  if (tokens[next]?.text === '(') {
    for (let depth = 0; next < tokens.length; next++) {
      depth += tokens[next]?.text === '(' ? 1 : tokens[next]?.text === ')' ? -1 : 0;
      if (depth === 0) break;
    }
    next++;
  } else {
    while (/^(analy[sz]e|verbose)$/i.test(tokens[next]?.text ?? '')) next++;
  }
  const start = tokens[next]?.start;
  return start === undefined ? { relations: [] } : { prepare: sql.slice(start), relations: [] };
}

const stringValue = (node: Node) => String((node.String as { sval?: string } | undefined)?.sval ?? '');

const qualified = (parts: string[]): CatalogName =>
  parts.length > 1 ? { schema: parts.at(-2) ?? null, name: parts.at(-1) ?? '' } : { schema: null, name: parts[0] ?? '' };
