import type { CapabilityModules, Tool } from '../../src/capabilities/types.js';

export type GatedTool = {
  /** A capability module holding only the gated tool; pass it in `extraCapabilities`. */
  module: CapabilityModules;
  name: string;
  /** Calls currently held at the gate. */
  waiting(): number;
  /** Resolves once at least `count` calls are held at the gate (polls every 10 ms). */
  untilWaiting(count: number): Promise<void>;
  /** Lets every held call finish with `{ released: true }`. */
  releaseAll(): void;
};

/**
 * A test-only read tool whose every call waits until the test releases it (or the request is aborted):
 * a way to keep requests in flight for as long as a test needs.
 */
export function gatedTool(name = 'wait_for_gate'): GatedTool {
  const held: (() => void)[] = [];
  const tool: Tool = {
    name,
    title: 'Wait for the gate',
    description: 'Test fixture: returns once the test opens the gate.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: { type: 'object', properties: { released: { type: 'boolean' } }, required: ['released'] },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scopes: [],
    run: (_args, ctx) =>
      new Promise((resolve, reject) => {
        const release = () => {
          ctx.signal.removeEventListener('abort', abort);
          resolve({ released: true });
        };
        const abort = () => {
          const at = held.indexOf(release);
          if (at >= 0) held.splice(at, 1);
          reject(ctx.signal.reason);
        };
        ctx.signal.addEventListener('abort', abort, { once: true });
        held.push(release);
      }),
  };
  return {
    module: { tools: [tool as Tool<never>], resources: [], prompts: [] },
    name,
    waiting: () => held.length,
    async untilWaiting(count) {
      while (held.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
    },
    releaseAll() {
      for (const release of held.splice(0)) release();
    },
  };
}
