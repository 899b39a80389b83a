// The MCP requests the benchmark sends: the modern era's envelope and headers, a bearer token.
import { performance } from 'node:perf_hooks';

const MODERN = '2026-07-28';
export const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

export const rpc = (id, method, params) => JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } });

export const headersFor = (method, name, token) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});

/**
 * One request over HTTP: the JSON-RPC answer, the response body's size in bytes and the time until the
 * whole body arrived. A JSON-RPC error or a tool error is thrown, so no figure is taken from a failure.
 */
export async function request(port, token, method, params, name) {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: headersFor(method, name, token), body: rpc(1, method, params) });
  const body = Buffer.from(await response.arrayBuffer());
  const ms = performance.now() - started;
  const answer = JSON.parse(body.toString('utf8'));
  if (answer.error !== undefined || answer.result?.isError) {
    throw new Error(`${method} ${name ?? ''}: ${body.toString('utf8').slice(0, 300)}`);
  }
  return { answer, wireBytes: body.length, ms };
}

export const callTool = (port, token, name, args) => request(port, token, 'tools/call', { name, arguments: args }, name);
