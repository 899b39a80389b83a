import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const MAC_BYTES = 16;

/**
 * Text sealed with an HMAC-SHA-256 (first 16 bytes) under a key made at start: `seal` gives
 * `base64url(mac ‖ text)`, and `open` the text back only when the mac is the key's, so a sealed text
 * can be neither forged nor edited, and none outlives the process. The text itself is readable.
 */
export class TextSeal {
  readonly #key: Buffer;

  constructor(key: Buffer = randomBytes(32)) {
    this.#key = key;
  }

  #mac(text: string): Buffer {
    return createHmac('sha256', this.#key).update(text).digest().subarray(0, MAC_BYTES);
  }

  seal(text: string): string {
    return Buffer.concat([this.#mac(text), Buffer.from(text)]).toString('base64url');
  }

  /** The sealed text, or undefined when `sealed` is not something this key sealed. */
  open(sealed: string): string | undefined {
    const raw = Buffer.from(sealed, 'base64url');
    const mac = raw.subarray(0, MAC_BYTES);
    const text = raw.subarray(MAC_BYTES).toString();
    return mac.length === MAC_BYTES && timingSafeEqual(mac, this.#mac(text)) ? text : undefined;
  }
}
