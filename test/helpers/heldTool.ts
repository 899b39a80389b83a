import type { CapabilityModules, Tool } from '../../src/capabilities/types.js';
import { ErrorCode, ProtocolError, ToolError } from '../../src/protocol/errors.js';

/**
 * How the test ends a held call: `resolve` (a normal result), `toolError` (a `ToolError`: an `isError`
 * result), `plainError` (an untyped `Error`, as a bug in a tool would throw), `internalError` (a
 * `ProtocolError` -32603 thrown by the handler: the in-flight request's `failed` state).
 */
export type Ending = 'resolve' | 'toolError' | 'plainError' | 'internalError';

export const TOOL_ERROR_TEXT = 'query_failed: the held call failed as the test asked';

type Call = {
  key: string;
  /** Set once the handler's AbortSignal fired; what it carried. */
  aborted: boolean;
  abortReason?: unknown;
  /** Set once the test ended the call (or the signal did). */
  over: boolean;
  end(ending: Ending): void;
};

export type HeldTool = {
  /** A capability module holding only the held tool; pass it in `extraCapabilities`. */
  module: CapabilityModules;
  name: string;
  /** Resolves once the call with this key reached the tool and its in-flight actor is running. */
  started(key: string): Promise<void>;
  /** Calls reached the tool and neither ended by the test nor aborted. */
  held(): number;
  isHeld(key: string): boolean;
  /** Whether the handler's AbortSignal of this call fired. */
  aborted(key: string): boolean;
  abortReason(key: string): unknown;
  /** Ends a held call; throws if it is not held. */
  end(key: string, ending?: Ending): void;
};

/**
 * A test-only read tool (arguments `{ key, progress? }`) whose every call is held until the test ends it
 * (`end(key, ending)`) or the request's AbortSignal fires. With `progress: true` it first reports progress
 * 0.5, so a request that carried a progress token has its event stream open while it is held. Each call
 * is remembered by its key, so a test can ask afterwards whether its signal fired.
 */
export function heldTool(name = 'hold_until_told'): HeldTool {
  const calls = new Map<string, Call>();
  const waiters = new Map<string, (() => void)[]>();
  const call = (key: string): Call => {
    const found = calls.get(key);
    if (!found) throw new Error(`no call with key ${key} reached the tool`);
    return found;
  };

  const tool: Tool<{ key: string; progress?: boolean }> = {
    name,
    title: 'Hold until told',
    description: 'Test fixture: holds each call until the test ends it or the request is aborted.',
    inputSchema: {
      type: 'object',
      properties: { key: { type: 'string', minLength: 1 }, progress: { type: 'boolean' } },
      required: ['key'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scopes: [],
    run: ({ key, progress }, ctx) =>
      new Promise((resolve, reject) => {
        if (calls.has(key)) throw new Error(`held tool: key ${key} used twice`);
        const held: Call = {
          key,
          aborted: false,
          over: false,
          end(ending) {
            if (held.over) throw new Error(`held tool: call ${key} is no longer held`);
            held.over = true;
            ctx.signal.removeEventListener('abort', onAbort);
            if (ending === 'resolve') resolve({ key });
            else if (ending === 'toolError') reject(new ToolError('query_failed', 'the held call failed as the test asked'));
            else if (ending === 'plainError') reject(new Error('a bug in the held tool'));
            else reject(new ProtocolError(ErrorCode.InternalError, 'Internal error: the held call failed as the test asked'));
          },
        };
        const onAbort = () => {
          held.aborted = true;
          held.abortReason = ctx.signal.reason;
          held.over = true;
          reject(ctx.signal.reason);
        };
        calls.set(key, held);
        if (progress) ctx.progress(0.5, 1, 'held until the test says');
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener('abort', onAbort, { once: true });
        for (const wake of waiters.get(key) ?? []) wake();
        waiters.delete(key);
      }),
  };

  return {
    module: { tools: [tool as Tool<never>], resources: [], prompts: [] },
    name,
    // A request still running when the turn of the event loop its handler started in ends is an actor.
    started: (key) =>
      (calls.has(key) ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(key, [...(waiters.get(key) ?? []), resolve]))).then(
        () => new Promise<void>((resolve) => setImmediate(resolve)),
      ),
    held: () => [...calls.values()].filter((c) => !c.over).length,
    isHeld: (key) => calls.get(key)?.over === false,
    aborted: (key) => call(key).aborted,
    abortReason: (key) => call(key).abortReason,
    end: (key, ending = 'resolve') => call(key).end(ending),
  };
}
