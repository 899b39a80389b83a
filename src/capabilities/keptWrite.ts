import { hasUrl, type SavedConnection } from '../db/connections/savedConnections.js';
import { parseServerUrl } from '../db/connections/connectionUrl.js';
import { connectionPlace } from '../db/connections/connectionPlace.js';
import type { Database, ReadOptions, ResultSet, Rows } from '../db/database.js';
import { analysed } from './exactEffect.js';
import type { CallContext } from './types.js';
import { keepPlanOf, undoOutlook } from './undoOutlook.js';
import type { OneTableWrite, WriteAnalysis, WriteStatement } from './writeAnalysis.js';

/** The database of the connection's server a write ran on (PostgreSQL, MySQL); undefined for a file. */
const databaseOf = (connection: SavedConnection): string | undefined => (hasUrl(connection) ? parseServerUrl(connection.url)?.database : undefined);

/**
 * Runs an approved write. One that can be undone (undoOutlook.ts, decided again from the statement as it
 * runs) runs through `db.keepWrite` and its rows go to the undo store; its activity row names them
 * (`detail.undo`) or says why there are none (`detail.undo_unavailable`). Anything else runs as `db.write`.
 */
export async function runWrite(ctx: CallContext, connection: SavedConnection, db: Database, statement: WriteStatement, options: ReadOptions): Promise<ResultSet<Rows>> {
  const { settings, store } = ctx.undo;
  let analysis: Promise<WriteAnalysis> | undefined;
  const analyse = () => (analysis ??= analysed(db, statement, ctx.signal));
  const outlook = await undoOutlook(db, statement, analyse, undefined, settings, ctx.signal);
  // The outlook is possible only where the database has keepWrite; the second test tells TypeScript so.
  if (!outlook.possible || !db.keepWrite) {
    ctx.noteActivity({ undo_unavailable: outlook.possible ? 'the connection cannot keep rows' : outlook.why });
    return db.write(statement.sql, options);
  }
  const write = (await analyse()) as OneTableWrite;
  const kept = await db.keepWrite(keepPlanOf(write, statement, settings, options));
  if ('notKept' in kept) {
    ctx.noteActivity({ undo_unavailable: kept.notKept });
    return kept.result;
  }
  const database = databaseOf(connection);
  const id = await store
    .keep({ connectionId: connection.id, ...(database === undefined ? {} : { database }), place: connectionPlace(connection), table: { schema: write.table.schema, name: write.table.name }, verb: write.verb }, kept.kept)
    .catch((error: unknown) => {
      // The write is done and stays done; only its undo is lost, and the activity row says so.
      ctx.noteActivity({ undo_unavailable: `its rows could not be saved: ${(error as Error).message}` });
      return undefined;
    });
  if (id !== undefined) ctx.noteActivity({ undo: id });
  return kept.result;
}
