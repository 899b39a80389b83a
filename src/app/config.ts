import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPlainObject } from '../protocol/jsonrpc.js';
import { writeFileAtomic } from './atomicFile.js';

export const externalAccessLevels = ['blocked', 'readOnly', 'readWrite'] as const;
export const aiPolicies = ['never', 'askEachTime', 'always'] as const;

export type SavedConnection = {
  id: string;
  name: string;
  engine: 'sqlite';
  /** Path of the SQLite file. */
  path: string;
  description?: string;
  externalAccess: (typeof externalAccessLevels)[number];
  aiPolicy: (typeof aiPolicies)[number];
};

export type Config = { connections: SavedConnection[] };

export const CONFIG_FILE = 'config.json';

export class ConfigError extends Error {}

/** Validates one saved connection (from the file, or from `sluice connections add`). */
export function parseConnection(value: unknown, where: string): SavedConnection {
  if (!isPlainObject(value)) throw new ConfigError(`${where} must be an object`);
  const {
    id,
    name,
    engine,
    path,
    description,
    externalAccess = 'readOnly',
    aiPolicy = 'askEachTime',
  } = value;
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
    throw new ConfigError(`${where}.id must be 1 to 64 letters, digits, _ or -`);
  }
  if (typeof name !== 'string' || name.length === 0) throw new ConfigError(`${where}.name must be a string`);
  if (engine !== 'sqlite') throw new ConfigError(`${where}.engine must be "sqlite"`);
  if (typeof path !== 'string' || path.length === 0)
    throw new ConfigError(`${where}.path must be a file path`);
  if (!externalAccessLevels.includes(externalAccess as never)) {
    throw new ConfigError(`${where}.externalAccess must be one of ${externalAccessLevels.join(', ')}`);
  }
  if (!aiPolicies.includes(aiPolicy as never)) {
    throw new ConfigError(`${where}.aiPolicy must be one of ${aiPolicies.join(', ')}`);
  }
  return {
    id,
    name,
    engine,
    path,
    ...(typeof description === 'string' ? { description } : {}),
    externalAccess: externalAccess as SavedConnection['externalAccess'],
    aiPolicy: aiPolicy as SavedConnection['aiPolicy'],
  };
}

export function readConfig(dataDir: string): Config | undefined {
  const file = join(dataDir, CONFIG_FILE);
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(raw) || !Array.isArray(raw.connections)) {
    throw new ConfigError(`${file} must be an object with a "connections" array`);
  }
  const connections = raw.connections.map((c, index) => parseConnection(c, `${CONFIG_FILE}: connections[${index}]`));
  const ids = new Set(connections.map((c) => c.id));
  if (ids.size !== connections.length) throw new ConfigError(`${file}: connection ids must be unique`);
  return { connections };
}

export function writeConfig(dataDir: string, config: Config): void {
  writeFileAtomic(join(dataDir, CONFIG_FILE), `${JSON.stringify(config, null, 2)}\n`);
}
