import { invalidParams, shown } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { HISTORY_KINDS, HISTORY_OUTCOMES } from '../db/results/queryHistory.js';
import { isPlainObject, type Params } from '../protocol/jsonrpc.js';
import { useConnection, visibleConnections } from './connectionArgs.js';
import type { CapabilityRegistry } from './registry.js';
import type { CallContext } from './types.js';
import { PAGES, QUERY_HISTORY } from '../core/contract.js';

const FIXED_VALUES: Record<string, readonly string[]> = {
  limit: ['10', String(QUERY_HISTORY.defaultLimit), '100', String(QUERY_HISTORY.maxLimit)],
  kind: HISTORY_KINDS,
  outcome: HISTORY_OUTCOMES,
};

type Context = Record<string, unknown>;

const given = (context: Context, name: string) => {
  const value = context[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
};

/** Arguments whose values come from the database the context's `connection_id` (and `database`) names. */
const FROM_DATABASE: Record<string, (db: Database, context: Context, signal: AbortSignal) => Promise<string[]>> = {
  database: (db, _context, signal) => db.listDatabases(signal),
  schema: (db, _context, signal) => db.listSchemas(signal),
  table: async (db, context, signal) => (await db.listTables(given(context, 'schema'), signal)).map((t) => t.name),
  async column(db, context, signal) {
    const table = given(context, 'table');
    if (!table) return [];
    const description = await db.describeTable(given(context, 'schema') ?? db.defaultSchema(), table, signal);
    return (description?.columns ?? []).map((c) => c.name);
  },
};

/** The variable names of an RFC 6570 template: `{a}` and `{?b,c}`. */
const templateVariables = (template: string) =>
  [...template.matchAll(/\{[?&]?([^}]+)\}/g)].flatMap((m) => (m[1] as string).split(','));

/** Orders candidates: prefix matches first, then other case-insensitive substring matches. */
function rank(candidates: readonly string[], value: string): string[] {
  const needle = value.toLowerCase();
  const prefix = candidates.filter((c) => c.toLowerCase().startsWith(needle));
  const inner = candidates.filter(
    (c) => !c.toLowerCase().startsWith(needle) && c.toLowerCase().includes(needle),
  );
  return [...new Set([...prefix, ...inner])];
}

async function candidates(argument: string, context: Context, ctx: CallContext): Promise<readonly string[]> {
  if (argument === 'connection_id') return visibleConnections(ctx).map((c) => c.id);
  const fixed = FIXED_VALUES[argument];
  if (fixed) return fixed;
  const fromDatabase = FROM_DATABASE[argument];
  const connectionId = given(context, 'connection_id');
  if (!fromDatabase || !connectionId) return [];
  const { db } = useConnection(ctx, connectionId, given(context, 'database'));
  return fromDatabase(db, context, ctx.signal);
}

/** `completion/complete` for prompt arguments and resource-template variables. */
export async function complete(params: Params, registry: CapabilityRegistry, ctx: CallContext) {
  const { ref, argument, context } = params;
  if (
    !isPlainObject(ref) ||
    !isPlainObject(argument) ||
    typeof argument.name !== 'string' ||
    typeof argument.value !== 'string'
  ) {
    throw invalidParams('completion/complete needs ref and argument {name, value}');
  }
  if (ref.type === 'ref/prompt') {
    const prompt = typeof ref.name === 'string' ? registry.prompts.get(ref.name) : undefined;
    if (!prompt) throw invalidParams(`Unknown prompt: ${shown(ref.name)}`);
    if (!prompt.arguments.some((a) => a.name === argument.name)) {
      throw invalidParams(`Prompt ${prompt.name} has no argument ${argument.name}`);
    }
  } else if (ref.type === 'ref/resource') {
    const template = registry.resources.find((r) => r.uriTemplate === ref.uri);
    if (!template) throw invalidParams(`Unknown resource template: ${shown(ref.uri)}`);
    if (!templateVariables(template.uriTemplate).includes(argument.name)) {
      throw invalidParams(`Template ${template.uriTemplate} has no variable ${argument.name}`);
    }
  } else {
    throw invalidParams('ref.type must be ref/prompt or ref/resource');
  }
  const contextArguments =
    isPlainObject(context) && isPlainObject(context.arguments) ? context.arguments : {};
  const values = rank(await candidates(argument.name, contextArguments, ctx), argument.value);
  return {
    completion: {
      values: values.slice(0, PAGES.maxCompletionValues),
      total: values.length,
      hasMore: values.length > PAGES.maxCompletionValues,
    },
  };
}
