import { ENGINE_KEYS } from '../../db/engines/registry.js';
import { visibleConnections } from '../connectionArgs.js';
import { readOnlyAnnotations } from '../readOnlyAnnotations.js';
import type { Tool } from '../types.js';

export const listConnections: Tool = {
  name: 'list_connections',
  title: 'List connections',
  description:
    'Lists the database connections the user has saved and allowed you to use. Start here: every other tool takes a connection_id from this list.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: {
    type: 'object',
    properties: {
      connections: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            engine: { type: 'string', enum: ENGINE_KEYS },
            description: { type: 'string' },
            external_access: { type: 'string', enum: ['readOnly', 'readWrite'] },
            ai_policy: { type: 'string', enum: ['askEachTime', 'always'] },
          },
          required: ['id', 'name', 'engine', 'external_access', 'ai_policy'],
        },
      },
    },
    required: ['connections'],
  },
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
