import { randomBytes } from 'node:crypto';
import { chmod, link, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { ToolError } from '../core/errors.js';

/** Where an export goes, checked: the normalised absolute path, and whether a file is there already. */
export type ExportTarget = { path: string; exists: boolean; overwrite: boolean };

const statOrUndefined = (path: string) => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

/**
 * Refuses (`invalid_argument`) a relative path, a parent that is not an existing directory, a path that
 * is a directory, and an existing file unless `overwrite`. The path is normalised (`..` resolved), so the
 * user approves the file that will be written.
 */
export function exportTarget(requested: string, overwrite: boolean): ExportTarget {
  if (!isAbsolute(requested)) throw new ToolError('invalid_argument', 'path must be absolute');
  const path = resolve(requested);
  if (!statOrUndefined(dirname(path))?.isDirectory()) throw new ToolError('invalid_argument', `the directory ${dirname(path)} does not exist`);
  const existing = statOrUndefined(path);
  if (existing?.isDirectory()) throw new ToolError('invalid_argument', `${path} is a directory`);
  if (existing && !overwrite) throw new ToolError('invalid_argument', `${path} exists already; pass overwrite: true to replace it`);
  return { path, exists: existing !== undefined, overwrite };
}

/**
 * Writes the export to a temp file beside the target, made (mode 0600) before `fill` writes it, and only
 * once `fill` has finished moves it into place: renamed over the target when `overwrite`, else linked
 * (which fails rather than replace a file that appeared since it was checked). The temp file never
 * outlives the call. Returns the file's size in bytes.
 */
export async function writeExport(target: ExportTarget, fill: (tempPath: string) => Promise<void>): Promise<number> {
  const temp = join(dirname(target.path), `.${basename(target.path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    // Made 0600 before a byte is in it; set again in case the writer replaced the file.
    await (await open(temp, 'wx', 0o600)).close();
    await fill(temp);
    await chmod(temp, 0o600);
    const handle = await open(temp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (target.overwrite) await rename(temp, target.path);
    else {
      await link(temp, target.path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') throw new ToolError('invalid_argument', `${target.path} exists already; pass overwrite: true to replace it`);
        throw error;
      });
    }
    return (await stat(target.path)).size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined || error instanceof ToolError) throw error;
    const caller = code === 'EACCES' || code === 'EPERM' || code === 'EROFS';
    throw new ToolError(caller ? 'invalid_argument' : 'internal_failure', `cannot write ${target.path} (${code})`);
  } finally {
    await rm(temp, { force: true });
  }
}

/** The temp file opened for `write` to fill; closed when it is done. */
export async function withTempFile(path: string, write: (file: FileHandle) => Promise<void>): Promise<void> {
  const file = await open(path, 'w');
  try {
    await write(file);
  } finally {
    await file.close();
  }
}
