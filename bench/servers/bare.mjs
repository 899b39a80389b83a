// (a) The platform's ceiling: bare node:http reading the body and answering a fixed JSON-RPC result.
import { createServer } from 'node:http';

const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  result: {
    content: [{ type: 'text', text: '{"connections":[{"id":"demo"}]}' }],
    structuredContent: { connections: [{ id: 'demo' }] },
    isError: false,
    resultType: 'complete',
  },
});

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ ready: server.address().port }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
