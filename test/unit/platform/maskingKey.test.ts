import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MASKING_KEY_FILE, maskingKey } from '../../../src/platform/maskingKey.js';

/** The installation's key for hashed private columns (issue 30): made once, 0600, the same on every start. */
describe('maskingKey', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-masking-key-'));
  afterEach(() => rmSync(join(dir, MASKING_KEY_FILE), { force: true }));

  it('is made once, readable by its owner alone, and read back the same', () => {
    const key = maskingKey(dir);
    expect(key).toHaveLength(32);
    if (process.platform !== 'win32') expect(statSync(join(dir, MASKING_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(maskingKey(dir).equals(key)).toBe(true);
  });

  it('replaces a file that does not hold a key', () => {
    writeFileSync(join(dir, MASKING_KEY_FILE), 'not a key\n');
    expect(maskingKey(dir)).toHaveLength(32);
    expect(maskingKey(dir).equals(maskingKey(dir))).toBe(true);
  });
});
