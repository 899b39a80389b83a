import { DriverFailure } from '../../driverFailure.js';

/** The real PostgreSQL parser (libpg-query, WebAssembly), loaded on first use. */
export const parser = () => import('libpg-query');

/**
 * Refuses, with `invalid_argument` and the parser's own message, a statement PostgreSQL cannot parse.
 * Nothing is sent to the server.
 */
export async function assertParses(sql: string): Promise<void> {
  const { parse } = await parser();
  try {
    await parse(sql);
  } catch (error) {
    throw new DriverFailure('invalid_argument', `the statement is not valid: ${(error as Error).message}`);
  }
}
