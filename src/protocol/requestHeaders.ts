import { encodeHeaderValue } from './headerValue.js';
import type { Params } from './jsonrpc.js';

/** What a modern request must carry in its headers (contract, "Required headers"), mirrored from its body. */
export function requiredHeaders(method: string, params: Params, protocolVersion: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': protocolVersion,
    'mcp-method': method,
  };
  const name = method === 'resources/read' ? params.uri : method === 'tools/call' || method === 'prompts/get' ? params.name : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}
