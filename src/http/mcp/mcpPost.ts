import type { IncomingMessage, ServerResponse } from 'node:http';
import { requireScopes } from '../../auth/access.js';
import type { ActivityEntry } from '../../activity/activityLog.js';
import type { CallerLimits } from '../../auth/callerLimits.js';
import type { Principal } from '../../auth/principal.js';
import type { MethodSpec } from '../../capabilities/methods.js';
import type { UndoKeeping } from '../../capabilities/types.js';
import type { ConnectionCatalog } from '../../db/connections/connectionCatalog.js';
import type { QueryHistory } from '../../db/results/queryHistory.js';
import { assertModernVersion, readEra, readLegacyMeta, type RequestEra, type RequestMeta, type TraceContext } from '../../protocol/era.js';
import { finishLegacyResult } from '../../protocol/legacy.js';
import { ErrorCode, ProtocolError } from '../../core/errors.js';
import { checkHeaderMirror, isJsonContentType } from '../../protocol/headerMirror.js';
import { JsonShapeScanner } from '../../protocol/jsonShape.js';
import { type IncomingMessage as JsonRpcMessage, parseJson, parseMessage, type RequestId, requestIdOf } from '../../protocol/jsonrpc.js';
import { errorResponse, finishModernResult, resultResponse } from '../../protocol/wire.js';
import { readBody } from '../body.js';
import { handleListen } from '../listenStream.js';
import { ProgressStream } from '../progressStream.js';
import { sendLargeJson } from '../piecewiseJson.js';
import { REQUESTS, TRANSPORT } from '../../core/contract.js';
import type { ConsentDialogs } from '../../runtime/consentDialogs.js';
import type { InflightRequests } from '../../runtime/inflightRequests.js';
import type { LegacySessions } from '../../runtime/legacySessions.js';
import type { HeldReads } from '../../runtime/heldReads.js';
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
  /** Reads held open behind `next_cursor`s. */
  heldReads: HeldReads;
  sessions: LegacySessions;
  clock: AppClock;
  /** Whether approved writes keep their rows (undo), and where. */
  undo: UndoKeeping;
};

const methodNotFound = (method: string) =>
  new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${method}`);

/** What one POST has come to so far: the error path and the request's trace read it. */
type PostState = {
  started: number;
  trace: RequestTrace;
  /** The progress stream, once the request asked for one: every answer then goes through it. */
  stream: ProgressStream | undefined;
  /** Gives back the caller's rate-limit slot, once one was taken. */
  release: () => void;
  principal: Principal | undefined;
  /** The body was read: a refusal before it drains the upload first (refuseUpload). */
  bodyRead: boolean;
  /** A handler runs: it logs its own refusals. */
  dispatched: boolean;
  /** The client closed the connection. */
  closed: boolean;
};

type RequestMessage = Extract<JsonRpcMessage, { kind: 'request' }>;
/** One POST as its steps see it. */
type Post = { req: IncomingMessage; res: ServerResponse; deps: McpEndpointDeps; headers: Record<string, string>; state: PostState };
/** A request past authentication and the era checks: who asks, what, in which era. */
type Call = { principal: Principal; message: RequestMessage; era: RequestEra };
/** How a result is framed for the request's era, and the `_meta` its handler reads. */
type Framing = { meta: RequestMeta; finish: (result: Record<string, unknown>) => Record<string, unknown> };

/** `POST /mcp`: principal → body → envelope → era → header mirror → method table → handler → response. */
export async function handleMcpPost(
  req: IncomingMessage,
  res: ServerResponse,
  deps: McpEndpointDeps,
  headers: Record<string, string>,
): Promise<void> {
  const state: PostState = {
    started: performance.now(),
    trace: { id: null, method: undefined, principalId: undefined, clientName: undefined, trace: {}, status: 200, errorCode: undefined, durationMs: 0 },
    stream: undefined,
    release: () => {},
    principal: undefined,
    bodyRead: false,
    dispatched: false,
    closed: false,
  };
  const onClose = () => {
    state.closed = true;
  };
  res.once('close', onClose);
  try {
    await answerMessage({ req, res, deps, headers, state });
  } catch (error) {
    if (!res.destroyed) answerFailure({ req, res, deps, headers, state }, error);
  } finally {
    state.release();
    res.off('close', onClose);
    state.trace.durationMs = performance.now() - state.started;
    deps.onRequestEnd?.(state.trace);
  }
}

/** The steps in order: each may answer and end the request, or throw for `answerFailure`. */
async function answerMessage(post: Post): Promise<void> {
  const { req, res, deps, headers, state } = post;
  if (!deps.enabled()) throw new ProtocolError(ErrorCode.ServerDisabled, 'The MCP server is switched off in Sluice');
  const { principal, message } = await authenticatedMessage(req, deps, state);
  if (message.kind === 'notification') {
    const { requestId } = message.params;
    if (message.method === 'notifications/cancelled' && (typeof requestId === 'string' || typeof requestId === 'number')) {
      deps.requests.cancel(principal.id, requestId);
    }
    state.trace.status = 202;
    sendEmpty(res, 202, headers);
    return;
  }
  const era = checkedEra(req, message, state.trace);
  // A subscription is a stream, not a request: no rate limit, no deadline, no method-table handler.
  if (message.method === 'subscriptions/listen' && era.era === 'modern') {
    await handleListen(res, headers, deps.subscriptions, principal, message, () => !state.closed);
    return;
  }
  state.release = await deps.limits.admit(principal.id);
  const call: Call = { principal, message, era };
  const framing = eraFraming(post, call);
  if (framing) await dispatch(post, call, framing);
}

/**
 * The caller and its message. Authentication needs only the headers, so it comes first: no header is
 * decoded or compared with the body before the token verifies. A refused request's body is read only
 * up to 64 KB, only so that the refusal can carry the request's id.
 */
async function authenticatedMessage(req: IncomingMessage, deps: McpEndpointDeps, state: PostState): Promise<{ principal: Principal; message: JsonRpcMessage }> {
  const verdict = await deps.authenticate(req).then(
    (caller) => ({ caller }),
    (error: unknown) => ({ error }),
  );
  let json: unknown;
  try {
    const shape = new JsonShapeScanner();
    const limit = 'error' in verdict ? TRANSPORT.refusedBodyBytes : TRANSPORT.maxBodyBytes;
    const text = await readBody(req, limit, (chunk) => shape.push(chunk));
    state.bodyRead = true;
    json = parseJson(text);
  } catch (error) {
    throw 'error' in verdict ? verdict.error : error;
  }
  state.trace.id = requestIdOf(json);
  if ('error' in verdict) throw verdict.error;
  const principal = verdict.caller;
  state.principal = principal;
  state.trace.principalId = principal.id;
  const message = parseMessage(json);
  state.trace.method = message.method;
  return { principal, message };
}

/** The request's era; a modern one's headers must mirror its body and name a version served. */
function checkedEra(req: IncomingMessage, message: RequestMessage, trace: RequestTrace): RequestEra {
  const era = readEra(message.params);
  if (era.era === 'modern') {
    checkHeaderMirror(req.headersDistinct, message, era.protocolVersion);
    assertModernVersion(era.protocolVersion);
    trace.trace = era.trace;
    trace.clientName = era.clientInfo?.name;
  } else if (!isJsonContentType(req.headers['content-type'])) {
    throw new ProtocolError(ErrorCode.InvalidRequest, 'Invalid request: Content-Type must be application/json');
  }
  return era;
}

/** How the era frames the result; undefined once a legacy `initialize` was answered here. */
function eraFraming({ req, res, deps, headers, state: { trace } }: Post, { principal, message, era }: Call): Framing | undefined {
  if (era.era === 'modern') return { meta: era, finish: (result) => finishModernResult(message.method, message.params, result) };
  if (message.method === 'initialize') {
    initialize(res, headers, deps.sessions, principal, message);
    return undefined;
  }
  const session = deps.sessions.use(legacySessionHeader(req), principal, req.headers['mcp-protocol-version']);
  const meta = readLegacyMeta(message.params, session.clientInfo);
  trace.trace = meta.trace;
  trace.clientName = meta.clientInfo?.name;
  return { meta, finish: finishLegacyResult };
}

/** The method table's handler, run as an actor under the request's deadline; its result answers. */
async function dispatch({ res, deps, headers, state }: Post, { principal, message, era }: Call, { meta, finish }: Framing): Promise<void> {
  const spec = deps.methods[message.method];
  if (!spec || (spec.era !== 'both' && spec.era !== era.era)) throw methodNotFound(message.method);
  requireScopes(principal, spec.scopes);

  const stream = meta.progressToken === undefined ? undefined : new ProgressStream(res, meta.progressToken, headers);
  state.stream = stream;
  state.dispatched = true;
  const outcome = await deps.requests.run({
    principalId: principal.id,
    requestId: message.id,
    method: message.method,
    deadlineMs: REQUESTS.handlerDeadlineMs,
    connected: () => !state.closed,
    work: (signal) => spec.handle(message.params, callContext(deps, principal, meta, message, signal, stream)),
  });
  if (!outcome.ok) throw outcome.error;
  const body = resultResponse(message.id, finish(outcome.result));
  if (stream) await stream.finish(200, body);
  else await sendLargeJson(res, 200, body, headers);
}

/** The error as the request's answer, logged when it is a refusal no one else logs. */
function answerFailure({ req, res, deps, headers, state }: Post, error: unknown): void {
  const { trace, principal, stream } = state;
  const reply = errorResponse(trace.id, error);
  trace.status = reply.status;
  trace.errorCode = 'error' in reply.body ? reply.body.error.code : undefined;
  // Authentication logs its own refusals, and a handler its own; these are the ones in between.
  const refused = trace.errorCode === ErrorCode.Forbidden || trace.errorCode === ErrorCode.RateLimited;
  if (principal && !state.dispatched && refused) {
    deps.audit({
      category: 'access',
      action: trace.method ?? 'request',
      outcome: trace.errorCode === ErrorCode.Forbidden ? 'denied' : 'rateLimited',
      ...(principal.kind === 'token' ? { tokenId: principal.id, tokenName: principal.name } : {}),
      ...(trace.clientName ? { clientName: trace.clientName } : {}),
      trace: trace.trace,
    });
  }
  if (stream) void stream.finish(reply.status, reply.body, reply.headers);
  else if (!state.bodyRead) refuseUpload(req, res, deps.clock, reply.status, reply.body, { ...headers, ...reply.headers });
  else sendJson(res, reply.status, reply.body, { ...headers, ...reply.headers });
}
