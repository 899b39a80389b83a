import { describe } from 'vitest';
import { at, ruleTester } from './ruleTester.js';
import forbiddenImports from '../../../eslint/forbiddenImports.js';

const tester = ruleTester({ typescript: true });
const io = (why: string, specifier: string) => `src/sql does no I/O: ${why} ('${specifier}'); the engines in src/db run SQL`;

describe('sluice/sql-without-io', () => {
  tester.run('sql-without-io', forbiddenImports.rules['sql-without-io'] as any, {
    valid: [
      { filename: at('src/sql/classify.ts'), code: "import { tokenize } from './tokens.js'; import { ENGINE_NAMES } from '../core/shared/engineNames.js';" },
      { filename: at('src/sql/tokens.ts'), code: "import { createHash } from 'node:crypto'; import { inspect } from 'node:util';" },
      { filename: at('src/db/engines/sqlite/sqliteDatabase.ts'), code: "import { readFileSync } from 'node:fs'; import pg from 'pg';" },
    ],
    invalid: [
      { filename: at('src/sql/classify.ts'), code: "import { readFileSync } from 'node:fs';", errors: [{ message: io('node:fs does I/O', 'node:fs') }] },
      { filename: at('src/sql/tokens.ts'), code: "import { connect } from 'net';", errors: [{ message: io('node:net does I/O', 'net') }] },
      { filename: at('src/sql/dialects.ts'), code: "export { spawn } from 'node:child_process';", errors: [{ message: io('node:child_process does I/O', 'node:child_process') }] },
      { filename: at('src/sql/countQuery.ts'), code: "const w = await import('node:worker_threads');", errors: [{ message: io('node:worker_threads does I/O', 'node:worker_threads') }] },
      { filename: at('src/sql/browseSql.ts'), code: "import pg from 'pg';", errors: [{ message: io('pg is a driver', 'pg') }] },
      { filename: at('src/sql/insertSql.ts'), code: "import { Client } from 'mysql2/promise';", errors: [{ message: io('mysql2 is a driver', 'mysql2/promise') }] },
      { filename: at('src/sql/classify.ts'), code: "import { DuckDBInstance } from '@duckdb/node-api';", errors: [{ message: io('@duckdb/node-api is a driver', '@duckdb/node-api') }] },
      { filename: at('src/sql/classify.ts'), code: "import type { Client } from 'ssh2';", errors: [{ message: io('ssh2 is a driver', 'ssh2') }] },
    ],
  });
});

const wire = (layer: string, names: string, failure: string) =>
  `src/${layer} may not import ${names}: it throws ${failure}, and capabilities/dbErrors.ts makes the wire error`;
const DRIVER_FAILURE = 'a DriverFailure (db/driverFailure.ts)';
const SQL_REFUSAL = 'a SqlRefusal (sql/sqlRefusal.ts)';

describe('sluice/driver-failures-only', () => {
  tester.run('driver-failures-only', forbiddenImports.rules['driver-failures-only'] as any, {
    valid: [
      { filename: at('src/db/engines/postgres/postgresSessions.ts'), code: "import { DriverFailure } from '../driverFailure.js';" },
      { filename: at('src/db/database.ts'), code: "import { shown } from '../core/errors.js';" },
      { filename: at('src/sql/classify.ts'), code: "import { SqlRefusal } from './sqlRefusal.js';" },
      { filename: at('src/capabilities/dbErrors.ts'), code: "import { ErrorCode, ProtocolError, ToolError } from '../core/errors.js';" },
      { filename: at('src/db/health.ts'), code: "import { ToolError } from './toolError.js';" },
    ],
    invalid: [
      {
        filename: at('src/db/serverDatabase.ts'),
        code: "import { ToolError } from '../core/errors.js';",
        errors: [{ message: wire('db', 'ToolError', DRIVER_FAILURE) }],
      },
      {
        filename: at('src/db/engines/mysql/mysqlSessions.ts'),
        code: "import { ErrorCode, ProtocolError, ToolError } from '../../../core/errors.js';",
        errors: [{ message: wire('db', 'ProtocolError, ToolError', DRIVER_FAILURE) }],
      },
      {
        filename: at('src/db/connections/retirableDatabase.ts'),
        code: "import type { ToolError as Failure } from '../../core/errors.js';",
        errors: [{ message: wire('db', 'ToolError', DRIVER_FAILURE) }],
      },
      {
        filename: at('src/db/statistics.ts'),
        code: "import * as errors from '../core/errors.js';",
        errors: [{ message: wire('db', 'ToolError, ProtocolError, invalidParams, headerMismatch', DRIVER_FAILURE) }],
      },
      {
        filename: at('src/db/engines/sqlite/processPool.ts'),
        code: "export { ProtocolError } from '../../../core/errors.js';",
        errors: [{ message: wire('db', 'ProtocolError', DRIVER_FAILURE) }],
      },
      {
        filename: at('src/sql/classify.ts'),
        code: "import { ToolError } from '../core/errors.js';",
        errors: [{ message: wire('sql', 'ToolError', SQL_REFUSAL) }],
      },
      {
        filename: at('src/sql/tokens.ts'),
        code: "const { invalidParams } = await import('../core/errors.js');",
        errors: [{ message: wire('sql', 'ToolError, ProtocolError, invalidParams, headerMismatch', SQL_REFUSAL) }],
      },
    ],
  });
});
