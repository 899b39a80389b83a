// (c) The official MCP server SDK 2.x: createMcpHandler serving the same tool, behind node:http. The
// SDK checks no bearer token of its own; this adapter accepts any, which only flatters the SDK.
import { createServer } from 'node:http';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';

const connections = { connections: [{ id: 'demo', name: 'Demo bookshop', engine: 'sqlite' }] };
const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: 'bench-sdk', version: '1.0.0' });
    server.registerTool(
      'list_connections',
      {
        description: 'Lists the saved connections.',
        inputSchema: fromJsonSchema({ type: 'object', properties: {}, additionalProperties: false }),
      },
      async () => ({ content: [{ type: 'text', text: JSON.stringify(connections) }], structuredContent: connections }),
    );
    return server;
  },
  { legacy: 'reject', responseMode: 'json' },
);

const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const request = new Request(`http://127.0.0.1${req.url}`, {
    method: req.method,
    headers: Object.entries(req.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
    body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
  });
  const response = await handler.fetch(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
server.listen(0, '127.0.0.1', () => process.send?.({ ready: server.address().port }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
