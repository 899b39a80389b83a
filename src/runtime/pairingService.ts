import { randomUUID } from 'node:crypto';
import type { AnyActorRef } from 'xstate';
import type { PairingCodeOutput } from '../../machines/pairingCode.js';
import type {
  ApprovalChoice,
  PairingRequestInput,
  PairingRequestOutcome,
  PairingRequestOutput,
} from '../../machines/pairingRequest.js';
import { type ChildDone, childOf, childrenOfKind, pairingCodeId, pairingRequestId, type Supervisor } from '../../machines/supervisor.js';
import { PAIRING } from '../core/contract.js';
import type { ActivityEntry } from '../activity/activityLog.js';
import type { SavedConnection } from '../db/connections/savedConnections.js';
import type { AppClock } from '../core/clock.js';
import { type PermissionLevel, permissionLevels } from '../auth/levels.js';
import { checkGrant, expiryChoices, GrantError, unknownConnections, unknownTools } from '../auth/grant.js';
import type { TokenStore } from '../auth/tokenStore.js';
import { approvalCallback, denialCallback } from '../pairing/callback.js';
import { type PairingLink, parsePairingLink } from '../pairing/deepLink.js';

/** What the user granted on an approved sheet, and the token it became. */
export type Grant = ApprovalChoice & { tokenId: string };

export type ApprovalSheet = {
  id: string;
  kind: 'pairing';
  clientName: string;
  /** Where the code will be delivered. */
  redirect: string;
  requestedLevel: PermissionLevel;
  levels: readonly PermissionLevel[];
  connections: { id: string; name: string }[];
  /** The custom tools the grant may be limited to. */
  tools: string[];
  expiryChoices: (number | null)[];
  defaultExpiryDays: number;
  secondsLeft: number;
  /** When Approve stops counting, on the application's clock. */
  expiresAt: number;
  status: 'awaitingApproval' | PairingRequestOutcome;
  /** Once approved: what was granted, which may differ from what was asked for. */
  granted?: Grant;
};

export type ExchangeOutcome =
  | { status: 200; token: string }
  | { status: 403 | 404 | 410; error: string; description: string };

export type PairingServiceDeps = {
  supervisor: Supervisor;
  tokens: TokenStore;
  clock: AppClock;
  connections(): SavedConnection[];
  /** The custom tools defined now (tools.json). */
  customToolNames(): string[];
  deliver(url: URL): Promise<void>;
  audit(entry: ActivityEntry): void;
  /** A pairing deep link switches the MCP server back on. */
  onPairingRequested(): void;
};

export type Refusal = { ok: false; reason: string };

const linkOf = (input: PairingRequestInput): PairingLink => ({
  clientName: input.clientName,
  challenge: input.challenge,
  redirect: new URL(input.redirect),
  requestedLevel: input.requestedLevel,
  ...(input.state !== undefined ? { state: input.state } : {}),
  ...(input.responseMode ? { responseMode: input.responseMode } : {}),
});

/** Why the sheet's controls cannot take these values, checked before the request moves. */
function invalidChoice(chosen: Partial<ApprovalChoice>, known: Set<string>, tools: Set<string>): string | undefined {
  try {
    checkGrant(chosen);
  } catch (error) {
    if (error instanceof GrantError) return error.message;
    throw error;
  }
  return unknownConnections(chosen.connections, known) ?? unknownTools(chosen.tools, tools);
}

/** Pairing as the user and the client see it, over the supervisor's pairing-request and code actors. */
export class PairingService {
  readonly #deps: PairingServiceDeps;
  /** Sheets that ended, as they were, for the console: what happened and when. */
  readonly #ended = new Map<string, { input: PairingRequestInput; status: PairingRequestOutcome; endedAt: number }>();
  /** What each approved sheet granted, kept as long as the sheet is. */
  readonly #granted = new Map<string, Grant>();

  constructor(deps: PairingServiceDeps) {
    this.#deps = deps;
  }

  #child(id: string): AnyActorRef | undefined {
    return childOf(this.#deps.supervisor, id);
  }

  #pending(id: string): AnyActorRef | undefined {
    const actor = this.#child(pairingRequestId(id));
    return actor?.getSnapshot().value === 'awaitingApproval' ? actor : undefined;
  }

  #deliver(url: URL, clientName: string): void {
    this.#deps.deliver(url).catch((error: Error) =>
      this.#deps.audit({ category: 'auth', action: 'pairing.callback', outcome: 'error', clientName, error: error.message }),
    );
  }

  /** A `sluice://integrations/pair?…` link: an approval sheet, or the refusal the user sees. */
  openLink(url: string): { ok: true; sheet: ApprovalSheet } | Refusal {
    const parsed = parsePairingLink(url);
    if (!parsed.ok) {
      this.#deps.audit({ category: 'auth', action: 'pairing.refused', outcome: 'denied', detail: { reason: parsed.code } });
      return { ok: false, reason: parsed.reason };
    }
    const { link } = parsed;
    const id = randomUUID().slice(0, 8);
    this.#deps.supervisor.send({
      type: 'pairing.open',
      input: {
        id,
        clientName: link.clientName,
        challenge: link.challenge,
        redirect: link.redirect.href,
        ...(link.state !== undefined ? { state: link.state } : {}),
        ...(link.responseMode ? { responseMode: link.responseMode } : {}),
        requestedLevel: link.requestedLevel,
        createdAt: this.#deps.clock.now(),
      },
    });
    this.#deps.onPairingRequested();
    this.#deps.audit({ category: 'auth', action: 'pairing.requested', outcome: 'success', clientName: link.clientName });
    return { ok: true, sheet: this.#sheet((this.#pending(id) as AnyActorRef).getSnapshot().context as PairingRequestInput) };
  }

  #sheet(input: PairingRequestInput, status: ApprovalSheet['status'] = 'awaitingApproval'): ApprovalSheet {
    const expiresAt = input.createdAt + PAIRING.approvalWindowMs;
    const left = status === 'awaitingApproval' ? expiresAt - this.#deps.clock.now() : 0;
    const granted = this.#granted.get(input.id);
    return {
      id: input.id,
      kind: 'pairing',
      clientName: input.clientName,
      redirect: input.redirect,
      requestedLevel: input.requestedLevel,
      levels: permissionLevels,
      connections: this.#deps.connections().map((c) => ({ id: c.id, name: c.name })),
      tools: this.#deps.customToolNames(),
      expiryChoices: [...expiryChoices],
      defaultExpiryDays: PAIRING.defaultExpiryDays,
      secondsLeft: Math.max(0, Math.ceil(left / 1000)),
      expiresAt,
      status,
      ...(granted ? { granted } : {}),
    };
  }

  /** The sheets awaiting an answer. */
  approvals(): ApprovalSheet[] {
    return childrenOfKind(this.#deps.supervisor, 'pairingRequest')
      .filter((actor) => actor.getSnapshot().value === 'awaitingApproval')
      .map((actor) => this.#sheet(actor.getSnapshot().context as PairingRequestInput));
  }

  /** The sheets awaiting an answer, then those that ended in the last ten minutes, newest first. */
  sheets(): ApprovalSheet[] {
    const now = this.#deps.clock.now();
    for (const [id, ended] of this.#ended) {
      if (now - ended.endedAt <= PAIRING.endedSheetMs) continue;
      this.#ended.delete(id);
      this.#granted.delete(id);
    }
    const ended = [...this.#ended.values()].reverse().map(({ input, status }) => this.#sheet(input, status));
    return [...this.approvals(), ...ended];
  }

  /**
   * A child of the supervisor reached its end. A pairing request's sheet is kept for the console (and
   * an expiry logged); a code nobody exchanged in time, or burned by a wrong verifier, has its token
   * revoked, since no client holds it.
   */
  childDone(done: ChildDone): void {
    const now = this.#deps.clock.now();
    if (done.actorId.startsWith(pairingRequestId(''))) {
      const { request, outcome } = done.output as PairingRequestOutput;
      this.#ended.set(request.id, { input: request, status: outcome, endedAt: now });
      if (outcome === 'expired') this.#deps.audit({ category: 'auth', action: 'pairing.expired', outcome: 'denied' });
    } else if (done.actorId.startsWith(pairingCodeId(''))) {
      const ended = done.output as PairingCodeOutput | undefined;
      if (ended && ended.outcome !== 'spent') this.#deps.tokens.revoke(ended.tokenId, now);
    }
  }

  /** The sheet's Approve: mints the token the user chose, holds it against a one-time code, calls back. */
  approve(id: string, chosen: Partial<ApprovalChoice> = {}): { ok: true; tokenId: string } | Refusal {
    const actor = this.#pending(id);
    if (!actor) return { ok: false, reason: `no pending approval "${id}" (it may have expired or been answered)` };
    const input = actor.getSnapshot().context as PairingRequestInput;
    const refusal = invalidChoice(chosen, new Set(this.#deps.connections().map((c) => c.id)), new Set(this.#deps.customToolNames()));
    if (refusal) return { ok: false, reason: refusal };
    const choice: ApprovalChoice = {
      level: chosen.level ?? input.requestedLevel,
      connections: chosen.connections ?? 'all',
      expiresInDays: chosen.expiresInDays === undefined ? PAIRING.defaultExpiryDays : chosen.expiresInDays,
      ...(chosen.tools ? { tools: chosen.tools } : {}),
    };
    actor.send({ type: 'approve', ...choice });

    const now = this.#deps.clock.now();
    const { record, plaintext } = this.#deps.tokens.mint({ name: input.clientName, ...choice, now });
    this.#granted.set(id, { ...choice, tokenId: record.id });
    const code = randomUUID();
    this.#deps.supervisor.send({ type: 'code.issue', input: { code, challenge: input.challenge, tokenId: record.id, plaintext } });
    this.#deps.audit({
      category: 'auth',
      action: 'pairing.approved',
      outcome: 'success',
      tokenId: record.id,
      tokenName: record.name,
      clientName: input.clientName,
      detail: {
        level: choice.level,
        connections: choice.connections === 'all' ? 'all' : choice.connections.join(','),
        expiresInDays: choice.expiresInDays ?? 'never',
      },
    });
    this.#deliver(approvalCallback(linkOf(input), code), input.clientName);
    return { ok: true, tokenId: record.id };
  }

  /** The sheet's Deny: the client hears `error=denied`. */
  deny(id: string): { ok: true } | Refusal {
    const actor = this.#pending(id);
    if (!actor) return { ok: false, reason: `no pending approval "${id}" (it may have expired or been answered)` };
    const input = actor.getSnapshot().context as PairingRequestInput;
    actor.send({ type: 'deny' });
    this.#deps.audit({ category: 'auth', action: 'pairing.denied', outcome: 'denied', clientName: input.clientName });
    this.#deliver(denialCallback(linkOf(input)), input.clientName);
    return { ok: true };
  }

  /** `POST /v1/integrations/exchange` once the body is valid: the code's actor decides. */
  exchange(code: string, verifier: string): ExchangeOutcome {
    const actor = this.#child(pairingCodeId(code));
    const state = actor?.getSnapshot().value;
    if (actor && state === 'expired') {
      return { status: 410, error: 'expired_code', description: 'pairing code expired' };
    }
    if (!actor || state !== 'pending') {
      return { status: 404, error: 'not_found', description: 'pairing code not found' };
    }
    const token = (actor.getSnapshot().context as { plaintext: string }).plaintext;
    actor.send({ type: 'exchange', verifier });
    if (actor.getSnapshot().value === 'spent') return { status: 200, token };
    return { status: 403, error: 'invalid_grant', description: 'challenge mismatch: the code is burned' };
  }
}
