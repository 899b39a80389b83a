import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilityModules, Tool } from '../../src/capabilities/types.js';
import { ToolError } from '../../src/core/errors.js';
import { expectModernSuccess, expectRpcError, SERVER_INFO_KEY } from '../helpers/rpcAssertions.js';
import { callTool, sseFrames, startTestApp, type TestApp } from '../helpers/testApp.js';

/** Contract, "Progress streaming". */

/** A tool that reports 0.5, 0.5 (not advancing), 0.2 (going back) and 0.9: only 0.5 and 0.9 may be sent. */
const wobblyProgress: Tool = {
  name: 'wobbly_progress',
  title: 'Report wobbly progress',
  description: 'A fixture that reports progress that does not always advance.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: { type: 'object', properties: { done: { type: 'boolean' } } },
  annotations: { readOnlyHint: true, destructiveHint: false },
  scopes: [],
  async run(_args, ctx) {
    ctx.progress(0.5, 1, 'half');
    ctx.progress(0.5, 1, 'half again');
    ctx.progress(0.2, 1, 'back');
    ctx.progress(0.9, 1, 'nearly');
    return { done: true };
  },
};

/** A tool that reports progress and then fails as a tool (isError). */
const failingAfterProgress: Tool = {
  name: 'failing_after_progress',
  title: 'Fail after progress',
  description: 'A fixture that reports progress, then throws a tool error.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true, destructiveHint: false },
  scopes: [],
  async run(_args, ctx) {
    ctx.progress(0.1, 1, 'started');
    throw new ToolError('query_failed', 'the fixture fails on purpose');
  },
};

const fixtures: CapabilityModules = {
  tools: [wobblyProgress, failingAfterProgress] as Tool<never>[],
  resources: [],
  prompts: [],
};

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ extraCapabilities: [fixtures] });
});
afterAll(() => app.dispose());

const queryArgs = { connection_id: 'demo', sql: 'SELECT title FROM books ORDER BY id LIMIT 3' };

function progressFrames(data: any[]) {
  return data.slice(0, -1);
}

describe('progress streaming: execute_query', () => {
  it.each([
    ['a string', 'tok-1'],
    ['an integer', 42],
    ['zero', 0],
  ])(
    'with %s progressToken the answer is an SSE stream: 0, 0.3, 1, then the response',
    async (_label, token) => {
      const res = await callTool(app, 'execute_query', queryArgs, {
        id: 'q1',
        extraMeta: { progressToken: token },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type') ?? '').toMatch(/^text\/event-stream/);
      const { data, named } = sseFrames(res.text);
      expect(named).toBe(0);
      expect(res.text).not.toMatch(/^event:/m);
      expect(data.length).toBe(4);

      const notifications = progressFrames(data);
      for (const frame of notifications) {
        expect(frame).toEqual({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: {
            progressToken: token,
            progress: expect.any(Number),
            total: expect.any(Number),
            message: expect.any(String),
          },
        });
        expect(Object.keys(frame.params).sort()).toEqual(['message', 'progress', 'progressToken', 'total']);
        expect(frame).not.toHaveProperty('id');
      }
      expect(notifications.map((f) => f.params.progress)).toEqual([0, 0.3, 1]);

      const final = data.at(-1);
      expect(final.jsonrpc).toBe('2.0');
      expect(final.id).toBe('q1');
      expect(final.error).toBeUndefined();
      expect(final.result.isError).toBe(false);
      expect(final.result.resultType).toBe('complete');
      expect(final.result._meta[SERVER_INFO_KEY].name).toBe('sluice');
      expect(final.result.structuredContent.rows).toHaveLength(3);
    },
  );

  it('a tool that reports no progress still answers text/event-stream, with the response as the only frame', async () => {
    const res = await callTool(app, 'list_connections', {}, { id: 'lc', extraMeta: { progressToken: 'n' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type') ?? '').toMatch(/^text\/event-stream/);
    const { data, named } = sseFrames(res.text);
    expect(named).toBe(0);
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      jsonrpc: '2.0',
      id: 'lc',
      result: { isError: false, resultType: 'complete' },
    });
  });

  it('each frame is one data line; the stream holds nothing but frames', async () => {
    const res = await callTool(app, 'execute_query', queryArgs, { extraMeta: { progressToken: 'p' } });
    const frames = res.text.split('\n\n').filter((f) => f.length > 0);
    for (const frame of frames) {
      const lines = frame.split('\n').filter((l) => l.length > 0 && !l.startsWith(':'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^data: /);
    }
  });

  it('without a progressToken the answer is plain application/json', async () => {
    const res = await callTool(app, 'execute_query', queryArgs, { id: 'plain' });
    expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
    const result = expectModernSuccess(res, 'plain');
    expect(result.structuredContent.rows).toHaveLength(3);
  });

  it('a tool error after progress ends the stream with the isError result', async () => {
    const res = await callTool(
      app,
      'execute_query',
      { connection_id: 'nope', sql: 'SELECT 1' },
      {
        id: 'e',
        extraMeta: { progressToken: 'err' },
      },
    );
    expect(res.status).toBe(200);
    const { data, named } = sseFrames(res.text);
    expect(named).toBe(0);
    const final = data.at(-1);
    expect(final.id).toBe('e');
    expect(final.result.isError).toBe(true);
    expect(final.result.content[0].text).toMatch(/^not_found: /);
    const progress = progressFrames(data).map((f) => f.params.progress);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1]);
  });
});

describe('progress streaming: non-advancing updates', () => {
  it('0.5, 0.5, 0.2, 0.9 is sent as 0.5, 0.9', async () => {
    const res = await callTool(app, 'wobbly_progress', {}, { id: 7, extraMeta: { progressToken: 'w' } });
    expect(res.headers.get('content-type') ?? '').toMatch(/^text\/event-stream/);
    const { data, named } = sseFrames(res.text);
    expect(named).toBe(0);
    const notifications = progressFrames(data);
    expect(notifications.map((f) => f.params.progress)).toEqual([0.5, 0.9]);
    expect(notifications.map((f) => f.params.message)).toEqual(['half', 'nearly']);
    expect(notifications.every((f) => f.params.total === 1 && f.params.progressToken === 'w')).toBe(true);
    expect(data.at(-1)).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { structuredContent: { done: true } },
    });
  });

  it('without a progressToken the same tool answers plain JSON', async () => {
    const res = await callTool(app, 'wobbly_progress', {});
    expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
    expect(expectModernSuccess(res).structuredContent).toEqual({ done: true });
  });

  it('a fixture tool error after progress is the last frame', async () => {
    const res = await callTool(
      app,
      'failing_after_progress',
      {},
      { id: 8, extraMeta: { progressToken: 'f' } },
    );
    const { data } = sseFrames(res.text);
    expect(progressFrames(data).map((f) => f.params.progress)).toEqual([0.1]);
    expect(data.at(-1).id).toBe(8);
    expect(data.at(-1).result.isError).toBe(true);
    expect(data.at(-1).result.content[0].text).toMatch(/^query_failed: /);
  });
});

describe('progress streaming: refusals', () => {
  it('an unknown tool with a progress token → -32602 (plain JSON 400 before any progress)', async () => {
    const res = await callTool(app, 'no_such_tool', {}, { id: 'u', extraMeta: { progressToken: 'x' } });
    expectRpcError(res, 400, -32602, 'u');
  });

  it('invalid arguments with a progress token → -32602', async () => {
    const res = await callTool(
      app,
      'execute_query',
      { connection_id: 'demo' },
      {
        id: 'v',
        extraMeta: { progressToken: 'x' },
      },
    );
    expectRpcError(res, 400, -32602, 'v');
  });

  it.each([
    ['a float', 1.5],
    ['an object', { a: 1 }],
    ['a boolean', true],
    ['null', null],
  ])('a progressToken that is %s → 400 -32602', async (_label, token) => {
    const res = await callTool(app, 'execute_query', queryArgs, {
      id: 't',
      extraMeta: { progressToken: token },
    });
    expectRpcError(res, 400, -32602, 't');
  });
});
