/**
 * What the activity log says about each token: its requests (tool calls, resource reads, and requests
 * refused at the door — by scope, by a limit, or because the token was revoked or expired), how many
 * of them were refused, and the client name it last came with (as the client declared it).
 */
export type TokenUsage = { requests: number; refusals: number; clientName?: string };

/** The columns of an activity row that the tally reads. */
export type UsageRow = { token_id: string | null; category: string; action: string; outcome: string; client_name: string | null };

const REQUEST_CATEGORIES = new Set(['tool', 'resource', 'query', 'access']);
const REFUSALS = new Set(['denied', 'rateLimited']);

/** Adds one row, in the log's order, to the tally of its token. */
export function tally(usage: Map<string, TokenUsage>, row: UsageRow): void {
  if (row.token_id === null) return;
  const request = REQUEST_CATEGORIES.has(row.category) || (row.category === 'auth' && row.action === 'bearer');
  if (!request) return;
  const counted = usage.get(row.token_id) ?? { requests: 0, refusals: 0 };
  counted.requests += 1;
  if (REFUSALS.has(row.outcome)) counted.refusals += 1;
  if (row.client_name !== null) counted.clientName = row.client_name;
  usage.set(row.token_id, counted);
}
