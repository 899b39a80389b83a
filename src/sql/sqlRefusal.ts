/**
 * Why the SQL layer refuses a statement before any database sees it: `denied` (it reaches the file
 * system, runs server-side code or reaches other servers), `unsupported` (transaction control or
 * session state, which Sluice manages), `invalid_argument` (empty, unreadable, or more than one
 * statement). `capabilities/dbErrors.ts` turns it into the tool error the client sees.
 */
export type RefusalKind = 'denied' | 'unsupported' | 'invalid_argument';

export class SqlRefusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
  ) {
    super(message);
    this.name = 'SqlRefusal';
  }
}
