import { type ColumnReads, type OutputItem, SQL_TEXT_FUNCTIONS, VALUE_STATISTICS } from '../../../sql/columnReads.js';
import { DriverFailure } from '../../driverFailure.js';
import { parser } from './postgresParser.js';

/**
 * Where a statement reads which columns (sql/columnReads.ts), from PostgreSQL's own parse tree: every
 * ColumnRef, each placed by where it stands. Names are upper-cased, as the token analysis gives them.
 */

type Node = Record<string, unknown>;

const isObject = (value: unknown): value is Node => typeof value === 'object' && value !== null;

/** The names of a ColumnRef's fields, `*` for A_Star; undefined for anything else. */
function columnRefNames(node: unknown): string[] | undefined {
  if (!isObject(node) || !isObject(node.ColumnRef)) return undefined;
  const fields = (node.ColumnRef.fields as unknown[] | undefined) ?? [];
  return fields.map((f) => (isObject(f) && isObject(f.String) ? String(f.String.sval).toUpperCase() : '*'));
}

const constantInteger = (node: unknown): number | undefined =>
  isObject(node) && isObject(node.A_Const) && isObject(node.A_Const.ival) ? Number(node.A_Const.ival.ival ?? 0) : undefined;

/** Statements whose body is code the server runs later or at once, as text this parse does not reach. */
const CODE_STATEMENTS = new Set(['DoStmt', 'CreateFunctionStmt', 'CreateTrigStmt', 'RuleStmt', 'CallStmt', 'ExecuteStmt', 'PrepareStmt']);

/** Statements that copy whole tables out without naming their columns. */
const COPY_STATEMENTS = new Set(['CopyStmt']);

class Reader {
  readonly result: ColumnReads = { reads: [], hidden: [], outputs: [], positions: [] };

  constructor(readonly relations: ReadonlySet<string>) {}

  /** The statement as a whole: a query's outer select list and a write's RETURNING are outputs. */
  statement(node: Node): void {
    const [kind, body] = Object.entries(node)[0] ?? [];
    if (!isObject(body)) return;
    if (kind !== undefined && CODE_STATEMENTS.has(kind)) return void this.result.hidden.push('code run by the server (a DO block, a function or procedure body), which Sluice cannot read for private columns');
    if (kind !== undefined && COPY_STATEMENTS.has(kind)) return void this.result.hidden.push('COPY of whole tables, whose columns it does not name');
    // Renaming a column reads nothing, but takes it out from under its rule.
    if (kind === 'RenameStmt' && typeof body.subname === 'string') this.result.reads.push({ column: body.subname.toUpperCase(), place: 'other' });
    if (kind === 'SelectStmt') return this.#select(body);
    if (kind === 'InsertStmt' || kind === 'UpdateStmt' || kind === 'DeleteStmt' || kind === 'MergeStmt') {
      // RETURNING: `returningClause.exprs` since PostgreSQL 18's parser, `returningList` before.
      const { returningList, returningClause, targetList, cols, ...rest } = body;
      for (const target of [...((targetList as unknown[]) ?? []), ...((cols as unknown[]) ?? [])]) {
        if (isObject(target) && isObject(target.ResTarget)) this.walk(target.ResTarget.val);
      }
      this.walk(rest);
      return this.#outputs(((isObject(returningClause) ? returningClause.exprs : returningList) as unknown[]) ?? []);
    }
    this.walk(body);
  }

  #select(select: Node): void {
    if (select.op === 'SETOP_UNION' && select.all === true) {
      const { larg, rarg, ...rest } = select;
      this.#select(larg as Node);
      this.#select(rarg as Node);
      return this.walk(rest);
    }
    if (select.op !== 'SETOP_NONE' || select.intoClause) return this.walk(select);
    const { targetList, groupClause, sortClause, ...rest } = select;
    this.#outputs((targetList as unknown[]) ?? []);
    for (const item of (groupClause as unknown[]) ?? []) this.#grouping(item);
    for (const item of (sortClause as unknown[]) ?? []) {
      const node = isObject(item) && isObject(item.SortBy) ? item.SortBy.node : item;
      const position = constantInteger(node);
      if (position === undefined) this.walk(item);
      else this.result.positions.push(position);
    }
    this.walk(rest);
  }

  /** GROUP BY a plain column shows only which rows are equal; by position, an output. */
  #grouping(item: unknown): void {
    const names = columnRefNames(item);
    const position = constantInteger(item);
    if (position !== undefined) this.result.positions.push(position);
    else if (names && !names.includes('*') && !this.#wholeRow(names)) this.result.reads.push({ column: names.at(-1) as string, place: 'equality' });
    else this.walk(item);
  }

  #outputs(targets: unknown[]): void {
    if (targets.length === 0) return;
    const arm: OutputItem[] = [];
    this.result.outputs.push(arm);
    for (const target of targets) {
      const value = isObject(target) && isObject(target.ResTarget) ? target.ResTarget.val : undefined;
      const names = columnRefNames(value);
      if (!names || this.#wholeRow(names)) {
        arm.push({ kind: 'expression' });
        this.walk(value);
      } else if (names.at(-1) === '*') {
        arm.push({ kind: 'wildcard' });
      } else {
        const column = names.at(-1) as string;
        arm.push({ kind: 'column', column });
        this.result.reads.push({ column, place: 'output' });
      }
    }
  }

  #wholeRow(names: string[]): boolean {
    return names.length === 1 && this.relations.has(names[0] as string);
  }

  /** Every column reference below `node` is a read in `other`, but for an equality of two plain columns. */
  walk(node: unknown): void {
    if (Array.isArray(node)) return node.forEach((item) => this.walk(item));
    if (!isObject(node)) return;
    const names = columnRefNames(node);
    if (names) return this.#reference(names);
    if (isObject(node.A_Expr) && this.#equality(node.A_Expr)) return;
    if (isObject(node.JoinExpr)) this.#join(node.JoinExpr);
    for (const alias of aliasesOf(node)) this.result.reads.push({ column: alias, place: 'alias' });
    if (isObject(node.FuncCall)) {
      const name = columnRefNames({ ColumnRef: { fields: node.FuncCall.funcname } })?.at(-1) ?? '';
      if (SQL_TEXT_FUNCTIONS.has(name)) this.result.hidden.push(`${name.toLowerCase()}(), which reads what it is given by name`);
      if (VALUE_STATISTICS.has(name)) this.result.hidden.push(`${name.toLowerCase()}(), which shows values of other columns`);
    }
    if (isObject(node.RangeVar) && VALUE_STATISTICS.has(String(node.RangeVar.relname).toUpperCase())) {
      this.result.hidden.push(`${String(node.RangeVar.relname)}, which shows values of other columns`);
    }
    for (const value of Object.values(node)) this.walk(value);
  }

  #reference(names: string[]): void {
    const column = names.at(-1) as string;
    if (column === '*') return void this.result.hidden.push('a * outside the outer select list');
    if (this.#wholeRow(names)) this.result.hidden.push(`the whole row of ${column.toLowerCase()}`);
    this.result.reads.push({ column, place: 'other' });
  }

  /** USING (a) compares the two tables' columns `a` for equality; NATURAL, columns nobody names. */
  #join(join: Node): void {
    if (join.isNatural === true) this.result.hidden.push('a NATURAL join, which compares columns it does not name');
    for (const field of (join.usingClause as unknown[]) ?? []) {
      const column = isObject(field) && isObject(field.String) ? String(field.String.sval).toUpperCase() : '';
      this.result.reads.push({ column, place: 'equality', partner: column });
    }
  }

  /** `a = b` between two plain columns: each is read for equality with the other. */
  #equality(expression: Node): boolean {
    const operator = columnRefNames({ ColumnRef: { fields: expression.name } })?.at(-1);
    if (expression.kind !== 'AEXPR_OP' || operator !== '=') return false;
    const left = columnRefNames(expression.lexpr);
    const right = columnRefNames(expression.rexpr);
    if (!left || !right || [left, right].some((n) => n.at(-1) === '*' || this.#wholeRow(n))) return false;
    this.result.reads.push({ column: left.at(-1) as string, place: 'equality', partner: right.at(-1) as string });
    this.result.reads.push({ column: right.at(-1) as string, place: 'equality', partner: left.at(-1) as string });
    return true;
  }
}

/**
 * The names a node gives other values, outside the outer select list: a select item's alias, a table's or
 * subquery's column aliases, a CTE's column names.
 */
function aliasesOf(node: Node): string[] {
  const names = (list: unknown) => (Array.isArray(list) ? list : []).flatMap((f) => (isObject(f) && isObject(f.String) ? [String(f.String.sval).toUpperCase()] : []));
  if (isObject(node.ResTarget) && typeof node.ResTarget.name === 'string') return [node.ResTarget.name.toUpperCase()];
  if (typeof node.aliasname === 'string') return names(node.colnames);
  if (isObject(node.CommonTableExpr)) return names(node.CommonTableExpr.aliascolnames);
  return [];
}

/** Every table, alias and CTE name of the statement: a reference to one of them alone is its whole row. */
function relationNames(node: unknown, names = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => relationNames(item, names));
  if (!isObject(node)) return names;
  if (typeof node.relname === 'string') names.add(node.relname.toUpperCase());
  if (typeof node.aliasname === 'string') names.add(node.aliasname.toUpperCase());
  if (typeof node.ctename === 'string') names.add(node.ctename.toUpperCase());
  for (const value of Object.values(node)) relationNames(value, names);
  return names;
}

export async function postgresColumnReads(sql: string): Promise<ColumnReads> {
  const { parse } = await parser();
  let statements: unknown[];
  try {
    statements = (await parse(sql)).stmts ?? [];
  } catch (error) {
    throw new DriverFailure('invalid_argument', `the statement is not valid: ${(error as Error).message}`);
  }
  const reader = new Reader(relationNames(statements));
  for (const entry of statements) if (isObject(entry) && isObject(entry.stmt)) reader.statement(entry.stmt);
  return reader.result;
}
