import { join } from 'node:path';
import { createDemoDatabase } from '../db/demo/seed.js';
import { type Config, readConfig, writeConfig } from '../db/connections/savedConnections.js';
import { SECRETS_IN_FILES, type SecretHome } from '../platform/secretHome.js';

export const DEMO_FILE = 'demo.sqlite';

/** The saved configuration; on first run, a demo database and a config naming it. */
export function loadOrCreateConfig(dataDir: string, secrets: SecretHome = SECRETS_IN_FILES): Config {
  const existing = readConfig(dataDir, secrets);
  if (existing) return existing;
  const path = join(dataDir, DEMO_FILE);
  createDemoDatabase(path);
  const config: Config = {
    connections: [
      {
        id: 'demo',
        name: 'Demo bookshop',
        engine: 'sqlite',
        path,
        description:
          'An embedded SQLite demo: a small online bookshop with books, authors, customers, orders and reviews.',
        externalAccess: 'readWrite',
        aiPolicy: 'askEachTime',
      },
    ],
  };
  writeConfig(dataDir, config);
  return config;
}
