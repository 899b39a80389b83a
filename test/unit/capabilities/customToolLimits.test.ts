import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { customTool } from '../../../src/capabilities/customTools/customTool.js';
import { checkDefinition, type DefinitionContext } from '../../../src/capabilities/customTools/toolDefinition.js';
import { readToolsFile } from '../../../src/capabilities/customTools/toolsFile.js';
import { validateArguments } from '../../../src/capabilities/schema.js';
import { CUSTOM_TOOLS } from '../../../src/core/contract.js';
import type { SavedConnection } from '../../../src/db/connections/savedConnections.js';

/** The numbers of CUSTOM_TOOLS (docs/limits.md, "Custom tools"), each at and past its bound. */

const demo = { id: 'demo', name: 'Demo', engine: 'sqlite', path: '/nonexistent.sqlite' } as SavedConnection;
const context: DefinitionContext = { taken: new Set(), connection: (id) => (id === 'demo' ? demo : undefined) };
const tool = (fields: Record<string, unknown> = {}) => ({ name: 't', description: 'd', connection: 'demo', statement: 'SELECT 1', kind: 'read', ...fields });
const params = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `p${i}`, type: 'integer' }));
const withParams = (n: number) => tool({ statement: `SELECT ${params(n).map((p) => `:${p.name}`).join(', ') || '1'}`, parameters: params(n) });

describe('custom tool limits', () => {
  it(`names: at most ${CUSTOM_TOOLS.maxNameChars} characters`, async () => {
    await expect(checkDefinition(tool({ name: 'n'.repeat(CUSTOM_TOOLS.maxNameChars) }), context)).resolves.toMatchObject({ kind: 'read' });
    await expect(checkDefinition(tool({ name: 'n'.repeat(CUSTOM_TOOLS.maxNameChars + 1) }), context)).rejects.toThrow(
      `name must be 1 to ${CUSTOM_TOOLS.maxNameChars} letters, digits, _, - or . (MCP's tool-name rule)`,
    );
  });

  it(`descriptions: at most ${CUSTOM_TOOLS.maxDescriptionChars} characters`, async () => {
    await expect(checkDefinition(tool({ description: 'd'.repeat(CUSTOM_TOOLS.maxDescriptionChars) }), context)).resolves.toBeDefined();
    await expect(checkDefinition(tool({ description: 'd'.repeat(CUSTOM_TOOLS.maxDescriptionChars + 1) }), context)).rejects.toThrow(
      `description must be at most ${CUSTOM_TOOLS.maxDescriptionChars} characters`,
    );
  });

  it(`parameters: at most ${CUSTOM_TOOLS.maxParameters}`, async () => {
    await expect(checkDefinition(withParams(CUSTOM_TOOLS.maxParameters), context)).resolves.toBeDefined();
    await expect(checkDefinition(withParams(CUSTOM_TOOLS.maxParameters + 1), context)).rejects.toThrow(`a tool has at most ${CUSTOM_TOOLS.maxParameters} parameters`);
  });

  it(`string arguments: at most ${CUSTOM_TOOLS.maxStringChars} characters`, async () => {
    const { inputSchema } = customTool(await checkDefinition(tool({ statement: 'SELECT :s', parameters: [{ name: 's', type: 'string' }] }), context));
    expect(validateArguments(inputSchema, { s: 's'.repeat(CUSTOM_TOOLS.maxStringChars) })).toBeDefined();
    expect(() => validateArguments(inputSchema, { s: 's'.repeat(CUSTOM_TOOLS.maxStringChars + 1) })).toThrow(
      `Invalid arguments: arguments.s must have at most ${CUSTOM_TOOLS.maxStringChars} characters`,
    );
  });

  describe('tools in one file', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sluice-tool-limits-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it(`at most ${CUSTOM_TOOLS.maxTools}: the rest are refused one by one, with their lines`, async () => {
      const path = join(dir, 'tools.json');
      const tools = Array.from({ length: CUSTOM_TOOLS.maxTools + 2 }, (_, i) => tool({ name: `t${i}` }));
      writeFileSync(path, `{"tools": [\n${tools.map((t) => JSON.stringify(t)).join(',\n')}\n]}`);
      const read = await readToolsFile(path, context);
      expect(read.definitions).toHaveLength(CUSTOM_TOOLS.maxTools);
      expect(read.refusals).toEqual([
        { file: path, line: CUSTOM_TOOLS.maxTools + 2, reason: `past the first ${CUSTOM_TOOLS.maxTools} tools` },
        { file: path, line: CUSTOM_TOOLS.maxTools + 3, reason: `past the first ${CUSTOM_TOOLS.maxTools} tools` },
      ]);
    });
  });
});
