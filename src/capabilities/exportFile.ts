import { randomBytes } from 'node:crypto';
import { chmod, link, open, rename, rm, stat } from 'node:fs/promises';
import { accessSync, constants, lstatSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { EXPORTS } from '../core/contract.js';
import { ToolError } from '../core/errors.js';

/** Where an export goes, checked: the normalised absolute path, and whether a file is there already. */
export type ExportTarget = { path: string; exists: boolean; overwrite: boolean };

const statOrUndefined = (path: string, stats = statSync) => {
  try {
    return stats(path);
  } catch {
    return undefined;
  }
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Names Windows gives to devices, whatever the extension: a file cannot have one. */
const WINDOWS_DEVICES = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
/** Characters Windows refuses in a file name. */
const WINDOWS_FORBIDDEN = /[<>:"|?*]/;

const codePoint = (char: string) => `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * What is wrong with an absolute, normalised path as the name of a new file on `platform`, or undefined:
 * a control character (NUL included), a file name past `EXPORTS.maxNameBytes` bytes of UTF-8 or a path
 * past `EXPORTS.maxPathBytes`, and on Windows a device name or a character it refuses. Checked before
 * anyone is asked to approve the export, so an approved export never fails for its name.
 */
export function pathProblem(path: string, platform: NodeJS.Platform = process.platform): string | undefined {
  const control = CONTROL.exec(path)?.[0];
  if (control !== undefined) return `path must not contain a control character (${codePoint(control)})`;
  const pathBytes = Buffer.byteLength(path);
  if (pathBytes > EXPORTS.maxPathBytes) return `path is ${pathBytes} bytes long; at most ${EXPORTS.maxPathBytes} are allowed`;
  const names = path.split(platform === 'win32' ? /[\\/]/ : '/');
  for (const name of names) {
    const bytes = Buffer.byteLength(name);
    if (bytes > EXPORTS.maxNameBytes) return `the name ${name.slice(0, 20)}… is ${bytes} bytes long; a file or directory name may have at most ${EXPORTS.maxNameBytes}`;
  }
  if (platform !== 'win32') return undefined;
  const name = names.at(-1) ?? '';
  const forbidden = WINDOWS_FORBIDDEN.exec(path.slice(path.indexOf(':') + 1))?.[0];
  if (forbidden !== undefined) return `path must not contain ${forbidden} on Windows`;
  if (WINDOWS_DEVICES.test(name)) return `${name} is the name of a device on Windows, not of a file`;
  return undefined;
}

/**
 * Refuses (`invalid_argument`, naming the problem) a relative path, one `pathProblem` finds wrong, a
 * parent that is not an existing directory this process may write in, a path that is a directory or
 * anything but a regular file, and an existing file unless `overwrite`. The path is normalised (`..`
 * resolved), so the user approves the file that will be written.
 */
export function exportTarget(requested: string, overwrite: boolean): ExportTarget {
  if (!isAbsolute(requested)) throw new ToolError('invalid_argument', 'path must be absolute');
  const path = resolve(requested);
  const problem = pathProblem(path);
  if (problem) throw new ToolError('invalid_argument', problem);
  const directory = dirname(path);
  if (!statOrUndefined(directory)?.isDirectory()) throw new ToolError('invalid_argument', `the directory ${directory} does not exist`);
  try {
    accessSync(directory, constants.W_OK | constants.X_OK);
  } catch {
    throw new ToolError('invalid_argument', `the directory ${directory} is not writable`);
  }
  const existing = statOrUndefined(path, lstatSync);
  if (existing?.isDirectory()) throw new ToolError('invalid_argument', `${path} is a directory`);
  if (existing && !existing.isFile()) throw new ToolError('invalid_argument', `${path} exists and is not a regular file`);
  if (existing && !overwrite) throw new ToolError('invalid_argument', `${path} exists already; pass overwrite: true to replace it`);
  return { path, exists: existing !== undefined, overwrite };
}

/**
 * Writes the export to a temp file beside the target, made (mode 0600) before `fill` writes it, and only
 * once `fill` has finished moves it into place: renamed over the target when `overwrite`, else linked
 * (which fails rather than replace a file that appeared since it was checked). The temp file never
 * outlives the call: a failed or cancelled `fill` leaves nothing behind. Its name does not grow with
 * the target's, so any name `pathProblem` lets through has room for it. Returns the file's size in bytes.
 */
export async function writeExport(target: ExportTarget, fill: (tempPath: string) => Promise<void>): Promise<number> {
  const temp = join(dirname(target.path), `.sluice-export-${randomBytes(6).toString('hex')}.tmp`);
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
    // A failure of the read or a cancellation passes as it is; only the file system's own errors are mapped.
    if (typeof code !== 'string' || error instanceof ToolError) throw error;
    const caller = code === 'EACCES' || code === 'EPERM' || code === 'EROFS';
    throw new ToolError(caller ? 'invalid_argument' : 'internal_failure', `cannot write ${target.path} (${code})`);
  } finally {
    await rm(temp, { force: true });
  }
}
