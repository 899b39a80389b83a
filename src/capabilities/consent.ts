import type { ConsentDialogs } from '../runtime/consentDialogs.js';
import type { SavedConnection } from '../db/savedConnections.js';
import type { Principal } from '../auth/principal.js';
import type { RequestStateSigner } from '../auth/requestState.js';
import { invalidParams, ToolError } from '../core/errors.js';
import { isPlainObject, type Params } from '../protocol/jsonrpc.js';

export const CONSENT_KEY = 'approve_statement';

/** Thrown by a handler that needs the user's answer first: the call's result is `input_required`. */
export class InputRequired extends Error {
  constructor(readonly result: { inputRequests: Record<string, unknown>; requestState: string }) {
    super('input required');
  }
}

export type ConsentQuestion = { connection: SavedConnection; tool: string; statement: string; statementKind: string };

export type Consent = {
  /** A repeated call's `requestState` must be this server's, for this caller, method and parameters. */
  checkRoundTrip(): Promise<void>;
  /** Resolves once the user consented to this exact statement; otherwise throws why not. */
  ask(question: ConsentQuestion): Promise<void>;
};

export type ConsentDeps = {
  principal: Principal;
  clientName: string | undefined;
  clientCapabilities: Record<string, unknown>;
  method: string;
  params: Params;
  signer: RequestStateSigner;
  dialogs: ConsentDialogs;
  signal: AbortSignal;
};

function elicitation(question: ConsentQuestion, clientName: string | undefined) {
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message:
        `${clientName ?? 'An AI client'} wants to run a ${question.statementKind} statement on ` +
        `${question.connection.name}. Approve it only if you expect this change.`,
      requestedSchema: {
        type: 'object',
        properties: {
          approved: { type: 'boolean', title: 'Approve this statement', description: question.statement },
        },
        required: ['approved'],
      },
    },
  };
}

/**
 * Writes always need the user's consent. A repeated call answers with its signed `requestState` and
 * `inputResponses`; a client that declared `elicitation` is asked through `input_required`; any other
 * client waits on a confirmation dialog in Sluice.
 */
export function createConsent(deps: ConsentDeps): Consent {
  const binding = { principalId: deps.principal.id, method: deps.method, params: deps.params };
  const { requestState, inputResponses } = deps.params;
  const repeated = requestState !== undefined || inputResponses !== undefined;
  const ask = async (question: ConsentQuestion) => {
    if (repeated) {
      await deps.signer.spend(requestState, binding);
      const answer = isPlainObject(inputResponses) ? inputResponses[CONSENT_KEY] : undefined;
      if (!isPlainObject(answer)) throw invalidParams(`inputResponses.${CONSENT_KEY} is missing`);
      const content = isPlainObject(answer.content) ? answer.content : {};
      if (answer.action !== 'accept' || content.approved !== true) {
        throw new ToolError('denied', 'the user did not approve the statement');
      }
      return;
    }
    if (isPlainObject(deps.clientCapabilities.elicitation)) {
      throw new InputRequired({
        inputRequests: { [CONSENT_KEY]: elicitation(question, deps.clientName) },
        requestState: await deps.signer.sign(binding),
      });
    }
    const answer = await deps.dialogs.ask(
      {
        principalId: deps.principal.id,
        clientName: deps.clientName ?? deps.principal.name,
        connectionId: question.connection.id,
        connectionName: question.connection.name,
        tool: question.tool,
        statementKind: question.statementKind,
        statement: question.statement,
      },
      deps.signal,
    );
    if (answer !== 'approved') throw new ToolError('denied', 'the user denied the statement in Sluice');
  };
  return {
    checkRoundTrip: async () => {
      if (repeated) await deps.signer.verify(requestState, binding);
    },
    ask,
  };
}
