/**
 * What an official MCP SDK client puts on the wire, for the external interoperability suites: a `fetch`
 * for its Streamable HTTP transport that records every exchange, leaving the response body to the SDK.
 */

/** One HTTP exchange as the SDK's transport made it; `text` is the response body, read on a clone. */
export type Exchange = {
  method: string;
  headers: Record<string, string>;
  body: any;
  status: number;
  responseHeaders: Headers;
  contentType: string;
  text: Promise<string>;
};

export type WireRecorder = {
  /** Every exchange so far, in order. */
  wire: Exchange[];
  /** A `fetch` that records what the SDK sends and what Sluice answers (the body is left for the SDK). */
  recordingFetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  /** The exchanges since `from` (an index into `wire`) whose POSTed JSON-RPC message has method `method`. */
  sent: (method: string, from?: number) => Exchange[];
};

export function wireRecorder(): WireRecorder {
  const wire: Exchange[] = [];
  return {
    wire,
    async recordingFetch(url, init) {
      const response = await fetch(url, init);
      wire.push({
        method: init?.method ?? 'GET',
        headers: Object.fromEntries(new Headers(init?.headers).entries()),
        body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
        status: response.status,
        responseHeaders: response.headers,
        contentType: response.headers.get('content-type') ?? '',
        text: response.clone().text(),
      });
      return response;
    },
    sent: (method, from = 0) => wire.slice(from).filter((exchange) => exchange.body?.method === method),
  };
}

/** Options for either SDK's `StreamableHTTPClientTransport`: the token as a bearer on every request, through `fetch`. */
export function bearerTransportOptions(
  token: string,
  fetch?: WireRecorder['recordingFetch'],
): { requestInit: RequestInit; fetch?: WireRecorder['recordingFetch'] } {
  return { requestInit: { headers: { Authorization: `Bearer ${token}` } }, ...(fetch ? { fetch } : {}) };
}
