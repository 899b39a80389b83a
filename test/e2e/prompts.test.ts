import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcp, startTestApp, type TestApp } from '../helpers/testApp.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.dispose());

describe('prompts', () => {
  it('prompts/list gives the eight prompts with their arguments', async () => {
    const res = await mcp(app, 'prompts/list');
    const prompts = res.json.result.prompts;
    expect(prompts.map((p: { name: string }) => p.name)).toEqual([
      'explain_schema',
      'explain_table',
      'question_to_sql',
      'review_query',
      'write_migration',
      'data_quality_audit',
      'propose_indexes',
      'summarize_query_history',
    ]);
    expect(prompts[1].arguments).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'table', required: true })]),
    );
  });

  it('prompts render from the live schema', async () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ['explain_schema', { connection_id: 'demo' }, /Table main\.books[\s\S]*foreign keys/],
      [
        'explain_table',
        { connection_id: 'demo', table: 'reviews' },
        /Table main\.reviews\n {2}- id INTEGER PK/,
      ],
      [
        'question_to_sql',
        { connection_id: 'demo', question: 'Who bought the most books?' },
        /Who bought the most books\?[\s\S]*customers/,
      ],
      [
        'review_query',
        { connection_id: 'demo', sql: 'SELECT * FROM orders' },
        /```sql\nSELECT \* FROM orders\n```/,
      ],
      [
        'write_migration',
        { connection_id: 'demo', change: 'add a loyalty tier to customers' },
        /loyalty tier[\s\S]*order_items/,
      ],
    ];
    for (const [name, args, pattern] of cases) {
      const res = await mcp(app, 'prompts/get', { name, arguments: args });
      expect(res.status, name).toBe(200);
      const [message] = res.json.result.messages;
      expect(message.role).toBe('user');
      expect(message.content.type).toBe('text');
      expect(message.content.text, name).toMatch(pattern);
      expect(res.json.result.resultType).toBe('complete');
    }
  });

  it('unknown prompts, missing or unknown arguments, and unknown tables are -32602', async () => {
    const cases: Record<string, unknown>[] = [
      { name: 'nope' },
      { name: 'explain_table', arguments: { connection_id: 'demo' } },
      { name: 'explain_schema', arguments: { connection_id: 'demo', colour: 'red' } },
      { name: 'explain_schema', arguments: { connection_id: 7 } },
      { name: 'explain_table', arguments: { connection_id: 'demo', table: 'nope' } },
    ];
    for (const params of cases) {
      const res = await mcp(app, 'prompts/get', params);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe(-32602);
    }
  });
});

describe('completion/complete', () => {
  const complete = (
    ref: Record<string, unknown>,
    name: string,
    value: string,
    context?: Record<string, string>,
  ) =>
    mcp(app, 'completion/complete', {
      ref,
      argument: { name, value },
      ...(context ? { context: { arguments: context } } : {}),
    });

  it('fills connection ids, tables (prefix matches first) and schemas', async () => {
    const prompt = { type: 'ref/prompt', name: 'explain_table' };
    expect((await complete(prompt, 'connection_id', 'de')).json.result.completion).toEqual({
      values: ['demo'],
      total: 1,
      hasMore: false,
    });
    const tables = (await complete(prompt, 'table', 'or', { connection_id: 'demo' })).json.result.completion
      .values;
    expect(tables.slice(0, 2)).toEqual(['order_items', 'order_totals']);
    expect(tables).toContain('authors');
    const schemas = await complete(
      { type: 'ref/resource', uri: 'sluice://connections/{connection_id}/tables{?schema}' },
      'schema',
      '',
      {
        connection_id: 'demo',
      },
    );
    expect(schemas.json.result.completion.values).toEqual(['main']);
  });

  it('completes fixed values of resource templates', async () => {
    const res = await complete(
      { type: 'ref/resource', uri: 'sluice://connections/{connection_id}/history{?limit,search,kind,outcome}' },
      'limit',
      '1',
    );
    expect(res.json.result.completion.values).toEqual(['10', '100']);
  });

  it('unknown references and arguments are -32602', async () => {
    for (const res of [
      await complete({ type: 'ref/prompt', name: 'nope' }, 'table', ''),
      await complete({ type: 'ref/prompt', name: 'explain_table' }, 'colour', ''),
      await complete({ type: 'ref/resource', uri: 'sluice://nope/{x}' }, 'x', ''),
      await complete(
        { type: 'ref/resource', uri: 'sluice://connections/{connection_id}/tables{?schema}' },
        'table',
        '',
      ),
      await complete({ type: 'ref/other' }, 'x', ''),
    ]) {
      expect(res.json.error.code).toBe(-32602);
    }
  });
});
