import { describe } from 'vitest';
import { at, ruleTester } from './ruleTester.js';
import engineModules from '../../../eslint/engineModules.js';

const tester = ruleTester({ typescript: true });
const folder = (engine: string) =>
  `src/db/engines/${engine}/ is imported only by its own folder and the registry: ask engineModule('${engine}') in src/db/engines/registry.ts`;
const named = (engine: string) =>
  `'${engine}' is compared against outside src/db/engines/${engine}/: ask the engine module (engineModule(engine).<capability>) instead of testing the engine's name`;

describe('sluice/engine-modules', () => {
  tester.run('engine-modules', engineModules.rules['engine-modules'] as any, {
    valid: [
      { filename: at('src/db/engines/registry.ts'), code: "import { postgres } from './postgres/index.js'; const x = e === 'duckdb';" },
      { filename: at('src/db/engines/postgres/index.ts'), code: "import { PostgresDatabase } from './postgresDatabase.js'; const x = e === 'postgres';" },
      { filename: at('src/capabilities/effectPreview.ts'), code: "import { engineModule } from '../db/engines/registry.js'; const n = { engine: 'sqlite' };" },
      { filename: at('src/sql/tokens.ts'), code: "if (engine === 'mysql') f();" },
      { filename: at('src/db/connections/savedConnections.ts'), code: "const inFile = engine === 'sqlite' || engine === 'duckdb';" },
      { filename: at('test/e2e/engines.test.ts'), code: "import { x } from '../../src/db/engines/postgres/postgresParser.js'; const y = e === 'postgres';" },
      { filename: at('src/capabilities/x.ts'), code: "const x = kind === 'postgresql';" },
    ],
    invalid: [
      {
        filename: at('src/capabilities/effectPreview.ts'),
        code: "import { postgresRowSelection } from '../db/engines/postgres/postgresRowSelection.js';",
        errors: [{ message: folder('postgres') }],
      },
      {
        filename: at('src/db/connections/connectionCatalog.ts'),
        code: "export { SqliteProcessPool } from '../engines/sqlite/processPool.js'; const p = import('../engines/duckdb/parquetFile.js');",
        errors: [{ message: folder('sqlite') }, { message: folder('duckdb') }],
      },
      {
        filename: at('src/db/engines/duckdb/duckdbDatabase.ts'),
        code: "import { parser } from '../postgres/postgresParser.js'; const x = engine === 'postgres';",
        errors: [{ message: folder('postgres') }, { message: named('postgres') }],
      },
      {
        filename: at('src/capabilities/statementArgs.ts'),
        code: "const n = engine === 'sqlite' ? 1 : 0; if ('mysql' !== db.engine) f();",
        errors: [{ message: named('sqlite') }, { message: named('mysql') }],
      },
      {
        filename: at('src/db/catalog/statistics.ts'),
        code: "switch (db.engine) { case 'duckdb': break; }",
        errors: [{ message: named('duckdb') }],
      },
      // Once exceptions: each now asks its dialect, its URL scheme or the statement itself.
      ...[
        ['src/db/reach/tlsSettings.ts', 'mysql'],
        ['src/db/connections/connectionEdits.ts', 'duckdb'],
        ['src/db/connections/connectionUrl.ts', 'postgres'],
        ['src/db/analysis/scanAdvice.ts', 'sqlite'],
        ['src/core/shared/statementText.js', 'postgres'],
        ['src/core/shared/engineNames.js', 'sqlite'],
        ['src/cli/duckdbTarget.ts', 'duckdb'],
      ].map(([file, engine]) => ({ filename: at(file as string), code: `const x = e === '${engine}';`, errors: [{ message: named(engine as string) }] })),
    ],
  });
});
