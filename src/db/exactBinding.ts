import type { ExactValue } from './keptWrites.js';

/**
 * An exact value (keptWrites.ts) as a server driver binds it: text as text, which the server converts to
 * the type of the column it is compared with, set or inserted into; bytes as a Buffer.
 */
export const boundExact = (value: ExactValue): unknown =>
  value === null || typeof value === 'string' ? value : 'b' in value ? Buffer.from(value.b, 'base64') : 'i' in value ? value.i : value.f;
