import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, spawnServe, waitForHandshake } from '../helpers/cli.js';

/** `serve --log-file`, which the Windows login task uses: stderr goes to the file, stdout stays where it was. */

const root = mkdtempSync(join(tmpdir(), 'sluice-log-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('sluice serve --log-file', () => {
  it('appends stderr to the file (mode 0600, its folder created) and keeps the console link out of it', async () => {
    const dataDir = join(root, 'data');
    const logFile = join(root, 'logs here', 'sluice.log');
    const serve = spawnServe(['--port', '0', '--data-dir', dataDir, '--log-file', logFile], { SLUICE_HOME: '' });
    await waitForHandshake(dataDir);
    serve.child.kill('SIGTERM');
    expect((await exited(serve.child)).code).toBe(0);
    expect(serve.stderr()).toBe('');
    expect(serve.stdout()).toContain('  console: http://127.0.0.1:');
    const log = readFileSync(logFile, 'utf8');
    expect(log.endsWith('sluice: SIGTERM received, stopping\n')).toBe(true);
    expect(log).not.toContain('console: http');
    expect(statSync(logFile).mode & 0o777).toBe(0o600);
  });
});
