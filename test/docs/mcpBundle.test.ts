import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../helpers/catalogue.js';

/** The MCP bundle's manifest.json and the MCP Registry's server.json, against their schemas and package.json. */

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
const pkg = read('package.json');
const manifest = read('manifest.json');
const server = read('server.json');
const MCPB_CLI = fileURLToPath(new URL('../../node_modules/@anthropic-ai/mcpb/dist/cli/cli.js', import.meta.url));

const mcpbValidate = (file: string) => spawnSync(process.execPath, [MCPB_CLI, 'validate', file], { encoding: 'utf8' });

describe('manifest.json (MCP bundle)', () => {
  it('passes @anthropic-ai/mcpb validate, and a broken copy does not', () => {
    const result = mcpbValidate(fileURLToPath(new URL('../../manifest.json', import.meta.url)));
    expect(result.stdout).toContain('Manifest schema validation passes!');
    expect(result.status).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'sluice-manifest-'));
    try {
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, server: { ...manifest.server, type: 'deno' } }));
      expect(mcpbValidate(join(dir, 'manifest.json')).status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has package.json’s name, version and licence, and runs the bridge of the bundled CLI', () => {
    expect([manifest.name, manifest.version, manifest.license]).toEqual([pkg.name, pkg.version, pkg.license]);
    expect(manifest.server).toEqual({
      type: 'node',
      entry_point: 'dist/src/cli/main.js',
      mcp_config: { command: 'node', args: ['${__dirname}/dist/src/cli/main.js', 'bridge'] },
    });
    expect(pkg.bin.sluice).toBe(manifest.server.entry_point);
    expect(manifest.compatibility.runtimes.node).toBe('>=20.19.0');
    expect(pkg.engines.node).toBe('>=20.19');
  });

  it('lists exactly the catalogue’s tools', () => {
    expect(manifest.tools.map((tool: { name: string }) => tool.name)).toEqual(ALL_TOOLS);
  });
});

describe('server.json (MCP Registry)', () => {
  const schema = JSON.parse(readFileSync(new URL('../fixtures/mcp-registry-server.schema.json', import.meta.url), 'utf8'));
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);

  it('validates against the registry’s 2025-09-29 schema, and a broken copy does not', () => {
    expect(validate(server), JSON.stringify(validate.errors)).toBe(true);
    expect(server.$schema).toBe(schema.$id);
    expect(validate({ ...server, name: 'no-slash' })).toBe(false);
    expect(validate({ ...server, packages: [{ ...server.packages[0], version: 'latest' }] })).toBe(false);
    expect(validate({ ...server, description: 'x'.repeat(101) })).toBe(false);
  });

  it('is package.json’s mcpName and version, and runs `sluice bridge` from the npm package over stdio', () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(pkg.mcpName).toMatch(/^io\.github\.[A-Za-z0-9-]+\/sluice$/);
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toEqual([
      {
        registryType: 'npm',
        identifier: pkg.name,
        version: pkg.version,
        runtimeHint: 'npx',
        transport: { type: 'stdio' },
        packageArguments: [{ type: 'positional', value: 'bridge' }],
      },
    ]);
  });
});
