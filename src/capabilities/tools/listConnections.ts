import { MASK_ACTIONS } from '../../db/connections/columnPolicy.js';
import type { SavedConnection } from '../../db/connections/savedConnections.js';
import { ENGINE_KEYS } from '../../db/engines/registry.js';
import { visibleConnections } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import type { Tool } from '../types.js';
import { listOf, oneOf, record, text } from '../outputSchema.js';

/** The connection's rules, for a caller they hold for (absent when none do, or the caller is exempt). */
function privateColumnsFor(connection: SavedConnection, principalId: string) {
  const policy = connection.columnPolicy;
  if (!policy || policy.rules.length === 0 || policy.exemptTokens.includes(principalId)) return {};
  return { private_columns: policy.rules.map(({ pattern, action }) => ({ pattern, action })) };
}

export const listConnections: Tool = {
  name: 'list_connections',
  title: 'List connections',
  description:
    'Lists the database connections the user has saved and allowed you to use. Start here: every other tool takes a connection_id from this list.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: record({
    connections: listOf(
      record(
        {
          id: text,
          name: text,
          engine: oneOf(ENGINE_KEYS),
          description: text,
          external_access: oneOf(['readOnly', 'readWrite']),
          ai_policy: oneOf(['askEachTime', 'always']),
          private_columns: {
            ...listOf(record({ pattern: text, action: oneOf(MASK_ACTIONS) })),
            description: 'Columns kept private from you (by name or * pattern, in every table): masked, hashed or hidden in answers; use them only as plain columns in the select list.',
          },
        },
        ['description', 'private_columns'],
      ),
    ),
  }),
  annotations: readOnlyAnnotations,
  scopes: [],
  async run(_args, ctx) {
    return {
      connections: visibleConnections(ctx).map((c) => ({
        id: c.id,
        name: c.name,
        engine: c.engine,
        ...(c.description ? { description: c.description } : {}),
        external_access: c.externalAccess,
        ai_policy: c.aiPolicy,
        ...privateColumnsFor(c, ctx.principal.id),
      })),
    };
  },
};
