import { QUERY_HISTORY } from '../../core/contract.js';
import type { HistoryEntry } from '../../db/results/queryHistory.js';
import { ENGINE_NAMES } from '../../db/database.js';
import { useConnection } from '../connectionArgs.js';
import { historyFilter } from '../historyFilter.js';
import type { Prompt } from '../types.js';
import { userText } from './schemaText.js';

/** One statement on one line, cut to `QUERY_HISTORY.promptStatementChars`. */
function entryLine(e: HistoryEntry): string {
  const sql = e.sql.replace(/\s+/g, ' ').trim();
  const shown =
    sql.length > QUERY_HISTORY.promptStatementChars ? `${sql.slice(0, QUERY_HISTORY.promptStatementChars)}…` : sql;
  return `- ${e.executed_at} ${e.statement_kind} ${e.outcome} ${e.duration_ms} ms ${e.row_count} rows: ${shown}`;
}

export const summarizeQueryHistory: Prompt = {
  name: 'summarize_query_history',
  title: 'Summarize the query history',
  description: 'Summarizes the statements recently run through Sluice on a connection: patterns, slow and failing ones.',
  arguments: [
    { name: 'connection_id', description: 'The connection whose history to summarize.', required: true },
    {
      name: 'limit',
      description: `How many recent statements (1 to ${QUERY_HISTORY.maxLimit}, default ${QUERY_HISTORY.defaultLimit}).`,
      required: false,
    },
  ],
  async render(args, ctx) {
    const { connection, db, privacy } = useConnection(ctx, args.connection_id as string);
    const entries = ctx.history.recent(connection.id, historyFilter({ limit: args.limit }), privacy.statementText);
    const text = entries.length
      ? entries.map(entryLine).join('\n')
      : '(no statement has run through Sluice on this connection since it started)';
    return {
      description: `The recent query history of ${connection.name}`,
      messages: [
        userText(
          `Summarize the recent query history of the ${ENGINE_NAMES[db.engine]} database "${connection.name}" (connection_id ${connection.id}): the patterns (which tables and kinds of statement recur), the slowest statements, and the failing ones with their likely cause. Where an index or a rewrite would help, say which (explain_query and index_advice can check). The ${entries.length} most recent statements, newest first (time, kind, outcome, duration, rows, text):\n\n`,
          text,
        ),
      ],
    };
  },
};
