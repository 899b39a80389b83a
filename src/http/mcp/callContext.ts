import type { ActivityEntry } from '../../activity/activityLog.js';
import type { Principal } from '../../auth/principal.js';
import { createConsent } from '../../capabilities/consent.js';
import { reportingWaits } from '../../capabilities/waitingProgress.js';
import type { CallContext } from '../../capabilities/types.js';
import type { RequestMeta } from '../../protocol/era.js';
import type { Params } from '../../protocol/jsonrpc.js';
import type { SignalSource } from '../../runtime/inflightRequests.js';
import type { ProgressStream } from '../progressStream.js';
import type { McpEndpointDeps } from './mcpPost.js';

/** What a capability handler is given: its caller, consent, the catalog, its signal, progress and audit. */
export function callContext(
  deps: McpEndpointDeps,
  principal: Principal,
  era: RequestMeta,
  message: { method: string; params: Params },
  signal: SignalSource,
  stream: ProgressStream | undefined,
): CallContext {
  const noted: NonNullable<ActivityEntry['detail']> = {};
  return {
    consent: createConsent({
      principal,
      clientName: era.clientInfo?.name,
      clientCapabilities: era.clientCapabilities,
      method: message.method,
      params: message.params,
      signer: deps.signer,
      // With a progress token, a dialog's wait is reported, so the client does not give up on it.
      dialogs: stream
        ? reportingWaits(deps.dialogs, deps.clock, {
            reported: () => stream.reported,
            report: (progress, total, text) => stream.progress(progress, total, text),
          })
        : deps.dialogs,
      get signal() {
        return signal();
      },
    }),
    principal,
    catalog: deps.catalog,
    history: deps.history,
    heldReads: deps.heldReads,
    clientCapabilities: era.clientCapabilities,
    get signal() {
      return signal();
    },
    progress: stream ? (progress, total, message) => stream.progress(progress, total, message) : () => {},
    undo: deps.undo,
    noteActivity: (detail) => Object.assign(noted, detail),
    audit: (entry) =>
      deps.audit({
        ...entry,
        ...(Object.keys(noted).length > 0 ? { detail: { ...entry.detail, ...noted } } : {}),
        ...(principal.kind === 'token' ? { tokenId: principal.id, tokenName: principal.name } : {}),
        ...(era.clientInfo?.name ? { clientName: era.clientInfo.name } : {}),
        trace: era.trace,
      }),
  };
}
