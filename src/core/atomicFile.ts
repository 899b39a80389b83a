import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const TEMP_FILE = /^\.[0-9a-f]{12}\.tmp$/;

/**
 * Writes `contents` so that readers see the old file or the new one, never a torn one: temp file, every
 * byte written and fsynced, rename, then the directory fsynced so the rename itself survives a power cut.
 */
export function writeFileAtomic(path: string, contents: string, mode = 0o600): void {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', mode);
  try {
    const bytes = Buffer.from(contents, 'utf8');
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** Temp files a process killed mid-write left behind in `dir` (never read; safe to remove when no writer runs). */
export function removeStaleTempFiles(dir: string): void {
  for (const name of readdirSync(dir)) if (TEMP_FILE.test(name)) rmSync(join(dir, name), { force: true });
}

/**
 * `writeFileAtomic` for contents too large to build or write in one turn: `pieces` are written in order
 * through a file handle (each write leaves the loop free), then fsync, rename and the directory's fsync.
 */
export async function writeFileAtomicPieces(path: string, pieces: AsyncIterable<string>, mode = 0o600): Promise<void> {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temp, 'wx', mode);
  try {
    for await (const piece of pieces) await file.write(piece, null, 'utf8');
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(temp, { force: true });
    throw error;
  }
  await file.close();
  await rename(temp, path);
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
