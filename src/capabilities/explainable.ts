import { type ClassifiedStatement, classifyStatement } from '../sql/classify.js';
import type { Engine } from '../db/database.js';
import { ToolError } from '../core/errors.js';

const EXPLAINABLE = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE', 'MERGE']);

/**
 * The statement, classified, when its plan may be asked for. EXPLAIN and ANALYZE themselves are
 * refused: a client's EXPLAIN ANALYZE would run the statement, write or not.
 */
export function explainableStatement(tool: string, sql: string, engine: Engine): ClassifiedStatement {
  const statement = classifyStatement(sql, engine);
  if (!EXPLAINABLE.has(statement.verb)) {
    throw new ToolError('invalid_argument', `${tool} explains SELECT, WITH, VALUES, INSERT, UPDATE, DELETE, REPLACE and MERGE statements`);
  }
  return statement;
}
