import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DriverFailure } from '../../driverFailure.js';
import { DATABASES } from '../../../core/contract.js';

/** Where a DuckDB connection's database lives, and the one directory its statements may read files from. */
export type DuckdbTarget = { path: string; filesDir?: string };

/** An instance in use: `release` once done with it; the last user's release closes it. */
export type HeldInstance = { instance: DuckDBInstance; release(): void };

type Shared = { instance: Promise<DuckDBInstance>; filesDir: string | undefined; users: number };

/**
 * The open instances of DuckDB files in this process, by the file's real path. Two instances of one
 * file each keep their own catalog and write-ahead log, and what is written through one is lost when
 * the other closes (measured: a table and a row written through the second never reached the file). So
 * every connection to a file, and a connection check, shares one instance.
 */
const OPEN = new Map<string, Shared>();

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The settings that fence a DuckDB instance in, locked so no statement can change them: its memory and
 * threads (`DATABASES`), no file outside `filesDir` (none at all without one), no extension installed or loaded.
 */
function fenceSql(filesDir: string | undefined): string[] {
  return [
    `SET memory_limit = '${DATABASES.duckdbMemoryLimitMb}MiB'`,
    `SET threads = ${DATABASES.duckdbThreads}`,
    ...(filesDir === undefined ? [] : [`SET allowed_directories = [${literal(filesDir + sep)}]`]),
    'SET enable_external_access = false',
    'SET autoinstall_known_extensions = false',
    'SET autoload_known_extensions = false',
    'SET lock_configuration = true',
  ];
}

async function fencedInstance(path: string, filesDir: string | undefined): Promise<DuckDBInstance> {
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(path);
  } catch (error) {
    throw new DriverFailure('not_connected', `cannot open the DuckDB database: ${(error as Error).message}`);
  }
  const setup = await instance.connect();
  try {
    for (const sql of fenceSql(filesDir)) await setup.run(sql);
  } catch (error) {
    instance.closeSync();
    throw new DriverFailure('not_connected', `cannot restrict the DuckDB database's memory, threads and file access: ${(error as Error).message}`);
  } finally {
    setup.closeSync();
  }
  return instance;
}

/** The file's real path (a link followed), or the resolved path of a file not made yet. */
function fileKey(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The fenced instance of `target`'s database: the one already open on the same file, or a new one
 * (`:memory:` is always new). A file open with one files directory is refused to a connection with
 * another: the directory is a setting of the instance, and it is locked.
 */
export async function holdInstance(target: DuckdbTarget): Promise<HeldInstance> {
  const filesDir = target.filesDir === undefined ? undefined : resolve(target.filesDir);
  if (target.path === ':memory:') {
    const instance = await fencedInstance(target.path, filesDir);
    return { instance, release: () => instance.closeSync() };
  }
  const key = fileKey(target.path);
  let shared = OPEN.get(key);
  if (shared && shared.filesDir !== filesDir) {
    throw new DriverFailure('not_connected', `the DuckDB file ${target.path} is open already with ${shared.filesDir === undefined ? 'no files directory' : `the files directory ${shared.filesDir}`}; one file has one files directory`);
  }
  if (!shared) {
    const opening: Shared = { instance: fencedInstance(target.path, filesDir), filesDir, users: 0 };
    OPEN.set(key, opening);
    opening.instance.catch(() => OPEN.get(key) === opening && OPEN.delete(key));
    shared = opening;
  }
  shared.users += 1;
  const held = shared;
  let instance: DuckDBInstance;
  try {
    instance = await held.instance;
  } catch (error) {
    held.users -= 1;
    throw error;
  }
  let released = false;
  return {
    instance,
    release() {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users > 0) return;
      if (OPEN.get(key) === held) OPEN.delete(key);
      instance.closeSync();
    },
  };
}
