import { describe } from 'vitest';
import { at, ruleTester } from './ruleTester.js';
import sluice, { LAYERS } from '../../../eslint/layers.js';

const tester = ruleTester();
const upward = (from: string, to: string) =>
  `src/${from} may not import src/${to}: layers look down only (${LAYERS.join(' → ')})`;

describe('sluice/layers', () => {
  tester.run('layers', sluice.rules.layers as any, {
    valid: [
      { filename: at('src/db/database.ts'), code: "import { TRANSPORT } from '../core/contract.js';" },
      { filename: at('src/http/httpServer.ts'), code: "import { parse } from '../protocol/jsonRpc.js'; import x from 'node:http';" },
      { filename: at('src/http/guards/host.ts'), code: "export { x } from '../body.js';" },
      { filename: at('src/runtime/machines.ts'), code: "import { pairingRequest } from '../../machines/pairingRequest.js';" },
      { filename: at('machines/supervisor.ts'), code: "import { setup } from 'xstate'; import { unprovided } from './unprovided.js';" },
      { filename: at('src/cli/main.ts'), code: "const m = await import('../app/app.js');" },
    ],
    invalid: [
      {
        filename: at('src/db/database.ts'),
        code: "import { readBody } from '../http/body.js';",
        errors: [{ message: upward('db', 'http') }],
      },
      {
        filename: at('src/core/clock.ts'),
        code: "export * from '../protocol/errors.js';",
        errors: [{ message: upward('core', 'protocol') }],
      },
      {
        filename: at('src/protocol/cursor.ts'),
        code: "const m = await import('../auth/grant.js');",
        errors: [{ message: upward('protocol', 'auth') }],
      },
      {
        filename: at('src/http/mcp/mcpPost.ts'),
        code: "import { pairingRequest } from '../../../machines/pairingRequest.js';",
        errors: [{ message: 'only src/runtime imports machines/; src/http goes through the runtime' }],
      },
      {
        filename: at('machines/pairingCode.ts'),
        code: "import { systemClock } from '../src/core/clock.js';",
        errors: [{ message: "machines/ import only xstate and each other, not '../src/core/clock.js' (effects come in through .provide())" }],
      },
      {
        filename: at('machines/pairingCode.ts'),
        code: "import { randomBytes } from 'node:crypto';",
        errors: [{ message: "machines/ import only xstate and each other, not 'node:crypto' (effects come in through .provide())" }],
      },
      {
        filename: at('src/widgets/thing.ts'),
        code: "import { x } from '../core/clock.js';",
        errors: [{ message: 'src/widgets is not a layer: add it to eslint/layers.js and docs/design.md' }],
      },
    ],
  });
});
