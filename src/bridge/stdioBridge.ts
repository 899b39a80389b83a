import { randomBytes } from 'node:crypto';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SUBSCRIPTION_ID,
} from '../protocol/era.js';
import { ErrorCode } from '../core/errors.js';
import { isPlainObject, type Params, type RequestId } from '../protocol/jsonrpc.js';
import { finishLegacyResult } from '../protocol/legacy.js';
import { LEGACY_VERSIONS, MODERN_VERSION } from '../protocol/versions.js';
import { type Discovery, type JsonRpcMessage, type Upstream, UpstreamUnavailable } from './upstream.js';
import { APPLICATION } from '../core/contract.js';

/** What the stdio client said in `initialize`: carried in `_meta` on every request forwarded for it. */
type LegacyClient = { version: string; capabilities: Record<string, unknown>; clientInfo: Record<string, string> };

type Running = {
  clientId: RequestId;
  controller: AbortController;
  upstreamId: string;
  cancelled: boolean;
  /** The input request now put to the client, if any. */
  askId?: string;
};

type Asked = { resolve(answer: JsonRpcMessage): void; reject(error: Error): void };

const errorMessage = (id: RequestId | null, code: number, message: string): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

const isRequestId = (id: unknown): id is RequestId => typeof id === 'string' || typeof id === 'number';

/**
 * One stdio client, spoken to in its own era, forwarded to Sluice as modern HTTP requests. A legacy
 * client (`initialize`) is answered from the discover result, and its results lose the modern fields; a
 * modern client's requests already carry their `_meta` and travel unchanged. Ids are rewritten on the
 * way up so that two bridges sharing the bridge token never cancel each other's requests.
 */
export class StdioBridge {
  readonly #upstream: Upstream;
  readonly #write: (message: JsonRpcMessage) => void;
  readonly #idPrefix = `bridge-${randomBytes(4).toString('hex')}`;
  #legacy: LegacyClient | undefined;
  #seq = 0;
  readonly #running = new Map<string, Running>();
  readonly #asked = new Map<string, Asked>();
  #closed = false;

  constructor(upstream: Upstream, write: (message: JsonRpcMessage) => void) {
    this.#upstream = upstream;
    this.#write = write;
  }

  /** One message read from the client. Malformed ones get the JSON-RPC error the contract names. */
  receive(message: unknown): void {
    if (!isPlainObject(message) || message.jsonrpc !== '2.0') {
      this.#write(errorMessage(null, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message'));
      return;
    }
    const { id, method } = message;
    if (typeof method !== 'string') {
      if (isRequestId(id) && ('result' in message || 'error' in message)) this.#answered(String(id), message);
      else this.#write(errorMessage(isRequestId(id) ? id : null, ErrorCode.InvalidRequest, 'Invalid Request: no method'));
      return;
    }
    const params = isPlainObject(message.params) ? message.params : {};
    if (id === undefined) {
      this.#notification(method, params);
      return;
    }
    if (!isRequestId(id)) {
      this.#write(errorMessage(null, ErrorCode.InvalidRequest, 'Invalid Request: id must be a string or a number'));
      return;
    }
    void this.#request(id, method, params);
  }

  /** The client went away: every forwarded request is aborted, which Sluice sees as a dropped client. */
  close(): void {
    this.#closed = true;
    for (const running of this.#running.values()) running.controller.abort();
    for (const asked of this.#asked.values()) asked.reject(new Error('the client went away'));
    this.#running.clear();
    this.#asked.clear();
  }

  #notification(method: string, params: Params): void {
    if (method !== 'notifications/cancelled') return;
    const running = this.#running.get(JSON.stringify(params.requestId));
    if (!running) return;
    running.cancelled = true;
    if (running.askId) this.#asked.get(running.askId)?.reject(new Error('cancelled'));
    const reason = typeof params.reason === 'string' ? { reason: params.reason } : {};
    void this.#upstream
      .send({
        jsonrpc: '2.0',
        method,
        params: { requestId: running.upstreamId, ...reason, _meta: this.#metaFor(params) ?? {} },
      })
      .catch(() => running.controller.abort());
  }

  async #request(id: RequestId, method: string, params: Params): Promise<void> {
    if (method === 'initialize') return this.#initialize(id, params);
    if (method === 'ping' || (method === 'logging/setLevel' && this.#legacy)) {
      this.#write({ jsonrpc: '2.0', id, result: {} });
      return;
    }
    const meta = this.#metaFor(params);
    if (!meta) {
      this.#write(errorMessage(id, ErrorCode.InvalidRequest, 'Send initialize first, or a 2026-07-28 request with _meta'));
      return;
    }
    const legacy = meta !== params._meta;
    const key = JSON.stringify(id);
    const running: Running = { clientId: id, controller: new AbortController(), upstreamId: '', cancelled: false };
    this.#running.set(key, running);
    try {
      let response = await this.#forward(running, method, { ...params, _meta: meta });
      if (legacy) {
        response = await this.#relayInputs(running, method, { ...params, _meta: meta }, response);
        if (isPlainObject(response.result)) response = { ...response, result: finishLegacyResult(response.result) };
      }
      if (!running.cancelled) this.#write({ ...response, jsonrpc: '2.0', id });
    } catch (error) {
      if (running.cancelled || running.controller.signal.aborted || this.#closed) return;
      const text = error instanceof UpstreamUnavailable ? error.message : 'Sluice stopped before it answered';
      this.#write(errorMessage(id, ErrorCode.ServerUnavailable, text));
    } finally {
      this.#running.delete(key);
    }
  }

  /** The `_meta` to send upstream: the client's own when it speaks 2026-07-28, else built from its session. */
  #metaFor(params: Params): Record<string, unknown> | undefined {
    const meta = isPlainObject(params._meta) ? params._meta : {};
    if (META_PROTOCOL_VERSION in meta) return meta;
    if (!this.#legacy) return undefined;
    return {
      ...meta,
      [META_PROTOCOL_VERSION]: MODERN_VERSION,
      [META_CLIENT_CAPABILITIES]: this.#legacy.capabilities,
      [META_CLIENT_INFO]: this.#legacy.clientInfo,
    };
  }

  async #forward(running: Running, method: string, params: Params): Promise<JsonRpcMessage> {
    const upstreamId = `${this.#idPrefix}-${++this.#seq}`;
    running.upstreamId = upstreamId;
    const response = await this.#upstream.send(
      { jsonrpc: '2.0', id: upstreamId, method, params },
      {
        signal: running.controller.signal,
        onNotification: (notification) => {
          if (!running.cancelled) this.#write(withClientSubscriptionId(notification, upstreamId, running.clientId));
        },
      },
    );
    if (!response) throw new UpstreamUnavailable('Sluice sent no response');
    return response;
  }

  /**
   * A legacy client cannot answer `input_required` itself: each input request becomes a request to the
   * client, and the call is repeated with its answers (`requestState`, `inputResponses`) until complete.
   */
  async #relayInputs(running: Running, method: string, params: Params, first: JsonRpcMessage): Promise<JsonRpcMessage> {
    let response = first;
    for (let round = 0; round < APPLICATION.maxBridgeInputRounds; round++) {
      const result = response.result;
      if (!isPlainObject(result) || result.resultType !== 'input_required') return response;
      const requests = isPlainObject(result.inputRequests) ? result.inputRequests : {};
      const inputResponses: Record<string, unknown> = {};
      for (const [key, input] of Object.entries(requests)) {
        inputResponses[key] = await this.#askClient(running, input);
      }
      if (running.cancelled) return response;
      response = await this.#forward(running, method, { ...params, requestState: result.requestState, inputResponses });
    }
    return errorMessage(null, ErrorCode.InternalError, `Sluice asked for input more than ${APPLICATION.maxBridgeInputRounds} times`);
  }

  /** One input request, put to the client; a client that cannot or will not answer has cancelled. */
  async #askClient(running: Running, input: unknown): Promise<unknown> {
    const { method, params } = isPlainObject(input) ? input : {};
    const elicitation = this.#legacy?.capabilities.elicitation;
    if (method !== 'elicitation/create' || !isPlainObject(params) || elicitation === undefined) return { action: 'cancel' };
    // 2025-06-18 predates elicitation modes; its clients know only the form this request already is.
    const { mode: _mode, ...formParams } = params;
    const sent = this.#legacy?.version === '2025-06-18' ? formParams : params;
    const id = `${this.#idPrefix}-ask-${++this.#seq}`;
    running.askId = id;
    const answer = await new Promise<JsonRpcMessage>((resolve, reject) => {
      this.#asked.set(id, {
        resolve,
        reject: (error) => {
          this.#asked.delete(id);
          reject(error);
        },
      });
      this.#write({ jsonrpc: '2.0', id, method, params: sent });
    }).finally(() => delete running.askId);
    const result = answer.result;
    return isPlainObject(result) && typeof result.action === 'string' ? result : { action: 'cancel' };
  }

  #answered(id: string, message: JsonRpcMessage): void {
    const asked = this.#asked.get(id);
    if (!asked) return;
    this.#asked.delete(id);
    asked.resolve(message);
  }

  #initialize(id: RequestId, params: Params): void {
    const discovery = this.#upstream.discovery as Discovery;
    const legacyVersions = discovery.supportedVersions.filter((version) => (LEGACY_VERSIONS as readonly string[]).includes(version));
    const requested = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
    const version = legacyVersions.includes(requested) ? requested : legacyVersions[0];
    if (version === undefined) {
      this.#write(errorMessage(id, ErrorCode.UnsupportedProtocolVersion, 'This Sluice supports no initialize-era version'));
      return;
    }
    const info = isPlainObject(params.clientInfo) ? params.clientInfo : {};
    this.#legacy = {
      version,
      capabilities: isPlainObject(params.capabilities) ? params.capabilities : {},
      clientInfo: Object.fromEntries(
        ['name', 'title', 'version'].flatMap((field) => (typeof info[field] === 'string' ? [[field, info[field]]] : [])),
      ),
    };
    this.#write({
      jsonrpc: '2.0',
      id,
      result: {
        protocolVersion: version,
        capabilities: legacyCapabilities(discovery.capabilities),
        serverInfo: discovery.serverInfo,
        instructions: discovery.instructions,
      },
    });
  }
}

/**
 * The discovered capabilities as a stdio client of the initialize era may use them: no subscriptions and
 * no list-change notifications (the bridge holds no stream for them), logging answered by the bridge.
 */
function legacyCapabilities(discovered: Record<string, unknown>): Record<string, unknown> {
  const { extensions: _extensions, resources, ...rest } = discovered;
  return {
    ...rest,
    ...(isPlainObject(resources) ? { resources: { ...resources, subscribe: false, listChanged: false } } : {}),
    logging: {},
  };
}

/** Subscription frames name the request that opened them: the client's id, not the bridge's. */
function withClientSubscriptionId(notification: JsonRpcMessage, upstreamId: string, clientId: RequestId): JsonRpcMessage {
  const params = notification.params;
  if (!isPlainObject(params) || !isPlainObject(params._meta) || params._meta[META_SUBSCRIPTION_ID] !== upstreamId) {
    return notification;
  }
  return { ...notification, params: { ...params, _meta: { ...params._meta, [META_SUBSCRIPTION_ID]: clientId } } };
}
