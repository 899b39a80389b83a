import type { ActivityOutcome } from '../activity/activityLog.js';
import { outsideToolGrant, requireScopes } from '../auth/access.js';
import type { Scope } from '../auth/principal.js';
import { redact } from '../db/redact.js';
import type { CursorCodec } from '../protocol/cursor.js';
import { discoverResult } from '../protocol/discover.js';
import { LOG_LEVELS } from '../protocol/legacy.js';
import { ErrorCode, invalidParams, ProtocolError, ToolError } from '../core/errors.js';
import { isPlainObject, type Params } from '../protocol/jsonrpc.js';
import { complete } from './completion.js';
import { fenced, fencedLiteral } from './dataFence.js';
import { sizedAnswer, sizedBody, sizedData, tokenBudgetOf } from './tokenBudget.js';
import { tokensOf } from '../core/tokenCount.js';
import { RawJson } from '../protocol/rawJson.js';
import { InputRequired } from './consent.js';
import { DatabaseToolError, fromDriverError } from './dbErrors.js';
import type { CapabilityRegistry } from './registry.js';
import { type ObjectSchema, validateArguments } from './schema.js';
import type { CallContext, PromptDataMessage, PromptMessage, Tool } from './types.js';
import { RESOURCE_READ_TTL, RESULTS } from '../core/contract.js';

export type MethodSpec = {
  scopes: Scope[];
  /** A method of the other era answers `-32601`. */
  era: 'modern' | 'legacy' | 'both';
  handle(params: Params, ctx: CallContext): Promise<Record<string, unknown>>;
};

function requireString(params: Params, field: string): string {
  const value = params[field];
  if (typeof value !== 'string' || value.length === 0)
    throw invalidParams(`params.${field} must be a non-empty string`);
  return value;
}

/**
 * A tool as `tools/list` declares it. What a client hands the model (name, description, input schema)
 * is written for a model's context (issue 19: every byte is read on every turn; at most
 * `TOOL_DECLARATIONS.modelBytes` for all tools): the input schema is the one that validates, less what
 * the model does not need to call well: bounds and defaults (enforced, and named in the refusal) and the
 * descriptions of the arguments every connection tool shares (connection_id, database, schema, table),
 * which the instructions explain once. The output schema, which clients validate `structuredContent`
 * against and do not show the model, is declared whole (issue 29).
 */
export function toolDeclaration(tool: Tool) {
  let declaration = declarations.get(tool);
  if (!declaration) {
    declaration = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: listed(tool.inputSchema, true) as ObjectSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations.readOnlyHint
        ? { readOnlyHint: true }
        : { readOnlyHint: false, destructiveHint: tool.annotations.destructiveHint },
    };
    declarations.set(tool, declaration);
  }
  return declaration;
}

/** Each tool's declaration, made on the first `tools/list` (tools never change once registered). */
const declarations = new WeakMap<Tool, Record<string, unknown>>();

/** Arguments every connection tool shares, explained once in the server's instructions. */
const SHARED_ARGUMENTS = new Set(['connection_id', 'database', 'schema', 'table']);

/** Keywords that bound or default a value: checked when a call arrives, not needed to write one. */
const ENFORCED_ONLY = new Set(['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'default']);

/** A schema without ENFORCED_ONLY keywords; `described` false drops its description too. */
function listed(schema: unknown, described: boolean): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ENFORCED_ONLY.has(key) || (key === 'description' && !described)) continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, listed(property, !SHARED_ARGUMENTS.has(name))]));
    } else if (key === 'items') {
      out.items = listed(value, true);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * What leaves for the model of a tool's answer, on the one path every answer takes: its text sized to the
 * call's token budget (`max_tokens`, tokenBudget.ts) and fenced as data (dataFence.ts), the note of a cut
 * outside the fence; `structuredContent` the exact data (a row answer's rows cut with its text).
 */
async function toolResult(structured: Record<string, unknown>, args: Record<string, unknown>, signal: AbortSignal) {
  const sized = await sizedAnswer(structured, tokenBudgetOf(args), signal);
  return {
    content: [{ type: 'text', text: sized.text instanceof RawJson ? fencedLiteral(sized.text, sized.note) : fenced(sized.text, sized.note) }],
    structuredContent: sized.structured,
    isError: false,
  };
}

/**
 * A tool failure is a successful JSON-RPC result: `isError`, one text item `<code>: <redacted message>`;
 * a message the database wrote (DatabaseToolError: it may quote values) is fenced as data.
 */
export function toolErrorResult(error: ToolError) {
  const message = redact(error.message);
  return { content: [{ type: 'text', text: `${error.code}: ${error instanceof DatabaseToolError ? fenced(message) : message}` }], isError: true };
}

const inputRequired = (error: InputRequired) => ({ resultType: 'input_required', ...error.result });

/** Tool-level failures a resource read or a prompt answers with the contract's `-32602`: the caller's input was refused. */
const REFUSED_INPUT = new Set(['not_found', 'invalid_argument', 'query_failed', 'unsupported']);

/**
 * In a resource read or a prompt, a tool-level failure becomes the protocol error that fits it: what
 * the database refused because of the caller's input is `-32602` (an unknown schema on SQLite was once
 * `-32603`); only a failure of Sluice itself is `-32603`.
 */
function asProtocolError(error: unknown): unknown {
  if (error instanceof InputRequired) return error;
  const typed = fromDriverError(error);
  if (!(typed instanceof ToolError)) return typed;
  const message = typed instanceof DatabaseToolError ? fenced(redact(typed.message)) : redact(typed.message);
  if (REFUSED_INPUT.has(typed.code)) return invalidParams(`${typed.code}: ${message}`);
  if (typed.code === 'denied') return new ProtocolError(ErrorCode.Forbidden, message);
  if (typed.code === 'not_connected' || typed.code === 'timeout')
    return new ProtocolError(ErrorCode.ServerUnavailable, message);
  return new ProtocolError(ErrorCode.InternalError, `${typed.code}: ${message}`);
}

const connectionOf = (variables: Record<string, string>) =>
  variables.connection_id ? { connectionId: variables.connection_id } : {};

/** What every method handler reads: the capabilities served and the codec of list cursors. */
type Served = { registry: CapabilityRegistry; cursors: CursorCodec };

/** The MCP methods Sluice serves, with the scopes each needs, over one capability registry. */
export function createMethodTable(
  registry: CapabilityRegistry,
  cursors: CursorCodec,
): Record<string, MethodSpec> {
  const served: Served = { registry, cursors };
  return {
    ...sessionMethods(),
    ...toolMethods(served),
    ...resourceMethods(served),
    ...promptMethods(served),
    'completion/complete': {
      scopes: ['resources:read'],
      era: 'both',
      handle: (params, ctx) =>
        complete(params, registry, ctx).catch((error: unknown) => {
          throw asProtocolError(error);
        }),
    },
  };
}

/** One page of a list method's answer: the items under `key`, and the cursor of the next page when there is one. */
function listPage(served: Served, method: string, key: string, items: unknown[], cursor: unknown): Record<string, unknown> {
  const page = served.cursors.page(method, items, cursor);
  return { [key]: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
}

/** Methods of the session itself: discovery, and the legacy era's ping and log level. */
function sessionMethods(): Record<string, MethodSpec> {
  return {
    'server/discover': { scopes: [], era: 'modern', handle: async () => discoverResult() },
    ping: { scopes: [], era: 'legacy', handle: async () => ({}) },
    'logging/setLevel': {
      scopes: [],
      era: 'legacy',
      async handle(params) {
        if (typeof params.level !== 'string' || !LOG_LEVELS.includes(params.level)) {
          throw invalidParams(`level must be one of ${LOG_LEVELS.join(', ')}`);
        }
        return {};
      },
    },
  };
}

function toolMethods(served: Served): Record<string, MethodSpec> {
  return {
    'tools/list': {
      scopes: ['tools:read'],
      era: 'both',
      handle: async (params, ctx) =>
        listPage(served, 'tools/list', 'tools', served.registry.toolsFor(ctx.principal).map(toolDeclaration), params.cursor),
    },
    'tools/call': {
      scopes: ['tools:read'],
      era: 'both',
      async handle(params, ctx) {
        const { tool, args } = calledTool(served.registry, params, ctx);
        await ctx.consent.checkRoundTrip();
        return runTool(tool, args, ctx);
      },
    },
  };
}

/** The tool `tools/call` names, once the caller's scopes, the client's capabilities and the arguments pass. */
function calledTool(registry: CapabilityRegistry, params: Params, ctx: CallContext): { tool: Tool; args: Record<string, unknown> } {
  const name = requireString(params, 'name');
  // Before the lookup: a token limited to custom tools learns nothing of the other names.
  if (!registry.granted(ctx.principal, name)) throw outsideToolGrant(ctx.principal, name);
  const tool = registry.tools.get(name);
  if (!tool) throw invalidParams(`Unknown tool: ${name}`);
  requireScopes(ctx.principal, ['tools:read', ...tool.scopes]);
  const missing = (tool.requiredClientCapabilities ?? []).filter((c) => !(c in ctx.clientCapabilities));
  if (missing.length > 0) {
    throw new ProtocolError(
      ErrorCode.MissingClientCapability,
      `Tool ${name} needs the client capabilities: ${missing.join(', ')}`,
      {
        requiredCapabilities: Object.fromEntries(missing.map((capability) => [capability, {}])),
      },
    );
  }
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) {
    throw invalidParams('params.arguments must be an object');
  }
  return { tool, args: validateArguments(tool.inputSchema, params.arguments) };
}

/** Runs a tool and records its activity row; a tool-level failure is a result with `isError`. */
async function runTool(tool: Tool, args: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
  const started = performance.now();
  const record = (outcome: ActivityOutcome, extra: { rows?: number; error?: string } = {}) =>
    ctx.audit({
      category: 'tool',
      action: tool.name,
      outcome,
      ...(tool.connectionId !== undefined ? { connectionId: tool.connectionId } : typeof args.connection_id === 'string' ? { connectionId: args.connection_id } : {}),
      ...(tool.statement !== undefined ? { statement: tool.statement } : typeof args.sql === 'string' ? { statement: args.sql } : {}),
      durationMs: Math.round(performance.now() - started),
      ...extra,
    });
  try {
    const structured = await tool.run(args, ctx);
    record('success', typeof structured.row_count === 'number' ? { rows: structured.row_count } : {});
    return await toolResult(structured, args, ctx.signal);
  } catch (error) {
    if (error instanceof InputRequired) {
      record('success', {});
      return inputRequired(error);
    }
    if (ctx.signal.aborted) {
      // Cancelled, revoked, disconnected or past the deadline: the request's actor answers for it.
      record('error', { error: 'user_cancelled' });
      throw error;
    }
    const typed = fromDriverError(error);
    const refused = typed instanceof ProtocolError ? typed.code === ErrorCode.Forbidden : typed.code === 'denied';
    // Codes only: a driver's message can quote the statement and its bound values.
    const engineCode = typed instanceof ToolError ? typed.engineCode : undefined;
    record(refused ? 'denied' : 'error', { error: engineCode ? `${typed.code} (${engineCode})` : String(typed.code) });
    if (typed instanceof ToolError) return toolErrorResult(typed);
    throw typed;
  }
}

function resourceMethods(served: Served): Record<string, MethodSpec> {
  const { registry } = served;
  return {
    'resources/list': {
      scopes: ['resources:read'],
      era: 'both',
      async handle(params, ctx) {
        const entries = [];
        for (const family of registry.resources) entries.push(...(await family.list(ctx)));
        return listPage(served, 'resources/list', 'resources', entries, params.cursor);
      },
    },
    'resources/templates/list': {
      scopes: ['resources:read'],
      era: 'both',
      async handle(params) {
        const templates = registry.resources
          .filter((r) => r.uriTemplate.includes('{'))
          .map(({ uriTemplate, name, title, description, mimeType }) => ({
            uriTemplate,
            name,
            title,
            description,
            mimeType,
          }));
        return listPage(served, 'resources/templates/list', 'resourceTemplates', templates, params.cursor);
      },
    },
    'resources/read': { scopes: ['resources:read'], era: 'both', handle: (params, ctx) => readResource(registry, params, ctx) },
  };
}

/**
 * `resources/read`: the resource's body as JSON text, cut to the default token budget (its longest list)
 * and fenced as data, with how long it may be cached; a failure is a protocol error.
 */
async function readResource(registry: CapabilityRegistry, params: Params, ctx: CallContext): Promise<Record<string, unknown>> {
  const uri = requireString(params, 'uri');
  const found = registry.findResource(uri);
  if (!found) throw invalidParams(`Unknown resource: ${uri}`, { uri });
  let body: unknown;
  try {
    body = await found.family.read(found.variables, ctx);
  } catch (error) {
    if (error instanceof InputRequired) return inputRequired(error);
    ctx.audit({ category: 'resource', action: found.family.name, outcome: 'error', ...connectionOf(found.variables) });
    throw asProtocolError(error);
  }
  ctx.audit({ category: 'resource', action: found.family.name, outcome: 'success', ...connectionOf(found.variables) });
  const ttlMs = Math.min(RESOURCE_READ_TTL.max, Math.max(RESOURCE_READ_TTL.min, found.family.ttlMs));
  const sized = await sizedBody(body, RESULTS.defaultTokens, ctx.signal);
  return {
    contents: [{ uri, mimeType: 'text/plain', text: fenced(sized.text, sized.note) }],
    ttlMs,
    cacheScope: 'private',
  };
}

function promptMethods(served: Served): Record<string, MethodSpec> {
  const { registry } = served;
  return {
    'prompts/list': {
      scopes: ['resources:read'],
      era: 'both',
      async handle(params) {
        const prompts = [...registry.prompts.values()].map(
          ({ name, title, description, arguments: args }) => ({
            name,
            title,
            description,
            arguments: args,
          }),
        );
        return listPage(served, 'prompts/list', 'prompts', prompts, params.cursor);
      },
    },
    'prompts/get': { scopes: ['resources:read'], era: 'both', handle: (params, ctx) => getPrompt(registry, params, ctx) },
  };
}

/** `prompts/get`: the prompt rendered with its arguments, every required one given and no unknown one. */
async function getPrompt(registry: CapabilityRegistry, params: Params, ctx: CallContext): Promise<Record<string, unknown>> {
  const name = requireString(params, 'name');
  const prompt = registry.prompts.get(name);
  if (!prompt) throw invalidParams(`Unknown prompt: ${name}`);
  const args = params.arguments ?? {};
  if (!isPlainObject(args) || Object.values(args).some((v) => typeof v !== 'string')) {
    throw invalidParams('prompt arguments must be an object of strings');
  }
  for (const declared of prompt.arguments) {
    if (declared.required && !args[declared.name])
      throw invalidParams(`Prompt ${name} needs the argument ${declared.name}`);
  }
  const unknown = Object.keys(args).filter((k) => !prompt.arguments.some((a) => a.name === k));
  if (unknown.length > 0) throw invalidParams(`Prompt ${name} has no argument ${unknown.join(', ')}`);
  let rendered: Awaited<ReturnType<typeof prompt.render>>;
  try {
    rendered = await prompt.render(args as Record<string, string>, ctx);
  } catch (error) {
    if (error instanceof InputRequired) return inputRequired(error);
    throw asProtocolError(error);
  }
  const messages = [];
  for (const message of rendered.messages) messages.push('data' in message ? await promptMessage(message, ctx.signal) : message);
  return { ...rendered, messages };
}

/** A prompt's message with its database text cut to the default token budget (less its own words) and fenced. */
async function promptMessage(message: PromptDataMessage, signal: AbortSignal): Promise<PromptMessage> {
  const after = message.after ?? '';
  const sized = await sizedData(message.data, RESULTS.defaultTokens, tokensOf(message.lead + after), signal);
  return { role: message.role, content: { type: 'text', text: `${message.lead}${fenced(sized.text, sized.note)}${after}` } };
}
