import type { IncomingMessage, ServerResponse } from 'node:http';
import { requireScopes } from '../../auth/access.js';
import type { ActivityEntry } from '../../activity/activityLog.js';
import type { CallerLimits } from '../../auth/callerLimits.js';
import type { Principal } from '../../auth/principal.js';
import type { MethodSpec } from '../../capabilities/methods.js';
import type { ConnectionCatalog } from '../../db/connections/connectionCatalog.js';
import type { QueryHistory } from '../../db/results/queryHistory.js';
import { assertModernVersion, readEra, readLegacyMeta, type RequestMeta, type TraceContext } from '../../protocol/era.js';
import { finishLegacyResult } from '../../protocol/legacy.js';
import { ErrorCode, ProtocolError } from '../../core/errors.js';
import { checkHeaderMirror, isJsonContentType } from '../../protocol/headerMirror.js';
import { JsonShapeScanner } from '../../protocol/jsonShape.js';
import { parseJson, parseMessage, type RequestId, requestIdOf } from '../../protocol/jsonrpc.js';
import { errorResponse, finishModernResult, resultResponse } from '../../protocol/wire.js';
import { readBody } from '../body.js';
import { handleListen } from '../listenStream.js';
import { ProgressStream } from '../progressStream.js';
import { REQUESTS, TRANSPORT } from '../../core/contract.js';
import type { ConsentDialogs } from '../../runtime/consentDialogs.js';
import type { InflightRequests } from '../../runtime/inflightRequests.js';
import type { LegacySessions } from '../../runtime/legacySessions.js';
import type { Subscriptions } from '../../runtime/subscriptions.js';
import type { AppClock } from '../../core/clock.js';
import type { RequestStateSigner } from '../../auth/requestState.js';
import { sendEmpty, sendJson } from '../respond.js';
import { callContext } from './callContext.js';
import { initialize, legacySessionHeader } from './legacySession.js';
import { refuseUpload } from './refuseUpload.js';

/** What a trace hook hears at the end of each request; never a token, a statement or a result. */
export type RequestTrace = {
  id: RequestId | null;
  method: string | undefined;
  principalId: string | undefined;
  clientName: string | undefined;
  trace: TraceContext;
  status: number;
  errorCode: number | undefined;
  durationMs: number;
};

export type McpEndpointDeps = {
  methods: Record<string, MethodSpec>;
  catalog: ConnectionCatalog;
  history: QueryHistory;
  authenticate(req: IncomingMessage): Promise<Principal>;
  limits: CallerLimits;
  /** False while the user has switched the MCP server off in the console (`-33006`). */
  enabled(): boolean;
  /** Runs each request as an actor (cancellation, revocation, deadline, disconnect, stop). */
  requests: InflightRequests;
  onRequestEnd?: (trace: RequestTrace) => void;
  audit(entry: ActivityEntry): void;
  signer: RequestStateSigner;
  dialogs: ConsentDialogs;
  subscriptions: Subscriptions;
  sessions: LegacySessions;
  clock: AppClock;
};

const methodNotFound = (method: string) =>
  new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${method}`);

/** `POST /mcp`: principal → body → envelope → era → header mirror → method table → handler → response. */
export async function handleMcpPost(
  req: IncomingMessage,
  res: ServerResponse,
  deps: McpEndpointDeps,
  headers: Record<string, string>,
): Promise<void> {
  const started = performance.now();
  const trace: RequestTrace = {
    id: null,
    method: undefined,
    principalId: undefined,
    clientName: undefined,
    trace: {},
    status: 200,
    errorCode: undefined,
    durationMs: 0,
  };
  let stream: ProgressStream | undefined;
  let release = () => {};
  let principal: Principal | undefined;
  let bodyRead = false;
  let dispatched = false;
  let closed = false;
  const onClose = () => {
    closed = true;
  };
  res.once('close', onClose);

  try {
    if (!deps.enabled()) throw new ProtocolError(ErrorCode.ServerDisabled, 'The MCP server is switched off in Sluice');
    // Authentication needs only the headers, so it comes first: no header is decoded or compared with
    // the body before the token verifies. A refused request's body is read only up to 64 KB, only so
    // that the refusal can carry the request's id.
    const verdict = await deps.authenticate(req).then(
      (caller) => ({ caller }),
      (error: unknown) => ({ error }),
    );
    let json: unknown;
    try {
      const shape = new JsonShapeScanner();
      const limit = 'error' in verdict ? TRANSPORT.refusedBodyBytes : TRANSPORT.maxBodyBytes;
      const text = await readBody(req, limit, (chunk) => shape.push(chunk));
      bodyRead = true;
      json = parseJson(text);
    } catch (error) {
      throw 'error' in verdict ? verdict.error : error;
    }
    trace.id = requestIdOf(json);
    if ('error' in verdict) throw verdict.error;
    principal = verdict.caller;
    trace.principalId = principal.id;
    const message = parseMessage(json);
    trace.method = message.method;
    if (message.kind === 'notification') {
      const { requestId } = message.params;
      if (message.method === 'notifications/cancelled' && (typeof requestId === 'string' || typeof requestId === 'number')) {
        deps.requests.cancel(principal.id, requestId);
      }
      trace.status = 202;
      sendEmpty(res, 202, headers);
      return;
    }
    const era = readEra(message.params);
    if (era.era === 'modern') {
      checkHeaderMirror(req.headersDistinct, message, era.protocolVersion);
      assertModernVersion(era.protocolVersion);
      trace.trace = era.trace;
      trace.clientName = era.clientInfo?.name;
    } else if (!isJsonContentType(req.headers['content-type'])) {
      throw new ProtocolError(ErrorCode.InvalidRequest, 'Invalid request: Content-Type must be application/json');
    }
    // A subscription is a stream, not a request: no rate limit, no deadline, no method-table handler.
    if (message.method === 'subscriptions/listen' && era.era === 'modern') {
      await handleListen(res, headers, deps.subscriptions, principal, message, () => !closed);
      return;
    }
    release = await deps.limits.admit(principal.id);
    let meta: RequestMeta;
    let finish: (result: Record<string, unknown>) => Record<string, unknown>;
    if (era.era === 'modern') {
      meta = era;
      finish = (result) => finishModernResult(message.method, message.params, result);
    } else {
      if (message.method === 'initialize') {
        initialize(res, headers, deps.sessions, principal, message);
        return;
      }
      const session = deps.sessions.use(legacySessionHeader(req), principal, req.headers['mcp-protocol-version']);
      meta = readLegacyMeta(message.params, session.clientInfo);
      finish = finishLegacyResult;
      trace.trace = meta.trace;
      trace.clientName = meta.clientInfo?.name;
    }
    const spec = deps.methods[message.method];
    if (!spec || (spec.era !== 'both' && spec.era !== era.era)) throw methodNotFound(message.method);
    requireScopes(principal, spec.scopes);

    if (meta.progressToken !== undefined) stream = new ProgressStream(res, meta.progressToken, headers);
    dispatched = true;
    const caller = principal;
    const requestMeta = meta;
    const outcome = await deps.requests.run({
      principalId: caller.id,
      requestId: message.id,
      method: message.method,
      deadlineMs: REQUESTS.handlerDeadlineMs,
      connected: () => !closed,
      work: (signal) => spec.handle(message.params, callContext(deps, caller, requestMeta, message, signal, stream)),
    });
    if (!outcome.ok) throw outcome.error;
    const body = resultResponse(message.id, finish(outcome.result));
    if (stream) stream.finish(200, body);
    else sendJson(res, 200, body, headers);
  } catch (error) {
    if (res.destroyed) return;
    const reply = errorResponse(trace.id, error);
    trace.status = reply.status;
    trace.errorCode = 'error' in reply.body ? reply.body.error.code : undefined;
    // Authentication logs its own refusals, and a handler its own; these are the ones in between.
    const refused = trace.errorCode === ErrorCode.Forbidden || trace.errorCode === ErrorCode.RateLimited;
    if (principal && !dispatched && refused) {
      deps.audit({
        category: 'access',
        action: trace.method ?? 'request',
        outcome: trace.errorCode === ErrorCode.Forbidden ? 'denied' : 'rateLimited',
        ...(principal.kind === 'token' ? { tokenId: principal.id, tokenName: principal.name } : {}),
        ...(trace.clientName ? { clientName: trace.clientName } : {}),
        trace: trace.trace,
      });
    }
    if (stream) stream.finish(reply.status, reply.body, reply.headers);
    else if (!bodyRead) refuseUpload(req, res, deps.clock, reply.status, reply.body, { ...headers, ...reply.headers });
    else sendJson(res, reply.status, reply.body, { ...headers, ...reply.headers });
  } finally {
    release();
    res.off('close', onClose);
    trace.durationMs = performance.now() - started;
    deps.onRequestEnd?.(trace);
  }
}

