// What a model reads, in bytes and tokens, for a fixed set of tasks on the demo database: the tool
// result's text (content[0].text) against the same result as JSON (structuredContent), and for
// tools/list what a client hands the model of each tool: its name, description and input schema (the
// output schema and annotations are for the client). Tokens are estimated as ceil(bytes / 4) and counted with
// gpt-tokenizer's o200k_base encoding (GPT-4o's; other models' tokenizers differ by a few per cent).
// `unfenced` is the same text without its data fence (`<data-…>` … `</data-…>`, issue 30): the text as
// it was before the fence, so that the fence's cost shows per task.
//
// Run alone (`npm run build && node bench/tokens.mjs [OTHER_TREE]`), it prints the figures of this tree's
// build and, given another tree built already (a checkout of the code before), that tree's as "before".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { callTool, request } from './lib/mcp.mjs';
import { startServer } from './lib/servers.mjs';
import { sluice } from './lib/sluiceCli.mjs';

const TASKS = [
  ['list_connections', {}],
  ['describe_table', { connection_id: 'demo', table: 'books' }],
  ['execute_query, 50 rows', { connection_id: 'demo', sql: 'SELECT * FROM orders ORDER BY id LIMIT 50' }],
  ['execute_query, 500 rows', { connection_id: 'demo', sql: 'SELECT * FROM orders ORDER BY id LIMIT 500' }],
  ['execute_query, 500 rows, max_tokens 20000', { connection_id: 'demo', sql: 'SELECT * FROM orders ORDER BY id LIMIT 500', max_tokens: 20_000 }],
];

/** A text less its data fence: the lines `<data-…>` and `</data-…>` that open and close it. */
const FENCE_LINE = /^<\/?data-[0-9a-f]{16}>(\n|$)/gm;
const unfencedText = (text) => text.replace(FENCE_LINE, '');

const measureText = (text) => ({ bytes: Buffer.byteLength(text), estimated: Math.ceil(Buffer.byteLength(text) / 4), counted: countTokens(text) });

/** One row per task: `text` is what the model reads, `json` the same result as JSON (none for tools/list). */
export async function measureTokens(port, token) {
  const rows = [];
  for (const [task, args] of TASKS) {
    // A tree from before issue 30 refuses max_tokens: that task is left out of its figures.
    const reply = await callTool(port, token, task.split(',')[0], args).catch((error) => {
      if (args.max_tokens === undefined) throw error;
    });
    if (!reply) continue;
    const { answer, wireBytes } = reply;
    const text = answer.result.content[0].text;
    rows.push({ task, text: measureText(text), unfenced: measureText(unfencedText(text)), rows: answer.result.structuredContent.row_count, json: measureText(JSON.stringify(answer.result.structuredContent)), wireBytes });
  }
  const { answer, wireBytes } = await request(port, token, 'tools/list', {});
  const forTheModel = answer.result.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  rows.push({ task: `tools/list (${forTheModel.length} tools, full access)`, text: measureText(JSON.stringify(forTheModel)), wireBytes });
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-bench-tokens-'));
  const token = (await sluice(dataDir, ['tokens', 'create', '--name', 'bench tokens', '--level', 'fullAccess'])).trim();
  const trees = [['this tree', 'sluice.mjs']];
  if (process.argv[2]) trees.push([`before (${process.argv[2]})`, resolve(process.argv[2], 'bench/servers/sluice.mjs')]);
  try {
    for (const [tree, script] of trees) {
      const server = await startServer(script, [dataDir]);
      try {
        for (const t of await measureTokens(server.port, token)) {
          const fence = t.unfenced ? `, without the fence ${t.unfenced.counted}` : '';
          console.log(`${tree} | ${t.task} | ${t.rows ?? '—'} rows | ${t.text.bytes} B | ${t.text.counted} tokens${fence}`);
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
