import { visibleConnections } from '../connectionArgs.js';
import type { CallContext, ResourceEntry } from '../types.js';
import { connectionUri } from '../../protocol/resourceUri.js';
import { jsonEntry } from './jsonEntry.js';

/** One entry per visible connection: `sluice://connections/<id>/<segment>`, titled `<name>: <label>`. */
export const perConnection = (
  ctx: CallContext,
  segment: string,
  label: string,
  describe: (connectionName: string) => string,
): ResourceEntry[] =>
  visibleConnections(ctx).map((c) =>
    jsonEntry(connectionUri(c.id, segment), `${c.id}-${segment}`, `${c.name}: ${label}`, describe(c.name)),
  );
