import { PAIRING } from '../core/contract.js';
import { TOOL_NAME } from '../core/nameCharacters.js';
import { type PermissionLevel, permissionLevels } from './levels.js';

/**
 * What a token holds: a level, the connections it may use, its lifetime in days (`null`: never) and,
 * when it is limited to some custom tools, their names (`tools` absent: every tool its level allows).
 */
export type Grant = { level: PermissionLevel; connections: 'all' | string[]; expiresInDays: number | null; tools?: string[] };

/** A value that cannot be part of a grant; the message names the field and what it may be. */
export class GrantError extends RangeError {}

/** Days a token may live; `null` is never. */
export const expiryChoices: readonly (number | null)[] = PAIRING.expiryChoices;

const expiryNames = expiryChoices.map((days) => (days === null ? 'null (never)' : String(days)));
const expiryList = `${expiryNames.slice(0, -1).join(', ')} or ${expiryNames.at(-1)}`;

/**
 * The one check of a grant's fields, whoever asks: the approval sheet, the console, the control socket,
 * the command line. Fields that are absent stay absent; the first wrong one throws a GrantError.
 */
export function checkGrant(fields: { level?: unknown; connections?: unknown; expiresInDays?: unknown; tools?: unknown }): Partial<Grant> {
  const { level, connections, expiresInDays, tools } = fields;
  const grant: Partial<Grant> = {};
  if (level !== undefined) {
    if (!permissionLevels.includes(level as never)) throw new GrantError(`level must be one of ${permissionLevels.join(', ')}`);
    grant.level = level as PermissionLevel;
  }
  if (connections !== undefined) {
    const list = Array.isArray(connections) && connections.length > 0 && connections.every((id) => typeof id === 'string' && id !== '');
    if (connections !== 'all' && !list) throw new GrantError('connections must be "all" or a list of connection ids');
    grant.connections = connections as Grant['connections'];
  }
  if (expiresInDays !== undefined) {
    if (!expiryChoices.includes(expiresInDays as never)) throw new GrantError(`expiresInDays must be ${expiryList}`);
    grant.expiresInDays = expiresInDays as number | null;
  }
  if (tools !== undefined) {
    if (!Array.isArray(tools) || tools.length === 0 || !tools.every((name) => typeof name === 'string' && TOOL_NAME.test(name))) {
      throw new GrantError('tools must be a list of custom tool names');
    }
    grant.tools = [...new Set(tools as string[])];
  }
  return grant;
}

/** The connections of a grant that are not saved ones, as a refusal; undefined when all are known. */
export function unknownConnections(connections: Grant['connections'] | undefined, known: Set<string>): string | undefined {
  if (connections === undefined || connections === 'all') return undefined;
  const unknown = connections.filter((id) => !known.has(id));
  return unknown.length > 0 ? `unknown connection ${unknown.join(', ')}` : undefined;
}

/** The tools of a grant that are not custom tools now defined, as a refusal; undefined when all are. */
export function unknownTools(tools: string[] | undefined, defined: ReadonlySet<string>): string | undefined {
  const unknown = (tools ?? []).filter((name) => !defined.has(name));
  return unknown.length > 0 ? `no custom tool named ${unknown.join(', ')}` : undefined;
}

/** Command-line text: `never` → null, `1`/`7`/`30`/`90` → days, anything else → undefined. */
export function parseExpiry(text: string): number | null | undefined {
  if (text === 'never') return null;
  return expiryChoices.find((days) => days !== null && String(days) === text);
}

/** Command-line text: tool names separated by commas; undefined when a name is empty. */
export function parseToolList(text: string): string[] | undefined {
  const names = text.split(',');
  return names.some((name) => name === '') ? undefined : names;
}

/** Command-line text: `all`, or connection ids separated by commas; undefined when an id is empty. */
export function parseConnectionList(text: string): 'all' | string[] | undefined {
  if (text === 'all') return 'all';
  const ids = text.split(',');
  return ids.some((id) => id === '') ? undefined : ids;
}
