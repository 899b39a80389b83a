import { InputRequired } from '../../src/capabilities/consent.js';
import type { CapabilityModules, Prompt } from '../../src/capabilities/types.js';

/**
 * A test-only prompt that asks for consent to `arguments.sql` on `arguments.connection_id` and renders
 * the `requestState` it was issued: a state signed for `prompts/get`. Named after a tool and taking the
 * same string arguments (`connection_id`, `sql`), its `prompts/get` params are exactly those of the
 * matching `tools/call`, so the state differs from that call's own state only in the method it is bound to.
 */
export function stateCapturingPrompt(name: string): { module: CapabilityModules; name: string } {
  const prompt: Prompt = {
    name,
    title: 'Capture a requestState',
    description: 'Test fixture: renders the requestState a consent question under prompts/get was issued.',
    arguments: [
      { name: 'connection_id', description: 'A saved connection id.', required: true },
      { name: 'sql', description: 'A statement to ask consent for.', required: true },
    ],
    async render(args, ctx) {
      const connection = ctx.catalog.get(args.connection_id ?? '');
      if (!connection) throw new Error(`no connection ${args.connection_id}`);
      try {
        await ctx.consent.ask({ connection, tool: name, statement: args.sql ?? '', statementKind: 'write' });
      } catch (error) {
        if (!(error instanceof InputRequired)) throw error;
        return {
          description: 'The requestState issued under prompts/get.',
          messages: [{ role: 'user', content: { type: 'text', text: error.result.requestState } }],
        };
      }
      throw new Error('no requestState was issued: declare elicitation in the prompts/get call');
    },
  };
  return { module: { tools: [], resources: [], prompts: [prompt] }, name };
}
