import { DriverFailure } from '../../driverFailure.js';

/** The real PostgreSQL parser (libpg-query, WebAssembly), loaded on first use. */
export const parser = () => import('libpg-query');

/** The statements `PREPARE` takes (VALUES and TABLE parse as SELECT). */
const PREPARABLE = new Set(['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

/**
 * Refuses, with `invalid_argument` and the parser's own message, a statement PostgreSQL cannot parse.
 * Nothing is sent to the server. Says whether it is one statement that `PREPARE` takes.
 */
export async function assertParses(sql: string): Promise<{ preparable: boolean }> {
  const { parse } = await parser();
  let statements;
  try {
    statements = (await parse(sql)).stmts ?? [];
  } catch (error) {
    throw new DriverFailure('invalid_argument', `the statement is not valid: ${(error as Error).message}`);
  }
  const [only] = statements;
  return { preparable: statements.length === 1 && Object.keys(only?.stmt ?? {}).some((kind) => PREPARABLE.has(kind)) };
}
