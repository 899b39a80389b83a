import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Writes `contents` so that readers see the old file or the new one, never a torn one (temp + fsync + rename). */
export function writeFileAtomic(path: string, contents: string, mode = 0o600): void {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', mode);
  try {
    writeSync(fd, contents);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}
