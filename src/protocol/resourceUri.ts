/** The contract's resource URIs: `sluice://connections/<id>/…`. */
export const CONNECTIONS_URI = 'sluice://connections';

/**
 * Matches `sluice://connections/<segments…>` against a list of literal segments and `{variables}`;
 * returns the decoded variables plus the query parameters named in `query`.
 */
export function matchConnectionUri(
  uri: URL,
  segments: string[],
  query: string[] = [],
): Record<string, string> | undefined {
  if (uri.protocol !== 'sluice:' || uri.host !== 'connections' || uri.hash) return undefined;
  const parts = uri.pathname.split('/').slice(1);
  if (parts.length !== segments.length) return undefined;
  const variables: Record<string, string> = {};
  for (const [i, segment] of segments.entries()) {
    let part: string;
    try {
      part = decodeURIComponent(parts[i] as string);
    } catch {
      return undefined;
    }
    if (segment.startsWith('{')) {
      if (part.length === 0) return undefined;
      variables[segment.slice(1, -1)] = part;
    } else if (part !== segment) return undefined;
  }
  for (const [key, value] of uri.searchParams) {
    if (!query.includes(key)) return undefined;
    variables[key] = value;
  }
  return variables;
}

export const connectionUri = (connectionId: string, ...rest: string[]) =>
  [CONNECTIONS_URI, encodeURIComponent(connectionId), ...rest.map(encodeURIComponent)].join('/');
