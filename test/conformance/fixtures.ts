import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, type AppOptions, startApp } from '../../src/app/app.js';
import type { CallContext, CapabilityModules, Prompt, PromptMessage, ResourceFamily, Tool } from '../../src/capabilities/types.js';
import type { ObjectSchema } from '../../src/capabilities/schema.js';
import { ToolError } from '../../src/core/errors.js';

/**
 * The fixtures the official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12)
 * calls by name in its server scenarios, written as a Sluice capability module. Test-only: never
 * shipped, never part of the built-in catalogue.
 *
 * Each fixture is as close to what the suite asks for as Sluice's capability interface allows, and no
 * closer: where the wire contract makes Sluice answer differently (a tool result is JSON text, a
 * resource body is JSON text, the only input Sluice ever asks a client for is consent to a statement),
 * the fixture goes through Sluice's own path, so the suite measures what Sluice really does.
 * `expected-failures.json` names the contract rule behind each difference.
 */

/** A 1×1 red PNG. */
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A WAV header with no samples (44 bytes). */
const WAV_EMPTY = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

const noArguments: ObjectSchema = { type: 'object', properties: {}, additionalProperties: false };
const anyObject: ObjectSchema = { type: 'object', properties: {} };
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

type Run = (args: Record<string, unknown>, ctx: CallContext) => Promise<Record<string, unknown>>;

function tool(name: string, description: string, run: Run, extra: Partial<Tool> = {}): Tool<never> {
  return {
    name,
    title: name,
    description,
    inputSchema: noArguments,
    outputSchema: anyObject,
    annotations: readOnly,
    scopes: [],
    run,
    ...extra,
  } as Tool<never>;
}

/** Returns what the suite expects in `content`; Sluice renders it as one JSON text item (contract, "Tool call result"). */
const returnsContent =
  (content: unknown[]): Run =>
  async () => ({ content });

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/**
 * The only input Sluice asks a client for: consent to a statement on a saved connection (contract,
 * "Tool call needing approval"). With `elicitation` declared the first call answers `input_required`
 * (key `approve_statement`, a signed `requestState`); the repeated call is checked and answered; without
 * `elicitation` the call waits on a confirmation dialog, which `answerDialogs` answers for the harness.
 */
const asksConsent =
  (what: string): Run =>
  async (_args, ctx) => {
    const connection = ctx.catalog.get('demo');
    if (!connection) throw new ToolError('not_found', 'the demo connection is missing');
    await ctx.consent.ask({
      connection,
      tool: what,
      statementKind: 'write',
      statement: `-- conformance fixture ${what}: nothing is run`,
    });
    return { approved: true };
  };

const tools: Tool<never>[] = [
  // Content scenarios (tools-call-*).
  tool('test_simple_text', 'Returns simple text.', async () => ({ text: 'This is a simple text response for testing.' })),
  tool(
    'test_image_content',
    'Returns an image content item.',
    returnsContent([{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }]),
  ),
  tool(
    'test_audio_content',
    'Returns an audio content item.',
    returnsContent([{ type: 'audio', data: WAV_EMPTY, mimeType: 'audio/wav' }]),
  ),
  tool(
    'test_embedded_resource',
    'Returns an embedded resource content item.',
    returnsContent([
      {
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      },
    ]),
  ),
  tool(
    'test_multiple_content_types',
    'Returns text, image and resource content items.',
    returnsContent([
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: '{"test":"data","value":123}',
        },
      },
    ]),
  ),
  tool('test_error_handling', 'Always fails.', async () => {
    throw new ToolError('internal_failure', 'This tool intentionally returns an error for testing');
  }),
  tool('test_tool_with_progress', 'Reports progress 0, 50 and 100 of 100.', async (_args, ctx) => {
    ctx.progress(0, 100, 'started');
    await sleep(50, ctx.signal);
    ctx.progress(50, 100, 'half way');
    await sleep(50, ctx.signal);
    ctx.progress(100, 100, 'done');
    return { done: true };
  }),
  // Logging: Sluice sends no log notifications in either era.
  tool('test_logging_tool', 'Would log; Sluice sends no log notifications.', async () => ({ logged: false })),
  tool('test_tool_with_logging', 'Would log; Sluice sends no log notifications.', async () => ({ logged: false })),
  // server-stateless: a tool that cannot work without `sampling`.
  tool('test_missing_capability', 'Needs the sampling client capability.', async () => ({ ok: true }), {
    requiredClientCapabilities: ['sampling'],
  }),
  tool('test_streaming_elicitation', 'Asks for consent (Sluice: input_required).', asksConsent('test_streaming_elicitation')),
  // Sluice's tool and prompt lists never change (tools.listChanged = prompts.listChanged = false).
  tool('test_trigger_tool_change', 'Would change the tool list; Sluice\'s never changes.', async () => ({ changed: false })),
  tool('test_trigger_prompt_change', 'Would change the prompt list; Sluice\'s never changes.', async () => ({ changed: false })),
  // Input requests (SEP-2322, 2026-07-28): each answered through Sluice's consent round trip.
  ...[
    'test_input_required_result_elicitation',
    'test_input_required_result_sampling',
    'test_input_required_result_list_roots',
    'test_input_required_result_request_state',
    'test_input_required_result_multiple_inputs',
    'test_input_required_result_multi_round',
    'test_input_required_result_tampered_state',
    'test_input_required_result_capabilities',
  ].map((name) => tool(name, 'Asks for consent (Sluice: input_required, key approve_statement).', asksConsent(name))),
  // Legacy (2025-11-25) server-to-client requests.
  tool(
    'test_sampling',
    'Would ask the client to sample; Sluice never does.',
    async () => {
      throw new ToolError('unsupported', 'Sluice never asks a client to sample');
    },
    { inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] } },
  ),
  tool('test_elicitation', 'Asks for consent.', asksConsent('test_elicitation'), {
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  }),
  tool('test_elicitation_sep1034_defaults', 'Asks for consent.', asksConsent('test_elicitation_sep1034_defaults')),
  tool('test_elicitation_sep1330_enums', 'Asks for consent.', asksConsent('test_elicitation_sep1330_enums')),
  // json-schema-2020-12: the input schema must reach tools/list unchanged.
  tool('json_schema_2020_12_tool', 'Tool with JSON Schema 2020-12 features', async () => ({ ok: true }), {
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'addressDef',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    } as unknown as ObjectSchema,
  }),
  // http-custom-header-server-validation (SEP-2243): arguments mirrored into Mcp-Param-<name> headers.
  tool('test_custom_headers', 'Echoes arguments that clients mirror into Mcp-Param headers.', async (args) => ({ args }), {
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'Plain ASCII string value', 'x-mcp-header': 'Region' },
        priority: { type: 'integer', description: 'Integer numeric value', 'x-mcp-header': 'Priority' },
        verbose: { type: 'boolean', description: 'Boolean value', 'x-mcp-header': 'Verbose' },
      },
    } as unknown as ObjectSchema,
  }),
];

function staticResource(uri: string, name: string, mimeType: string, body: unknown): ResourceFamily {
  return {
    uriTemplate: uri,
    name,
    title: name,
    description: `Conformance fixture ${uri}`,
    mimeType,
    ttlMs: 5_000,
    match: (url) => (url.href === uri ? {} : undefined),
    list: async () => [{ uri, name, title: name, description: `Conformance fixture ${uri}`, mimeType }],
    // Sluice serves every resource body as JSON text (`contents[0].text`), never as a `blob`.
    read: async () => body,
  };
}

const TEMPLATE = /^test:\/\/template\/([^/?#]+)\/data$/;

const resources: ResourceFamily[] = [
  staticResource('test://static-text', 'static-text', 'text/plain', 'This is the content of the static text resource.'),
  staticResource('test://static-binary', 'static-binary', 'image/png', PNG_1X1),
  staticResource('test://watched-resource', 'watched-resource', 'text/plain', 'A resource to subscribe to.'),
  {
    uriTemplate: 'test://template/{id}/data',
    name: 'template-data',
    title: 'template-data',
    description: 'Conformance fixture: a resource template with one variable.',
    mimeType: 'application/json',
    ttlMs: 5_000,
    match(url) {
      const id = TEMPLATE.exec(url.href)?.[1];
      return id === undefined ? undefined : { id: decodeURIComponent(id) };
    },
    list: async () => [],
    read: async ({ id }) => ({ id, templateTest: true, data: `Data for ID: ${id}` }),
  },
];

const text = (value: string): PromptMessage => ({ role: 'user', content: { type: 'text', text: value } });
/** Non-text prompt content: the contract does not restrict prompt messages, and Sluice passes them through. */
const anyContent = (content: Record<string, unknown>) => ({ role: 'user', content }) as unknown as PromptMessage;

const prompts: Prompt[] = [
  {
    name: 'test_simple_prompt',
    title: 'test_simple_prompt',
    description: 'A prompt without arguments.',
    arguments: [],
    render: async () => ({ description: 'A simple prompt', messages: [text('This is a simple prompt for testing.')] }),
  },
  {
    name: 'test_prompt_with_arguments',
    title: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments.',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    render: async (args) => ({
      description: 'A prompt with arguments',
      messages: [text(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`)],
    }),
  },
  {
    name: 'test_prompt_with_embedded_resource',
    title: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource.',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    render: async (args) => ({
      description: 'A prompt with an embedded resource',
      messages: [
        anyContent({
          type: 'resource',
          resource: { uri: args.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        }),
        text('Please process the embedded resource above.'),
      ],
    }),
  },
  {
    name: 'test_prompt_with_image',
    title: 'test_prompt_with_image',
    description: 'A prompt with an image.',
    arguments: [],
    render: async () => ({
      description: 'A prompt with an image',
      messages: [anyContent({ type: 'image', data: PNG_1X1, mimeType: 'image/png' }), text('Please analyze the image above.')],
    }),
  },
  {
    name: 'test_input_required_result_prompt',
    title: 'test_input_required_result_prompt',
    description: 'A prompt that asks for consent before rendering.',
    arguments: [],
    async render(args, ctx) {
      await asksConsent('test_input_required_result_prompt')(args, ctx);
      return { description: 'Rendered after consent', messages: [text('Consent was given.')] };
    },
  },
];

export const conformanceFixtures: CapabilityModules = { tools, resources, prompts };

/**
 * Stands in for the user at Sluice's confirmation dialogs (a write by a client without `elicitation`
 * blocks on one): denies each dialog as it appears. Returns a function that stops it.
 */
export function answerDialogs(app: App, answer: 'approve' | 'deny' = 'deny', everyMs = 20): () => void {
  const timer = setInterval(() => {
    for (const dialog of app.dialogs.list()) app.dialogs.answer(dialog.id, answer);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

export type ConformanceServer = { app: App; url: string; dispose(): Promise<void> };

/**
 * Sluice on an ephemeral loopback port with the fixtures, a fresh support directory and authentication
 * off: the suite's `server` command has no way to send an `Authorization` header.
 */
export async function startConformanceServer(options: Partial<AppOptions> = {}): Promise<ConformanceServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sluice-conformance-'));
  const app = await startApp({
    port: 0,
    auth: false,
    ...options,
    dataDir,
    extraCapabilities: [conformanceFixtures, ...(options.extraCapabilities ?? [])],
  });
  const stopAnswering = answerDialogs(app);
  return {
    app,
    url: app.url,
    async dispose() {
      stopAnswering();
      await app.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
