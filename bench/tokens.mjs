// What a model reads, in bytes and tokens, for a fixed set of tasks on the demo database: the tool
// result's text (content[0].text) against the same result as JSON (structuredContent), and for
// tools/list what a client hands the model of each tool: its name, description and input schema (the
// output schema and annotations are for the client). Tokens are estimated as ceil(bytes / 4) and counted with
// gpt-tokenizer's o200k_base encoding (GPT-4o's; other models' tokenizers differ by a few per cent).
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { callTool, request } from './lib/mcp.mjs';

const TASKS = [
  ['list_connections', {}],
  ['describe_table', { connection_id: 'demo', table: 'books' }],
  ['execute_query, 50 rows', { connection_id: 'demo', sql: 'SELECT * FROM orders ORDER BY id LIMIT 50' }],
  ['execute_query, 500 rows', { connection_id: 'demo', sql: 'SELECT * FROM orders ORDER BY id LIMIT 500' }],
];

const measureText = (text) => ({ bytes: Buffer.byteLength(text), estimated: Math.ceil(Buffer.byteLength(text) / 4), counted: countTokens(text) });

/** One row per task: `text` is what the model reads, `json` the same result as JSON (none for tools/list). */
export async function measureTokens(port, token) {
  const rows = [];
  for (const [task, args] of TASKS) {
    const { answer, wireBytes } = await callTool(port, token, task.split(',')[0], args);
    rows.push({ task, text: measureText(answer.result.content[0].text), json: measureText(JSON.stringify(answer.result.structuredContent)), wireBytes });
  }
  const { answer, wireBytes } = await request(port, token, 'tools/list', {});
  const forTheModel = answer.result.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  rows.push({ task: `tools/list (${forTheModel.length} tools, full access)`, text: measureText(JSON.stringify(forTheModel)), wireBytes });
  return rows;
}
