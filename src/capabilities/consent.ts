import type { ConsentDialogs, DialogQuestion, EffectPreview, UndoOutlook } from '../runtime/consentDialogs.js';
import { hasUrl, type SavedConnection } from '../db/connections/savedConnections.js';
import { parseServerUrl } from '../db/connections/connectionUrl.js';
import { ENGINE_NAMES } from '../db/database.js';
import type { Principal } from '../auth/principal.js';
import { levelOfScopes } from '../auth/levels.js';
import type { RequestStateSigner } from '../auth/requestState.js';
import { invalidParams, ToolError } from '../core/errors.js';
import { changesTableLines, CHANGES_LEGEND, destinationText, effectText, numberedLines, placeholderOf, rowsTableLines, undoText, valueText, valueType } from '../core/shared/statementText.js';
import { visibleText } from '../core/shared/visibleText.js';
import { isPlainObject, type Params } from '../protocol/jsonrpc.js';
import { placeholderStyle } from '../sql/tokens.js';

export const CONSENT_KEY = 'approve_statement';

/** Thrown by a handler that needs the user's answer first: the call's result is `input_required`. */
export class InputRequired extends Error {
  constructor(readonly result: { inputRequests: Record<string, unknown>; requestState: string }) {
    super('input required');
  }
}

export type ConsentQuestion = {
  connection: SavedConnection;
  tool: string;
  statement: string;
  statementKind: string;
  /** Why it is of that kind (the classifier's words); the values bound to it; what it would change. */
  statementReason?: string;
  params?: unknown[];
  /** What it would change and whether it can be undone; run only when the user is asked (not on a repeated call that answers). */
  preview?: () => Promise<{ effect: EffectPreview | undefined; undo: UndoOutlook }>;
} & ConsentDetails;

/** What some tools show besides the statement: the file an export writes, the rows an insert adds. */
export type ConsentDetails = Pick<DialogQuestion, 'destination' | 'rows'>;

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
  dialogs: Pick<ConsentDialogs, 'ask'>;
  signal: AbortSignal;
};

/** Everything the user is shown about the statement, as the console's dialog and `sluice approvals` show it. */
async function dialogQuestion(question: ConsentQuestion, deps: ConsentDeps): Promise<DialogQuestion> {
  const { connection } = question;
  const preview = await question.preview?.();
  return {
    principalId: deps.principal.id,
    clientName: deps.clientName ?? deps.principal.name,
    clientNameDeclared: deps.clientName !== undefined,
    tokenName: deps.principal.name,
    tokenLevel: levelOfScopes(deps.principal.scopes),
    connectionId: connection.id,
    connectionName: connection.name,
    engine: connection.engine,
    database: hasUrl(connection) ? (parseServerUrl(connection.url)?.database ?? '') : connection.path,
    tool: question.tool,
    statementKind: question.statementKind,
    statementReason: question.statementReason ?? '',
    statement: question.statement,
    params: question.params ?? [],
    placeholders: placeholderStyle(question.statement, connection.engine),
    effect: preview?.effect ?? null,
    undo: preview?.undo ?? null,
    ...(question.destination ? { destination: question.destination } : {}),
    ...(question.rows ? { rows: question.rows } : {}),
  };
}

/**
 * The dialog in words, for a client to show its user: every invisible character escaped, lines numbered.
 * The database's name or file stays out: the client is never told where a connection points.
 */
function elicitationMessage(q: DialogQuestion): string {
  const lines = numberedLines(q.statement);
  const client = q.clientNameDeclared ? `${visibleText(q.clientName)} (name declared by the client)` : 'A client that declared no name';
  return [
    `${client} wants to run a ${q.statementKind} statement (${visibleText(q.statementReason)}) on ` +
      `${visibleText(q.connectionName)} (${ENGINE_NAMES[q.engine as keyof typeof ENGINE_NAMES] ?? q.engine}), ` +
      `with the token ${visibleText(q.tokenName)} (${q.tokenLevel}).`,
    ...(q.destination ? [`Its rows are written to ${destinationText(q.destination)}.`] : []),
    ...(q.rows ? [`Rows to insert into ${visibleText(q.rows.table)} (${q.rows.total}):`, ...rowsTableLines(q.rows)] : []),
    `Statement, ${lines.length} ${lines.length === 1 ? 'line' : 'lines'}:`,
    ...lines,
    // An insert's bound values are its rows' cells, in order: shown as the table above, not again one by one.
    ...(q.rows ? [] : q.params.map((value, i) => `${placeholderOf(q.placeholders, i)} (${valueType(value)}) = ${valueText(value)}`)),
    ...(q.effect ? [`${'changes' in q.effect ? '' : 'Rows it would change: '}${effectText(q.effect)}.`] : []),
    ...(q.effect && 'changes' in q.effect ? [`${CHANGES_LEGEND}:`, ...changesTableLines(q.effect)] : []),
    ...(q.undo ? [`It ${undoText(q.undo)}.`] : []),
    'Approve it only if you expect this change.',
  ].join('\n');
}

function elicitation(question: ConsentQuestion, shown: DialogQuestion) {
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: elicitationMessage(shown),
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
        inputRequests: { [CONSENT_KEY]: elicitation(question, await dialogQuestion(question, deps)) },
        requestState: await deps.signer.sign(binding),
      });
    }
    const answer = await deps.dialogs.ask(await dialogQuestion(question, deps), deps.signal);
    if (answer !== 'approved') throw new ToolError('denied', 'the user denied the statement in Sluice');
  };
  return {
    checkRoundTrip: async () => {
      if (repeated) await deps.signer.verify(requestState, binding);
    },
    ask,
  };
}
