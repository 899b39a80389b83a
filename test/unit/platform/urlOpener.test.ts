import { describe, expect, it } from 'vitest';
import { urlOpener } from '../../../src/platform/urlOpener.js';

/** Callbacks a client may name (private-use schemes carry almost any character unencoded). */
const HOSTILE = [
  'myapp://cb?code=1&calc.exe',
  'myapp://cb?code=1|whoami',
  'myapp://cb?code=1^&^&calc',
  'myapp:cb"&calc&"',
  'myapp://cb?code=%USERPROFILE%',
  "myapp://cb?x=$(id)`id`;id",
  'myapp://cb?x=a b\nc',
];

describe('urlOpener: one argument, unchanged, never a shell', () => {
  it.each(['linux', 'darwin', 'win32', 'freebsd'] as const)('%s', (platform) => {
    for (const raw of HOSTILE) {
      const url = new URL(raw).href;
      const { command, args } = urlOpener(platform, url);
      expect(args.at(-1)).toBe(url);
      expect(args.filter((arg) => arg.includes(url))).toHaveLength(1);
      expect(command).not.toMatch(/^(cmd|cmd\.exe|sh|bash|powershell|pwsh)$/i);
      expect(args).not.toContain('/c');
    }
  });

  it('names each platform’s opener', () => {
    expect(urlOpener('win32', 'x:y')).toEqual({ command: 'rundll32.exe', args: ['url.dll,FileProtocolHandler', 'x:y'] });
    expect(urlOpener('darwin', 'x:y')).toEqual({ command: 'open', args: ['x:y'] });
    expect(urlOpener('linux', 'x:y')).toEqual({ command: 'xdg-open', args: ['x:y'] });
  });
});
