import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CapabilityModules, Tool } from '../../src/capabilities/types.js';
import type { RequestTrace } from '../../src/http/mcp/mcpPost.js';
import { expectModernSuccess, expectRpcError } from '../helpers/rpcAssertions.js';
import { callTool, mcp, modernMeta, startTestApp, type TestApp } from '../helpers/testApp.js';

/** Contract, "Request envelope" (clientCapabilities, trace context) and the -32021 row of "Errors". */

const needsElicitation: Tool = {
  name: 'needs_elicitation',
  title: 'Needs elicitation',
  description: 'A fixture that cannot work unless the client declares elicitation.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
  annotations: { readOnlyHint: true, destructiveHint: false },
  scopes: [],
  requiredClientCapabilities: ['elicitation'],
  async run() {
    return { ok: true };
  },
};

const needsTwo: Tool = {
  ...needsElicitation,
  name: 'needs_two',
  description: 'A fixture that needs both elicitation and sampling.',
  requiredClientCapabilities: ['elicitation', 'sampling'],
};

const fixtures: CapabilityModules = {
  tools: [needsElicitation, needsTwo] as Tool<never>[],
  resources: [],
  prompts: [],
};

const traces: RequestTrace[] = [];
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ extraCapabilities: [fixtures], onRequestEnd: (trace) => traces.push(trace) });
});
afterAll(() => app.dispose());

const withCapabilities = (capabilities: unknown) =>
  modernMeta({ 'io.modelcontextprotocol/clientCapabilities': capabilities });

describe('required client capabilities', () => {
  it('called with {} capabilities → 400 -32021 naming elicitation', async () => {
    const res = await callTool(app, 'needs_elicitation', {}, { id: 'c1', meta: withCapabilities({}) });
    const error = expectRpcError(res, 400, -32021, 'c1');
    expect(error.data.requiredCapabilities).toEqual({ elicitation: {} });
  });

  it('called with other capabilities only → 400 -32021', async () => {
    const res = await callTool(
      app,
      'needs_elicitation',
      {},
      { meta: withCapabilities({ sampling: {}, roots: {} }) },
    );
    const error = expectRpcError(res, 400, -32021, 1);
    expect(error.data.requiredCapabilities).toEqual({ elicitation: {} });
  });

  it('called with {elicitation: {}} → success', async () => {
    const res = await callTool(
      app,
      'needs_elicitation',
      {},
      { id: 'c2', meta: withCapabilities({ elicitation: {} }) },
    );
    const result = expectModernSuccess(res, 'c2');
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ ok: true });
  });

  it('names only the missing capabilities', async () => {
    const one = await callTool(app, 'needs_two', {}, { meta: withCapabilities({ elicitation: {} }) });
    expect(expectRpcError(one, 400, -32021, 1).data.requiredCapabilities).toEqual({ sampling: {} });
    const both = await callTool(app, 'needs_two', {}, { meta: withCapabilities({}) });
    expect(expectRpcError(both, 400, -32021, 1).data.requiredCapabilities).toEqual({ elicitation: {}, sampling: {} });
    const all = await callTool(
      app,
      'needs_two',
      {},
      { meta: withCapabilities({ elicitation: {}, sampling: {} }) },
    );
    expectModernSuccess(all);
  });

  it('tools that need nothing work with {} capabilities', async () => {
    expectModernSuccess(await callTool(app, 'list_connections', {}, { meta: withCapabilities({}) }));
  });
});

describe('trace context', () => {
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const tracestate = 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE';
  const baggage = 'userId=alice,serverNode=DF%2028,isProduction=false';

  const traceOf = async (id: string) => {
    await vi.waitFor(() => expect(traces.some((t) => t.id === id)).toBe(true));
    return traces.find((t) => t.id === id)!;
  };

  it('traceparent, tracestate and baggage reach onRequestEnd unchanged', async () => {
    const res = await mcp(
      app,
      'tools/list',
      {},
      { id: 'tr1', extraMeta: { traceparent, tracestate, baggage } },
    );
    expectModernSuccess(res, 'tr1');
    const trace = await traceOf('tr1');
    expect(trace.trace).toEqual({ traceparent, tracestate, baggage });
    expect(trace.method).toBe('tools/list');
    expect(trace.status).toBe(200);
  });

  it('values that are not W3C-shaped are still passed through unchanged', async () => {
    const odd = { traceparent: 'not-a-traceparent', tracestate: '', baggage: '  spaced  ' };
    const res = await mcp(app, 'tools/list', {}, { id: 'tr2', extraMeta: odd });
    expectModernSuccess(res, 'tr2');
    expect((await traceOf('tr2')).trace).toEqual(odd);
  });

  it('only the fields sent are delivered', async () => {
    const res = await callTool(app, 'list_connections', {}, { id: 'tr3', extraMeta: { traceparent } });
    expectModernSuccess(res, 'tr3');
    expect((await traceOf('tr3')).trace).toEqual({ traceparent });
  });

  it('a request without trace context delivers an empty trace', async () => {
    expectModernSuccess(await mcp(app, 'tools/list', {}, { id: 'tr4' }), 'tr4');
    expect((await traceOf('tr4')).trace).toEqual({});
  });

  it('the trace context of a refused request reaches the hook too', async () => {
    const res = await callTool(app, 'needs_elicitation', {}, { id: 'tr5', extraMeta: { traceparent } });
    expectRpcError(res, 400, -32021, 'tr5');
    const trace = await traceOf('tr5');
    expect(trace.trace).toEqual({ traceparent });
    expect(trace.errorCode).toBe(-32021);
  });

  it.each([
    ['traceparent', 42],
    ['traceparent', { version: '00' }],
    ['traceparent', null],
    ['tracestate', ['a=b']],
    ['baggage', true],
  ])('a non-string %s (%j) → 400 -32602', async (key, value) => {
    const res = await mcp(app, 'tools/list', {}, { id: 'bad', extraMeta: { [key]: value } });
    expectRpcError(res, 400, -32602, 'bad');
  });
});
