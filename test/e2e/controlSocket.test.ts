import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { controlSocketPath, newControlSocketPath, removeControlSocketDir } from '../../src/platform/controlSocket.js';
import { callControl } from '../../src/cli/controlClient.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';

describe('the control socket of a deep support directory lives in a private directory (issue 16, finding 11)', () => {
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** A support directory too deep for a Unix socket path, removed after the test. */
  function deepDataDir(): string {
    const root = mkdtempSync(join(tmpdir(), 'sluice-deep-'));
    cleanup.push(() => rmSync(root, { recursive: true, force: true }));
    const dir = join(root, 'd'.repeat(60), 'e'.repeat(60));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  it('a new random 0700 directory, recorded in the support directory; removed with its record', () => {
    const dataDir = deepDataDir();
    const path = newControlSocketPath(dataDir, {});
    expect(path.length).toBeLessThanOrEqual(100);
    expect(dirname(path)).toMatch(/sluice-[A-Za-z0-9]{6}$/);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    expect(controlSocketPath(dataDir)).toBe(path);
    expect(newControlSocketPath(dataDir, {})).not.toBe(path);
    removeControlSocketDir(dataDir);
    expect(controlSocketPath(dataDir)).toBeUndefined();
  });

  it('a recorded path in a directory others can open is not trusted', () => {
    const dataDir = deepDataDir();
    const open = mkdtempSync(join(tmpdir(), 'sluice-open-'));
    chmodSync(open, 0o755);
    writeFileSync(join(dataDir, 'control-socket.path'), join(open, 'control.sock'));
    expect(controlSocketPath(dataDir)).toBeUndefined();
    rmSync(open, { recursive: true });
  });

  it('someone listening on the old predictable /tmp name no longer stops Sluice, and the CLI reaches the real one', async () => {
    const dataDir = deepDataDir();
    const digest = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
    const squatter: Server = createServer((socket) => socket.end('{"id":1,"result":"squatter"}\n'));
    await new Promise<void>((resolve) => squatter.listen(join(tmpdir(), `sluice-${digest}.sock`), resolve));
    cleanup.push(() => new Promise((resolve) => squatter.close(resolve)));
    const app: TestApp = await startTestApp({ dataDir });
    cleanup.push(() => app.dispose());
    const tokens = (await callControl(dataDir, 'tokens.list')) as unknown[];
    expect(Array.isArray(tokens)).toBe(true);
  });

  it('starting again after a crash (a stale record and socket left behind) works', async () => {
    const dataDir = deepDataDir();
    const stale = newControlSocketPath(dataDir, {});
    writeFileSync(stale, '');
    const app = await startTestApp({ dataDir });
    cleanup.push(() => app.dispose());
    expect(controlSocketPath(dataDir)).not.toBe(stale);
    expect(() => statSync(dirname(stale))).toThrow();
    expect(Array.isArray(await callControl(dataDir, 'tokens.list'))).toBe(true);
  });
});
