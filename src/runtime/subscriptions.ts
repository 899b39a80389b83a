import type { SubscriptionCloseReason } from '../../machines/subscription.js';
import { subscriptionId, type Supervisor } from '../../machines/supervisor.js';
import { canUseConnection } from '../auth/access.js';
import { rateLimited } from '../auth/callerLimits.js';
import type { Principal } from '../auth/principal.js';
import { connectionUri } from '../protocol/resourceUri.js';
import type { Change } from '../db/connections/changeFeed.js';
import type { ConnectionCatalog } from '../db/connections/connectionCatalog.js';
import { ActorKeys } from './actorKeys.js';
import type { AppClock } from '../core/clock.js';
import { SUBSCRIPTIONS } from '../core/contract.js';

export type Honoured = { resourcesListChanged?: true; resourceSubscriptions?: string[]; toolsListChanged?: true };

/** Hears each change of the tool list (the custom tools); returns the function that stops listening. */
export type ToolListChanges = (listener: () => void) => () => void;

export type ListenOptions = {
  principal: Principal;
  requestId: string | number;
  honoured: Honoured;
  connected: () => boolean;
  keepAlive: () => void;
  notify: (method: string, params: Record<string, unknown>) => void;
};

const schemaUri = (connectionId: string) => connectionUri(connectionId, 'schema');

/**
 * `subscriptions/listen` streams as `subscription` actors. Each hears schema changes of the connections
 * it subscribed to (made through Sluice at once; made elsewhere within 5 s) and changes to the set of
 * connections its caller can see, and, when asked, each change of the tool list (custom tools).
 */
export class Subscriptions {
  readonly #supervisor: Supervisor;
  readonly #catalog: ConnectionCatalog;
  readonly #clock: AppClock;
  readonly #toolChanges: ToolListChanges;
  /** Reused keys: see ActorKeys. */
  readonly keys = new ActorKeys(subscriptionId);
  /** Open streams per principal. */
  readonly #open = new Map<string, number>();

  constructor(supervisor: Supervisor, catalog: ConnectionCatalog, clock: AppClock, toolChanges: ToolListChanges = () => () => {}) {
    this.#supervisor = supervisor;
    this.#catalog = catalog;
    this.#clock = clock;
    this.#toolChanges = toolChanges;
  }

  /**
   * Takes one of the caller's stream slots, or refuses with `-33010` (429, `Retry-After`) when it has
   * `SUBSCRIPTIONS.maxStreamsPerToken` open; returns the function that gives the slot back.
   */
  admit(principal: Principal): () => void {
    const open = this.#open.get(principal.id) ?? 0;
    if (open >= SUBSCRIPTIONS.maxStreamsPerToken) {
      throw rateLimited(SUBSCRIPTIONS.retryAfterSeconds, `Rate limited: at most ${SUBSCRIPTIONS.maxStreamsPerToken} open subscriptions/listen streams per token`);
    }
    this.#open.set(principal.id, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(principal.id) ?? 1) - 1;
      if (left === 0) this.#open.delete(principal.id);
      else this.#open.set(principal.id, left);
    };
  }

  /**
   * What of a request can be honoured: list changes, and schema URIs of connections the caller can see.
   * A caller limited to custom tools reads no resources, so hears only of the tool list.
   */
  honour(principal: Principal, requested: { resourcesListChanged?: unknown; resourceSubscriptions?: string[]; toolsListChanged?: unknown }): Honoured {
    if (principal.tools) return requested.toolsListChanged === true ? { toolsListChanged: true } : {};
    const visible = new Set(this.#visible(principal));
    const uris = (requested.resourceSubscriptions ?? []).filter((uri) =>
      [...visible].some((id) => schemaUri(id) === uri),
    );
    return {
      ...(requested.resourcesListChanged === true ? { resourcesListChanged: true } : {}),
      ...(uris.length > 0 ? { resourceSubscriptions: [...new Set(uris)] } : {}),
      ...(requested.toolsListChanged === true ? { toolsListChanged: true } : {}),
    };
  }

  #visible(principal: Principal): string[] {
    return this.#catalog
      .all()
      .filter((c) => canUseConnection(principal, c))
      .map((c) => c.id);
  }

  listen(options: ListenOptions): Promise<SubscriptionCloseReason> {
    const { principal, honoured, notify } = options;
    const watched = new Set((honoured.resourceSubscriptions ?? []).map((uri) => uri.split('/')[3] as string));
    let visible = this.#visible(principal).join('\n');
    // The schema version each watched connection had when last seen; a change through Sluice re-baselines it.
    const versions = new Map<string, unknown>();
    const schemaChanged = (connectionId: string) =>
      notify('notifications/resources/updated', { uri: schemaUri(connectionId) });
    const onChange = (change: Change) => {
      if (change.type === 'schema' && watched.has(change.connectionId)) {
        versions.delete(change.connectionId);
        schemaChanged(change.connectionId);
      } else if (change.type === 'connections' && honoured.resourcesListChanged) {
        const now = this.#visible(principal).join('\n');
        if (now !== visible) notify('notifications/resources/list_changed', {});
        visible = now;
      }
    };
    const stopCatalog = this.#catalog.changes.subscribe(onChange);
    const stopTools = honoured.toolsListChanged ? this.#toolChanges(() => notify('notifications/tools/list_changed', {})) : () => {};
    const stopListening = () => {
      stopCatalog();
      stopTools();
    };
    const stopPolling = this.#pollSchemas([...watched], versions, schemaChanged);
    return new Promise((resolve) => {
      this.#supervisor.send({
        type: 'subscription.start',
        key: this.keys.take(),
        input: {
          principalId: principal.id,
          requestId: options.requestId,
          connected: options.connected,
          keepAlive: options.keepAlive,
          settle: (reason) => {
            stopListening();
            stopPolling();
            resolve(reason);
          },
        },
      });
    });
  }

  /** Notices schema changes made outside Sluice by polling each engine's own schema fingerprint. */
  #pollSchemas(connectionIds: string[], versions: Map<string, unknown>, changed: (id: string) => void): () => void {
    if (connectionIds.length === 0) return () => {};
    const controller = new AbortController();
    let timer: unknown;
    const check = async () => {
      for (const id of connectionIds) {
        const connection = this.#catalog.get(id);
        if (!connection || controller.signal.aborted) continue;
        const version = await this.#catalog
          .database(connection)
          .schemaVersion(controller.signal)
          .catch(() => undefined);
        if (version === undefined) continue;
        if (versions.has(id) && versions.get(id) !== version) changed(id);
        versions.set(id, version);
      }
      if (!controller.signal.aborted) timer = this.#clock.setTimeout(() => void check(), SUBSCRIPTIONS.schemaPollMs);
    };
    void check();
    return () => {
      controller.abort();
      this.#clock.clearTimeout(timer);
    };
  }
}
