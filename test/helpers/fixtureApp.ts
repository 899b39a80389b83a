import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppOptions } from '../../src/app/app.js';
import { writeConfig } from '../../src/app/config.js';
import type { Engine } from '../../src/db/database.js';
import { createFixture, type EngineFixture } from './engines.js';
import { startTestApp, type TestApp } from './testApp.js';

export type FixtureApp = { fixture: EngineFixture; app: TestApp; dispose(): Promise<void> };

/** A fresh fixture database on `engine`, saved as the connection `db` of a Sluice of its own. */
export async function startFixtureApp(engine: Engine, options: Partial<AppOptions> = {}): Promise<FixtureApp> {
  const fixture = await createFixture(engine);
  const dataDir = mkdtempSync(join(tmpdir(), `sluice-${engine}-`));
  writeConfig(dataDir, { connections: [fixture.connection] });
  const app = await startTestApp({ ...options, dataDir });
  return {
    fixture,
    app,
    async dispose() {
      await app.dispose();
      await fixture.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
