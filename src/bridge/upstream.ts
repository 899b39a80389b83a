import { readHandshake, handshakePath } from '../core/handshake.js';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, META_SERVER_INFO } from '../protocol/era.js';
import { ErrorCode } from '../core/errors.js';
import { isPlainObject, type Params, type RequestId } from '../protocol/jsonrpc.js';
import { requiredHeaders } from '../protocol/requestHeaders.js';
import { SERVER_VERSION } from '../protocol/serverInfo.js';
import { MODERN_VERSION } from '../protocol/versions.js';
import { sseData } from './sseFrames.js';

export type JsonRpcMessage = Record<string, unknown>;

export type Discovery = {
  supportedVersions: string[];
  capabilities: Record<string, unknown>;
  instructions: string;
  serverInfo: Record<string, unknown>;
};

/** Why the bridge cannot reach a usable Sluice: printed once at start, an MCP error afterwards. */
export class UpstreamUnavailable extends Error {}

type Endpoint = { port: number; token: string; discovery: Discovery };

type Answer = { status: number; message: JsonRpcMessage | undefined };

type SendOptions = {
  /** Notifications that arrive on the request's event stream (progress, subscription frames). */
  onNotification?: (message: JsonRpcMessage) => void;
  signal?: AbortSignal;
};

const BRIDGE_META = {
  [META_PROTOCOL_VERSION]: MODERN_VERSION,
  [META_CLIENT_CAPABILITIES]: {},
  [META_CLIENT_INFO]: { name: 'sluice-bridge', version: SERVER_VERSION },
};

/** Nothing listens on the port: the request reached no handler, so sending it elsewhere is safe. */
const refused = (error: unknown) =>
  error instanceof TypeError && (error.cause as { code?: string } | undefined)?.code === 'ECONNREFUSED';

/**
 * The running application as the bridge sees it: found through the handshake file, checked with
 * `server/discover`, and found again (new port, rotated bridge token) when the application restarts.
 */
export class Upstream {
  readonly #dataDir: string;
  /** A paired token to use instead of the handshake's bridge token (`SLUICE_TOKEN`). */
  readonly #token: string | undefined;
  #endpoint: Endpoint | undefined;
  #seq = 0;

  constructor(dataDir: string, token?: string) {
    this.#dataDir = dataDir;
    this.#token = token;
  }

  get discovery(): Discovery | undefined {
    return this.#endpoint?.discovery;
  }

  /** Reads the handshake file and checks that the application there speaks `2026-07-28`. */
  async connect(): Promise<Discovery> {
    const handshake = readHandshake(this.#dataDir);
    if (!handshake) {
      throw new UpstreamUnavailable(`Sluice is not running (no valid ${handshakePath(this.#dataDir)}); start it with "sluice serve"`);
    }
    const endpoint = { port: handshake.port, token: this.#token ?? handshake.bridgeToken };
    let answer: Answer;
    try {
      answer = await this.#post(endpoint, { jsonrpc: '2.0', id: `bridge-discover-${++this.#seq}`, method: 'server/discover', params: { _meta: BRIDGE_META } }, {});
    } catch (error) {
      if (refused(error)) throw new UpstreamUnavailable(`Sluice is not running (nothing answers on port ${handshake.port})`);
      throw error;
    }
    const discovery = readDiscovery(answer.message, handshake.port);
    if (!discovery.supportedVersions.includes(MODERN_VERSION)) {
      throw new UpstreamUnavailable(
        `Sluice on port ${handshake.port} does not support ${MODERN_VERSION} (it supports ${discovery.supportedVersions.join(', ') || 'nothing'}); update Sluice`,
      );
    }
    this.#endpoint = { ...endpoint, discovery };
    return discovery;
  }

  /**
   * Sends one modern message; resolves with the response, or undefined for a notification. A refused
   * connection or a refused bridge token means the application restarted: the handshake is read again
   * and the message sent once more, which is safe because it never reached a handler.
   */
  async send(message: JsonRpcMessage, options: SendOptions = {}): Promise<JsonRpcMessage | undefined> {
    const first = this.#endpoint ?? (await this.#reconnect());
    try {
      const answer = await this.#post(first, message, options);
      if (!tokenRefused(answer) || this.#token !== undefined) return answer.message;
    } catch (error) {
      if (!refused(error)) throw error;
    }
    const next = await this.#reconnect();
    if (next.port === first.port && next.token === first.token) {
      throw new UpstreamUnavailable('Sluice is not answering; is it still starting or stopping?');
    }
    return (await this.#post(next, message, options)).message;
  }

  async #reconnect(): Promise<Endpoint> {
    this.#endpoint = undefined;
    await this.connect();
    return this.#endpoint as unknown as Endpoint;
  }

  async #post(endpoint: Pick<Endpoint, 'port' | 'token'>, message: JsonRpcMessage, options: SendOptions): Promise<Answer> {
    const params = isPlainObject(message.params) ? message.params : {};
    const response = await fetch(`http://127.0.0.1:${endpoint.port}/mcp`, {
      method: 'POST',
      headers: {
        ...requiredHeaders(String(message.method), params as Params, MODERN_VERSION),
        authorization: `Bearer ${endpoint.token}`,
      },
      body: JSON.stringify(message),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (response.headers.get('content-type')?.startsWith('text/event-stream') && response.body) {
      return { status: response.status, message: await readStream(response.body, message.id as RequestId, options) };
    }
    const text = await response.text();
    if (text === '' && response.status === 202) return { status: 202, message: undefined };
    try {
      const parsed: unknown = JSON.parse(text);
      if (isPlainObject(parsed) && ('result' in parsed || 'error' in parsed)) return { status: response.status, message: parsed };
    } catch {
      // not JSON-RPC: reported below
    }
    const error = { code: ErrorCode.InternalError, message: `Sluice answered HTTP ${response.status} without a JSON-RPC body` };
    return { status: response.status, message: { jsonrpc: '2.0', id: message.id ?? null, error } };
  }
}

async function readStream(body: ReadableStream<Uint8Array>, id: RequestId, options: SendOptions): Promise<JsonRpcMessage> {
  for await (const data of sseData(body)) {
    const frame: unknown = JSON.parse(data);
    if (!isPlainObject(frame)) continue;
    if ('id' in frame && frame.id === id && ('result' in frame || 'error' in frame)) return frame;
    if (typeof frame.method === 'string') options.onNotification?.(frame);
  }
  throw new UpstreamUnavailable('Sluice closed the stream before answering');
}

function tokenRefused({ status, message }: Answer): boolean {
  return status === 401 && (message?.error as { code?: number } | undefined)?.code === ErrorCode.Unauthenticated;
}

function readDiscovery(response: JsonRpcMessage | undefined, port: number): Discovery {
  const result = response?.result;
  if (!isPlainObject(result) || !Array.isArray(result.supportedVersions)) {
    const error = response?.error as { message?: string } | undefined;
    throw new UpstreamUnavailable(`Sluice on port ${port} refused server/discover: ${error?.message ?? 'no result'}`);
  }
  const meta = isPlainObject(result._meta) ? result._meta : {};
  return {
    supportedVersions: result.supportedVersions.filter((version): version is string => typeof version === 'string'),
    capabilities: isPlainObject(result.capabilities) ? result.capabilities : {},
    instructions: typeof result.instructions === 'string' ? result.instructions : '',
    serverInfo: isPlainObject(meta[META_SERVER_INFO]) ? meta[META_SERVER_INFO] : {},
  };
}
