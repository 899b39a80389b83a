import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  clearStaleSocket,
  controlSocketPath,
  newControlSocketPath,
  removeControlSocket,
  restrictSocket,
} from '../../../src/platform/controlSocket.js';

/** The control socket's housekeeping on each platform, the win32 and darwin branches run here on Linux. */
describe('control socket, per platform', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  function dataDir(depth = 0): string {
    const root = mkdtempSync(join(tmpdir(), 'sluice-socket-'));
    roots.push(root);
    const dir = join(root, ...Array.from({ length: depth }, (_, i) => `${i}`.repeat(60)));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /** A file standing in for a socket left by an earlier run, mode 0644. */
  function leftover(dir: string): string {
    const path = join(dir, 'control.sock');
    writeFileSync(path, '', { mode: 0o644 });
    return path;
  }

  it('win32: a named pipe named after the support directory, even a deep one, and no record file', () => {
    const dir = dataDir(2);
    const pipe = `\\\\.\\pipe\\sluice-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}`;
    expect(controlSocketPath(dir, 'win32')).toBe(pipe);
    expect(newControlSocketPath(dir, {}, 'win32')).toBe(pipe);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('win32: no file is removed or re-moded, before, during or after', () => {
    const dir = dataDir();
    const path = leftover(dir);
    clearStaleSocket(path, 'win32');
    restrictSocket(path, 'win32');
    expect(statSync(path).mode & 0o777).toBe(0o644);
    removeControlSocket(dir, path, 'win32');
    expect(existsSync(path)).toBe(true);
  });

  for (const platform of ['darwin', 'linux'] as const) {
    it(`${platform}: control.sock in the support directory`, () => {
      const dir = dataDir();
      expect(controlSocketPath(dir, platform)).toBe(join(dir, 'control.sock'));
      expect(newControlSocketPath(dir, {}, platform)).toBe(join(dir, 'control.sock'));
    });

    it(`${platform}: a leftover socket is removed, the new one opened to the user alone, removed on closing`, () => {
      const dir = dataDir();
      const path = leftover(dir);
      clearStaleSocket(path, platform);
      expect(existsSync(path)).toBe(false);
      leftover(dir);
      restrictSocket(path, platform);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      removeControlSocket(dir, path, platform);
      expect(existsSync(path)).toBe(false);
    });
  }

  it('darwin: a support directory too deep for a socket gets a private directory, removed on closing', () => {
    const dir = dataDir(2);
    const path = newControlSocketPath(dir, {}, 'darwin');
    expect(path).toMatch(/\/sluice-[A-Za-z0-9]{6}\/control\.sock$/);
    expect(controlSocketPath(dir, 'darwin')).toBe(path);
    removeControlSocket(dir, path, 'darwin');
    expect(controlSocketPath(dir, 'darwin')).toBeUndefined();
  });
});
