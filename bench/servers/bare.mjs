// (a) The platform's ceiling: bare node:http reading the body and answering a fixed JSON-RPC result.
// With BENCH_WORK_US set, each request first burns that many microseconds of CPU: the calibration that
// shows how fast the ceiling falls as a request costs more.
import { createServer } from 'node:http';

const workMs = Number(process.env.BENCH_WORK_US ?? 0) / 1000;
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

function burn() {
  const until = performance.now() + workMs;
  while (performance.now() < until);
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (workMs > 0) burn();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ ready: server.address().port }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
