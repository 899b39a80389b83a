import { invalidParams, shown } from '../core/errors.js';
import { isPlainObject, type Params } from '../protocol/jsonrpc.js';
import { useConnection, visibleConnections } from './connectionArgs.js';
import type { CapabilityRegistry } from './registry.js';
import type { CallContext } from './types.js';
import { PAGES } from '../core/contract.js';

const FIXED_VALUES: Record<string, string[]> = { limit: ['10', '50', '100', '200'] };

/** The variable names of an RFC 6570 template: `{a}` and `{?b,c}`. */
const templateVariables = (template: string) =>
  [...template.matchAll(/\{[?&]?([^}]+)\}/g)].flatMap((m) => (m[1] as string).split(','));

/** Orders candidates: prefix matches first, then other case-insensitive substring matches. */
function rank(candidates: string[], value: string): string[] {
  const needle = value.toLowerCase();
  const prefix = candidates.filter((c) => c.toLowerCase().startsWith(needle));
  const inner = candidates.filter(
    (c) => !c.toLowerCase().startsWith(needle) && c.toLowerCase().includes(needle),
  );
  return [...new Set([...prefix, ...inner])];
}

async function candidates(
  argument: string,
  context: Record<string, unknown>,
  ctx: CallContext,
): Promise<string[]> {
  if (argument === 'connection_id') return visibleConnections(ctx).map((c) => c.id);
  const fixed = FIXED_VALUES[argument];
  if (fixed) return fixed;
  const connectionId = context.connection_id;
  if (typeof connectionId !== 'string' || (argument !== 'schema' && argument !== 'table')) return [];
  const { db } = useConnection(ctx, connectionId);
  if (argument === 'schema') return db.listSchemas(ctx.signal);
  const schema = typeof context.schema === 'string' ? context.schema : undefined;
  return (await db.listTables(schema, ctx.signal)).map((t) => t.name);
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
