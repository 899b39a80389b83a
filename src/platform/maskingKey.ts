import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/atomicFile.js';

export const MASKING_KEY_FILE = 'masking.key';

/**
 * The installation's key for hashed private columns, in the data folder (mode 0600): made once, so a
 * value hashes alike across restarts; a file that does not hold one (64 hex digits) is replaced.
 */
export function maskingKey(dataDir: string): Buffer {
  const file = join(dataDir, MASKING_KEY_FILE);
  const kept = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (/^[0-9a-f]{64}$/.test(kept)) return Buffer.from(kept, 'hex');
  const key = randomBytes(32);
  writeFileAtomic(file, `${key.toString('hex')}\n`, 0o600);
  return key;
}
