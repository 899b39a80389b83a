import type { ActivityEntry } from '../activity/activityLog.js';
import type { UndoStore } from '../activity/undoStore.js';
import type { UndoSettings } from './undoOutlook.js';
import type { Principal, Scope } from '../auth/principal.js';
import type { ConnectionCatalog } from '../db/connections/connectionCatalog.js';
import type { QueryHistory } from '../db/results/queryHistory.js';
import type { HeldReads } from '../runtime/heldReads.js';
import type { Consent } from './consent.js';
import type { ObjectOutputSchema } from './outputSchema.js';
import type { FromSchema, ObjectSchema } from './schema.js';

/** What a capability handler gets for one request. */
export type CallContext = {
  principal: Principal;
  catalog: ConnectionCatalog;
  history: QueryHistory;
  /** Reads held open behind `next_cursor`s (execute_query, browse_table). */
  heldReads: HeldReads;
  clientCapabilities: Record<string, unknown>;
  signal: AbortSignal;
  /** Reports progress; ignored unless the request carried a progress token. */
  progress(progress: number, total: number, message: string): void;
  /** Asks the user to consent to a write; resolves once they did. */
  consent: Consent;
  /** Records an activity row; the caller (token, client) and the trace context are filled in. */
  audit(entry: Omit<ActivityEntry, 'tokenId' | 'tokenName' | 'clientName' | 'trace'>): void;
  /** Adds to the `detail` of this call's own activity row (a kept write's undo id, or why there is none). */
  noteActivity(detail: NonNullable<ActivityEntry['detail']>): void;
  /** Whether approved writes keep their rows to be undone, and where they are kept. */
  undo: UndoKeeping;
};

/** Undo (issue 31): the setting and bounds, and the store of kept rows. */
export type UndoKeeping = { settings: UndoSettings; store: Pick<UndoStore, 'keep'> };

export type ToolAnnotations = {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

/**
 * A tool, its arguments typed by its input schema (`FromSchema`): `run` gets what `validateArguments`
 * let through. Declare one with `defineTool`, which keeps the schema's own type.
 */
export type Tool<S extends ObjectSchema = ObjectSchema> = {
  name: string;
  title: string;
  description: string;
  inputSchema: S;
  /** What `structuredContent` holds, declared in tools/list. */
  outputSchema: ObjectOutputSchema;
  annotations: ToolAnnotations;
  /** Scopes the tool needs besides `tools:read`; a call without them is `-33007`. */
  scopes: Scope[];
  /** The one connection the tool always works on (a custom tool's), which its activity rows name. */
  connectionId?: string;
  /** The one statement the tool always runs (a custom tool's), whose digest its activity rows carry. */
  statement?: string;
  /** Client capabilities the tool cannot work without; a call without them is `-32021`. */
  requiredClientCapabilities?: string[];
  run(args: FromSchema<S>, ctx: CallContext): Promise<Record<string, unknown>>;
};

/** A tool, its input schema's type inferred from the literal so that `run`'s `args` follow from it. */
export const defineTool = <const S extends ObjectSchema>(tool: Tool<S>): Tool<S> => tool;

export type ResourceEntry = {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
};

/** One resource family: a URI template, its concrete instances and how to read one. */
export type ResourceFamily = {
  uriTemplate: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  /** Cache lifetime of a read, in milliseconds. */
  ttlMs: number;
  /** The template's variables when `uri` belongs to this family. */
  match(uri: URL): Record<string, string> | undefined;
  list(ctx: CallContext): Promise<ResourceEntry[]>;
  read(variables: Record<string, string>, ctx: CallContext): Promise<unknown>;
};

export type PromptArgument = { name: string; description: string; required: boolean };

export type PromptMessage = { role: 'user' | 'assistant'; content: { type: 'text'; text: string } };

/**
 * A prompt's message that embeds database text (a schema, a table, statements): `lead`, then `data`, then
 * `after`. `prompts/get` cuts `data` to the token budget and fences it (methods.ts), on the path every
 * answer takes.
 */
export type PromptDataMessage = { role: 'user'; lead: string; data: string; after?: string };

export type Prompt = {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  render(
    args: Record<string, string>,
    ctx: CallContext,
  ): Promise<{ description: string; messages: (PromptMessage | PromptDataMessage)[] }>;
};

export type CapabilityModules = {
  tools: Tool[];
  resources: ResourceFamily[];
  prompts: Prompt[];
};
