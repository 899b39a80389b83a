import { QUERY_HISTORY } from '../core/contract.js';
import { ToolError } from '../core/errors.js';
import { HISTORY_KINDS, HISTORY_OUTCOMES, type HistoryFilter } from '../db/results/queryHistory.js';

const oneOf = <T extends string>(name: string, values: readonly T[], value: string | undefined): T | undefined => {
  if (value === undefined) return undefined;
  if (!(values as readonly string[]).includes(value))
    throw new ToolError('invalid_argument', `${name} must be one of ${values.join(', ')}`);
  return value as T;
};

/** A query-history filter from the text arguments of the history resource or a prompt; bad values are `invalid_argument`. */
export function historyFilter(args: { limit?: string; search?: string; kind?: string; outcome?: string }): HistoryFilter {
  const limit = args.limit === undefined ? QUERY_HISTORY.defaultLimit : /^\d{1,9}$/.test(args.limit) ? Number(args.limit) : NaN;
  if (!(limit >= 1 && limit <= QUERY_HISTORY.maxLimit))
    throw new ToolError('invalid_argument', `limit must be an integer from 1 to ${QUERY_HISTORY.maxLimit}`);
  if (args.search !== undefined && args.search.length > QUERY_HISTORY.maxSearchChars)
    throw new ToolError('invalid_argument', `search is at most ${QUERY_HISTORY.maxSearchChars} characters`);
  return {
    limit,
    search: args.search || undefined,
    kind: oneOf('kind', HISTORY_KINDS, args.kind),
    outcome: oneOf('outcome', HISTORY_OUTCOMES, args.outcome),
  };
}
