import { randomBytes, timingSafeEqual } from 'node:crypto';
import { scopesForLevel } from './levels.js';
import type { Principal } from './principal.js';

/** The level of the stdio bridge: it may ask to write, and every write still waits for consent. */
export const BRIDGE_LEVEL = 'readWrite';

const BRIDGE_PRINCIPAL: Principal = {
  kind: 'token',
  id: 'bridge',
  name: 'stdio bridge',
  scopes: new Set(scopesForLevel(BRIDGE_LEVEL)),
  connections: 'all',
};

/**
 * The token `sluice bridge` reads from the handshake file. It is minted at each start and lives only
 * in memory and in that file (mode 0600), so a restart rotates it and nothing else ever stores it.
 */
export class BridgeToken {
  readonly plaintext = `slb_${randomBytes(32).toString('base64url')}`;
  readonly #bytes = Buffer.from(this.plaintext);

  /** The bridge's principal when `presented` is this token, compared in constant time. */
  principalFor(presented: string): Principal | undefined {
    const bytes = Buffer.from(presented);
    return bytes.length === this.#bytes.length && timingSafeEqual(bytes, this.#bytes) ? BRIDGE_PRINCIPAL : undefined;
  }
}
