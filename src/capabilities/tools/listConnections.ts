import { ENGINE_KEYS } from '../../db/engines/registry.js';
import { visibleConnections } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import type { Tool } from '../types.js';
import { listOf, oneOf, record, text } from '../outputSchema.js';

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
        },
        ['description'],
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
      })),
    };
  },
};
