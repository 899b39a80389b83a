// `npm run bundle`: the MCP bundle (.mcpb) for one-click install in Claude Desktop. The bundle is the
// stdio bridge alone (Node built-ins only, no node_modules): it connects to the Sluice the user runs.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const output = join(root, 'dist', `sluice-${version}.mcpb`);
const stage = mkdtempSync(join(tmpdir(), 'sluice-bundle-'));
try {
  for (const file of ['manifest.json', 'package.json', 'README.md']) cpSync(join(root, file), join(stage, file));
  cpSync(join(root, 'dist', 'src'), join(stage, 'dist', 'src'), { recursive: true, filter: (path) => !path.endsWith('.map') });
  const mcpb = join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
  const packed = spawnSync(process.execPath, [mcpb, 'pack', stage, output], { stdio: 'inherit' });
  if (packed.status !== 0) process.exit(packed.status ?? 1);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
