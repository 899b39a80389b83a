import type { ServerResponse } from 'node:http';
import type { Subscriptions } from '../runtime/subscriptions.js';
import type { Principal } from '../auth/principal.js';
import { META_SERVER_INFO, META_SUBSCRIPTION_ID } from '../protocol/era.js';
import { invalidParams } from '../core/errors.js';
import { isPlainObject, type Params, type RequestId } from '../protocol/jsonrpc.js';
import { serverInfo } from '../protocol/serverInfo.js';

function requestedNotifications(params: Params) {
  const { notifications } = params;
  if (!isPlainObject(notifications)) throw invalidParams('subscriptions/listen needs params.notifications (an object)');
  const uris = notifications.resourceSubscriptions;
  if (uris !== undefined && (!Array.isArray(uris) || uris.some((u) => typeof u !== 'string'))) {
    throw invalidParams('params.notifications.resourceSubscriptions must be an array of resource URIs');
  }
  return {
    resourcesListChanged: notifications.resourcesListChanged,
    resourceSubscriptions: uris as string[] | undefined,
    toolsListChanged: notifications.toolsListChanged,
  };
}

/**
 * `subscriptions/listen`: a long-lived event stream. The first frame acknowledges what will be honoured;
 * every frame carries the subscription id (the request's id); `:` keeps it alive every 15 s; it ends with
 * a `complete` response when the client closes or cancels it, its token is revoked or the server stops.
 */
export async function handleListen(
  res: ServerResponse,
  headers: Record<string, string>,
  subscriptions: Subscriptions,
  principal: Principal,
  message: { id: RequestId; params: Params },
  connected: () => boolean,
): Promise<void> {
  const honoured = subscriptions.honour(principal, requestedNotifications(message.params));
  const release = subscriptions.admit(principal);
  try {
    const meta = { [META_SUBSCRIPTION_ID]: message.id };
    const frame = (payload: unknown) => {
      if (!res.destroyed) res.write(`data: ${JSON.stringify(payload)}\n\n`);
    };
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    frame({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: honoured, _meta: meta } });
    await subscriptions.listen({
      principal,
      requestId: message.id,
      honoured,
      connected,
      keepAlive: () => {
        if (!res.destroyed) res.write(':\n\n');
      },
      notify: (method, params) => frame({ jsonrpc: '2.0', method, params: { ...params, _meta: meta } }),
    });
    frame({ jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', _meta: { ...meta, [META_SERVER_INFO]: serverInfo } } });
    res.end();
  } finally {
    release();
  }
}
