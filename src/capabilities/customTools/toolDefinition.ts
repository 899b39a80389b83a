import { CUSTOM_TOOLS, RESULTS } from '../../core/contract.js';
import type { SavedConnection } from '../../db/connections/savedConnections.js';
import { engineModule } from '../../db/engines/registry.js';
import { DriverFailure } from '../../db/driverFailure.js';
import { classifyStatement } from '../../sql/classify.js';
import { bindNamedPlaceholders } from '../../sql/namedPlaceholders.js';
import { SqlRefusal } from '../../sql/sqlRefusal.js';
import { isPlainObject } from '../../protocol/jsonrpc.js';
import { TOOL_NAME } from '../../core/nameCharacters.js';

/** One parameter of a custom tool: its JSON Schema type and the bounds its value is checked against. */
export type ParameterDefinition = {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
};

/** A custom tool as `tools.json` defines it, once checked. */
export type ToolDefinition = {
  name: string;
  description: string;
  connection: string;
  /** The statement with its named placeholders (`:order_id`). */
  statement: string;
  kind: 'read' | 'write';
  maxRows: number;
  parameters: ParameterDefinition[];
};

/** Why a definition is refused, in a sentence a person can act on. */
export class DefinitionError extends Error {}

/** What a definition is checked against: the names already taken and the saved connections. */
export type DefinitionContext = {
  taken: ReadonlySet<string>;
  connection(id: string): SavedConnection | undefined;
};

const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TOOL_FIELDS = new Set(['name', 'description', 'connection', 'statement', 'kind', 'max_rows', 'parameters']);
const PARAMETER_FIELDS = new Set(['name', 'type', 'description', 'enum', 'minimum', 'maximum', 'pattern']);
const TYPES = new Set(['string', 'integer', 'number', 'boolean']);

function refuse(reason: string): never {
  throw new DefinitionError(reason);
}

function unknownField(value: Record<string, unknown>, known: Set<string>, where: string): void {
  const unknown = Object.keys(value).find((field) => !known.has(field));
  if (unknown !== undefined) refuse(`${where} has no field "${unknown}" (it has ${[...known].join(', ')})`);
}

function stringField(value: Record<string, unknown>, field: string, max: number, where = ''): string {
  const text = value[field];
  if (typeof text !== 'string' || text.trim() === '') refuse(`${where}${field} must be a non-empty string`);
  if (text.length > max) refuse(`${where}${field} must be at most ${max} characters`);
  return text;
}

/** The checked bounds of one parameter: each keyword only where its type has it. */
function parameterBounds(raw: Record<string, unknown>, type: ParameterDefinition['type'], where: string): Partial<ParameterDefinition> {
  const bounds: Partial<ParameterDefinition> = {};
  if (raw.enum !== undefined) {
    if (type !== 'string') refuse(`${where}: enum is for string parameters (bound numbers with minimum and maximum)`);
    if (!Array.isArray(raw.enum) || raw.enum.length === 0 || raw.enum.some((v) => typeof v !== 'string')) refuse(`${where}: enum must be a non-empty list of strings`);
    bounds.enum = raw.enum as string[];
  }
  for (const field of ['minimum', 'maximum'] as const) {
    if (raw[field] === undefined) continue;
    if (type !== 'integer' && type !== 'number') refuse(`${where}: ${field} is for integer and number parameters`);
    if (typeof raw[field] !== 'number') refuse(`${where}: ${field} must be a number`);
    bounds[field] = raw[field];
  }
  if (raw.pattern !== undefined) {
    if (type !== 'string') refuse(`${where}: pattern is for string parameters`);
    if (typeof raw.pattern !== 'string') refuse(`${where}: pattern must be a string`);
    try {
      new RegExp(raw.pattern, 'u');
    } catch (error) {
      refuse(`${where}: pattern is not a regular expression (${(error as Error).message})`);
    }
    bounds.pattern = raw.pattern;
  }
  return bounds;
}

function parameterOf(raw: unknown, index: number): ParameterDefinition {
  const where = `parameters[${index}]`;
  if (!isPlainObject(raw)) refuse(`${where} must be an object`);
  unknownField(raw, PARAMETER_FIELDS, where);
  const name = raw.name;
  if (typeof name !== 'string' || !PARAMETER_NAME.test(name)) refuse(`${where}.name must be letters, digits and _, not starting with a digit`);
  if (typeof raw.type !== 'string' || !TYPES.has(raw.type)) refuse(`${where} (${name}): type must be one of ${[...TYPES].join(', ')}`);
  const type = raw.type as ParameterDefinition['type'];
  const description = raw.description === undefined ? undefined : stringField(raw, 'description', CUSTOM_TOOLS.maxDescriptionChars, `${where}.`);
  return { name, type, ...(description !== undefined ? { description } : {}), ...parameterBounds(raw, type, `${where} (${name})`) };
}

function parametersOf(raw: unknown): ParameterDefinition[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) refuse('parameters must be a list');
  if (raw.length > CUSTOM_TOOLS.maxParameters) refuse(`a tool has at most ${CUSTOM_TOOLS.maxParameters} parameters`);
  const parameters = raw.map(parameterOf);
  const names = parameters.map((p) => p.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) refuse(`the parameter ${twice} is defined twice`);
  if (names.includes('cursor')) refuse('cursor is not a parameter name: it reads on from a cut answer');
  return parameters;
}

/** The definition's own fields, each checked; the statement is checked against its engine after. */
function fieldsOf(raw: unknown, context: DefinitionContext): ToolDefinition {
  if (!isPlainObject(raw)) refuse('a tool must be an object');
  unknownField(raw, TOOL_FIELDS, 'a tool');
  const name = raw.name;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    refuse(`name must be 1 to ${CUSTOM_TOOLS.maxNameChars} letters, digits, _, - or . (MCP's tool-name rule)`);
  }
  if (context.taken.has(name)) refuse(`the name ${name} is taken (a built-in tool, or a tool defined earlier in the file)`);
  const maxRows = raw.max_rows ?? RESULTS.defaultRows;
  if (!Number.isInteger(maxRows) || (maxRows as number) < 1 || (maxRows as number) > RESULTS.maxRows) refuse(`max_rows must be an integer from 1 to ${RESULTS.maxRows}`);
  if (raw.kind !== 'read' && raw.kind !== 'write') refuse('kind must be "read" or "write"');
  const statement = stringField(raw, 'statement', Infinity);
  if (Buffer.byteLength(statement) > RESULTS.maxSqlBytes) refuse(`statement must be at most ${RESULTS.maxSqlBytes / 1024} KB`);
  return {
    name,
    description: stringField(raw, 'description', CUSTOM_TOOLS.maxDescriptionChars),
    connection: stringField(raw, 'connection', CUSTOM_TOOLS.maxNameChars),
    statement,
    kind: raw.kind,
    maxRows: maxRows as number,
    parameters: parametersOf(raw.parameters),
  };
}

/** Every placeholder has a parameter and every parameter a placeholder. */
function matchPlaceholders(order: string[], parameters: ParameterDefinition[]): void {
  const used = new Set(order);
  const undefinedName = [...used].find((name) => !parameters.some((p) => p.name === name));
  if (undefinedName !== undefined) refuse(`the statement's placeholder :${undefinedName} has no parameter`);
  const unused = parameters.find((p) => !used.has(p.name));
  if (unused) refuse(`the parameter ${unused.name} has no placeholder :${unused.name} in the statement`);
}

/**
 * Checks one entry of `tools.json`: its fields, its connection, its placeholders against its parameters,
 * and its statement as the connection's engine reads it (its own parser where Sluice has one offline,
 * PostgreSQL's; the classifier on
 * every engine): a read must be classified read, a write a write or DDL (never a destructive one).
 */
export async function checkDefinition(raw: unknown, context: DefinitionContext): Promise<ToolDefinition> {
  const definition = fieldsOf(raw, context);
  const connection = context.connection(definition.connection);
  if (!connection) refuse(`no saved connection has the id "${definition.connection}"`);
  try {
    const bound = bindNamedPlaceholders(definition.statement, connection.engine);
    matchPlaceholders(bound.order, definition.parameters);
    await engineModule(connection.engine).parse?.(bound.sql);
    const { kind, reason } = classifyStatement(bound.sql, connection.engine);
    if (definition.kind === 'read' && kind !== 'read') refuse(`kind is read, but the statement is classified ${kind}: ${reason}`);
    if (definition.kind === 'write' && kind === 'read') refuse('kind is write, but the statement only reads: make it kind read');
    if (kind === 'destructive') refuse(`the statement is destructive (${reason}); those run only through confirm_destructive_operation`);
  } catch (error) {
    if (error instanceof SqlRefusal || error instanceof DriverFailure) refuse(`statement: ${error.message}`);
    throw error;
  }
  return definition;
}
