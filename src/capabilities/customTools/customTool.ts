import { CUSTOM_TOOLS, RESULTS } from '../../core/contract.js';
import { ToolError } from '../../core/errors.js';
import { classifyStatement, type StatementKind } from '../../sql/classify.js';
import { type BoundStatement, bindNamedPlaceholders } from '../../sql/namedPlaceholders.js';
import type { Engine } from '../../db/database.js';
import { useConnection } from '../connectionArgs.js';
import { resultSetSchema } from '../resultSet.js';
import { cursorProperty, readOn } from '../readOn.js';
import { runStatement } from '../runStatement.js';
import type { ObjectSchema, Schema } from '../schema.js';
import { boundValues } from '../statementArgs.js';
import type { Tool } from '../types.js';
import type { ParameterDefinition, ToolDefinition } from './toolDefinition.js';

/** A parameter as the tool's input schema declares it. */
function parameterSchema({ name: _name, ...parameter }: ParameterDefinition): Schema {
  return parameter.type === 'string' ? { ...parameter, type: 'string', maxLength: CUSTOM_TOOLS.maxStringChars } : (parameter as Schema);
}

/** Every parameter, each required; a read's `cursor` to read on; nothing else. */
function inputSchemaOf(definition: ToolDefinition): ObjectSchema {
  const parameters = definition.parameters.map((p) => [p.name, parameterSchema(p)]);
  return {
    type: 'object',
    properties: Object.fromEntries(definition.kind === 'read' ? [...parameters, ['cursor', cursorProperty]] : parameters),
    required: definition.parameters.map((p) => p.name),
    additionalProperties: false,
  };
}

/**
 * A checked definition as a tool: its statement runs on its connection through `runStatement`, as
 * `execute_query`'s do (the caller's connection allowlist, consent for a write, the history, the result
 * set's rules), with the arguments bound to the engine's placeholders, never written into the text.
 */
export function customTool(definition: ToolDefinition): Tool {
  const read = definition.kind === 'read';
  // The statement as each engine takes it, read once: lexing and classifying 100 KB takes tens of ms.
  const prepared = new Map<Engine, { bound: BoundStatement; kind: StatementKind; reason: string }>();
  const prepare = (engine: Engine) => {
    let statement = prepared.get(engine);
    if (!statement) {
      const bound = bindNamedPlaceholders(definition.statement, engine);
      prepared.set(engine, (statement = { bound, ...classifyStatement(bound.sql, engine) }));
    }
    return statement;
  };
  return {
    name: definition.name,
    title: definition.name,
    description: definition.description,
    inputSchema: inputSchemaOf(definition),
    outputSchema: resultSetSchema,
    annotations: read ? { readOnlyHint: true, destructiveHint: false } : { readOnlyHint: false, destructiveHint: false },
    scopes: read ? [] : ['tools:write'],
    connectionId: definition.connection,
    statement: definition.statement,
    async run(args, ctx) {
      ctx.progress(0, 1, 'Checking the statement');
      const { connection, db, key, privacy } = useConnection(ctx, definition.connection);
      const { bound, kind, reason } = prepare(db.engine);
      const heldFor = { principalId: ctx.principal.id, connectionKey: key, tool: definition.name };
      const maxRows = definition.maxRows;
      const timeoutMs = RESULTS.defaultTimeoutSeconds * 1000;
      // A call reading on repeats the arguments of the call whose answer was cut.
      const heldAs = JSON.stringify(bound.order.map((name) => args[name]));
      if (args.cursor !== undefined) {
        return readOn(ctx, heldFor, args.cursor as string, heldAs, { maxRows, maxBytes: RESULTS.defaultBytes, timeoutMs, signal: ctx.signal }, RESULTS.defaultTokens);
      }
      // Checked when the file was read; a connection since moved to another engine could read it otherwise.
      if (kind === 'destructive' || (read && kind !== 'read')) throw new ToolError('unsupported', `${definition.name}'s statement is now classified ${kind}`);
      return runStatement(ctx, connection, db, privacy, {
        tool: definition.name,
        sql: bound.sql,
        kind,
        reason,
        params: boundValues(bound.order.map((name) => args[name]), db.engine, 'arguments'),
        maxRows,
        maxBytes: RESULTS.defaultBytes,
        timeoutMs,
        heldFor,
        heldAs,
      });
    },
  };
}
