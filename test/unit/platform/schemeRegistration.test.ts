import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applySteps, displayCommand, type RunResult, type SchemeHost, type SchemeTarget, schemeRegistrar } from '../../../src/platform/schemeRegistration.js';
import { withoutAssociation } from '../../../src/platform/scheme/mimeappsList.js';

/** Every path a user could have: blanks, both quotes, `$`, a backquote, `%`, a backslash. */
const HOSTILE_SCRIPT = `/srv/it's "quoted" $HOME \`x\` 100%/main.js`;

const plain: SchemeTarget = { home: '/home/ann', env: {}, sluice: ['/usr/bin/node', '/opt/sluice/dist/src/cli/main.js'], dataDir: '/home/ann/.config/sluice' };
const hostile: SchemeTarget = { home: '/home/a b', env: { XDG_DATA_HOME: '/x d/data', XDG_CONFIG_HOME: '/x d/config' }, sluice: ['/opt/my node/bin/node', HOSTILE_SCRIPT], dataDir: '/data/50% off\\dir' };

const ok: RunResult = { status: 0, stdout: '', stderr: '', missing: false };

/** A machine that is only files in a map and programs that answer as told; it records what was run. */
function fakeHost(files: Record<string, string> = {}, answer: (command: string, args: string[]) => RunResult = () => ok) {
  const ran: string[][] = [];
  const host: SchemeHost = {
    readFile: (path) => files[path],
    exists: (path) => Object.keys(files).some((file) => file === path || file.startsWith(`${path}/`)),
    writeFile: (path, content) => void (files[path] = content),
    remove: (path) => {
      for (const file of Object.keys(files)) if (file === path || file.startsWith(`${path}/`)) delete files[file];
    },
    run: (command, args) => {
      ran.push([command, ...args]);
      return answer(command, args);
    },
  };
  return { host, files, ran };
}

describe('Linux: a desktop file and xdg-mime', () => {
  const linux = schemeRegistrar('linux');

  it('installs the desktop file, makes it the default, and updates the MIME cache', () => {
    expect(linux.install(plain)).toEqual([
      {
        kind: 'write',
        path: '/home/ann/.local/share/applications/sluice-url-handler.desktop',
        content: [
          '[Desktop Entry]',
          'Type=Application',
          'Version=1.0',
          'Name=Sluice URL Handler',
          'Comment=Hands sluice:// pairing links to Sluice',
          'Exec=/usr/bin/node /opt/sluice/dist/src/cli/main.js open-url --data-dir /home/ann/.config/sluice -- %u',
          'MimeType=x-scheme-handler/sluice;',
          'NoDisplay=true',
          'Terminal=false',
          '',
        ].join('\n'),
      },
      { kind: 'run', command: 'xdg-mime', args: ['default', 'sluice-url-handler.desktop', 'x-scheme-handler/sluice'] },
      {
        kind: 'run',
        command: 'update-desktop-database',
        args: ['/home/ann/.local/share/applications'],
        ifMissing: 'update-desktop-database was not found (desktop-file-utils): the MIME cache was left as it was',
      },
    ]);
  });

  it('quotes hostile paths as the Desktop Entry spec says, and says what xdg-open cannot read', () => {
    const steps = linux.install(hostile);
    const file = steps[0] as { path: string; content: string };
    expect(file.path).toBe('/x d/data/applications/sluice-url-handler.desktop');
    // Quoted: `"`, `` ` ``, `$` and `\` escaped inside the quotes; `%` doubled; then every `\` doubled as a string value.
    expect(file.content.split('\n')[5]).toBe(
      'Exec="/opt/my node/bin/node" "/srv/it\'s \\\\"quoted\\\\" \\\\$HOME \\\\`x\\\\` 100%%/main.js" open-url --data-dir "/data/50%% off\\\\\\\\dir" -- %u',
    );
    expect(steps.at(-1)).toEqual({
      kind: 'note',
      text: 'note: a path above has blanks or shell characters; GNOME and KDE read the quoted Exec line, but the xdg-open of xdg-utils 1.1 outside them does not',
    });
  });

  const validator = spawnSync('desktop-file-validate', ['--help']).error === undefined;
  it.skipIf(!validator && !process.env.CI)('desktop-file-validate accepts the file, hostile paths and all', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-desktop-'));
    try {
      for (const target of [plain, hostile]) {
        const path = join(dir, 'sluice-url-handler.desktop');
        writeFileSync(path, (linux.install(target)[0] as { content: string }).content);
        const result = spawnSync('desktop-file-validate', [path], { encoding: 'utf8' });
        expect([result.status, result.stdout, result.stderr]).toEqual([0, '', '']);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uninstall removes the file and only its own association; a list left empty goes too', () => {
    const desktop = '/home/ann/.local/share/applications/sluice-url-handler.desktop';
    const list = '/home/ann/.config/mimeapps.list';
    const shared = fakeHost({
      [desktop]: 'x',
      [list]: '[Default Applications]\ntext/html=firefox.desktop\nx-scheme-handler/sluice=sluice-url-handler.desktop\n',
    });
    expect(linux.uninstall(plain, shared.host)).toEqual([
      { kind: 'remove', path: desktop },
      { kind: 'write', path: list, content: '[Default Applications]\ntext/html=firefox.desktop\n' },
      expect.objectContaining({ command: 'update-desktop-database', args: ['/home/ann/.local/share/applications'] }),
    ]);
    const ours = fakeHost({ [list]: '\n[Default Applications]\nx-scheme-handler/sluice=sluice-url-handler.desktop\n' });
    expect(linux.uninstall(plain, ours.host)).toEqual([{ kind: 'remove', path: list }]);
    expect(linux.uninstall(plain, fakeHost().host)).toEqual([]);
  });

  it('is installed only when the file is exactly this one and xdg-mime answers it', () => {
    const path = '/home/ann/.local/share/applications/sluice-url-handler.desktop';
    const content = (linux.install(plain)[0] as { content: string }).content;
    const answered = fakeHost({ [path]: content }, () => ({ ...ok, stdout: 'sluice-url-handler.desktop\n' }));
    expect(linux.isInstalled(plain, answered.host)).toBe(true);
    expect(answered.ran).toEqual([['xdg-mime', 'query', 'default', 'x-scheme-handler/sluice']]);
    expect(linux.isInstalled(plain, fakeHost({ [path]: content }, () => ({ ...ok, stdout: 'other.desktop\n' })).host)).toBe(false);
    // Another support directory: another Exec line.
    expect(linux.isInstalled({ ...plain, dataDir: '/elsewhere' }, answered.host)).toBe(false);
    const none = fakeHost();
    expect(linux.isInstalled(plain, none.host)).toBe(false);
    expect(none.ran).toEqual([]);
  });
});

describe('mimeapps.list: taking one association out', () => {
  it('keeps every other line and handler, in every section', () => {
    const text = [
      '# mine',
      '[Default Applications]',
      'x-scheme-handler/sluice=other.desktop;sluice-url-handler.desktop;',
      'text/plain=sluice-url-handler.desktop',
      '',
      '[Added Associations]',
      'x-scheme-handler/sluice=sluice-url-handler.desktop;',
      '',
    ].join('\n');
    expect(withoutAssociation(text, 'x-scheme-handler/sluice', 'sluice-url-handler.desktop')).toBe(
      ['# mine', '[Default Applications]', 'x-scheme-handler/sluice=other.desktop;', 'text/plain=sluice-url-handler.desktop', '', '[Added Associations]', ''].join('\n'),
    );
    expect(withoutAssociation('[Default Applications]\ntext/html=a.desktop\n', 'x-scheme-handler/sluice', 'sluice-url-handler.desktop')).toBeUndefined();
  });
});

describe('macOS: an AppleScript applet whose Info.plist declares the scheme', () => {
  const macos = schemeRegistrar('darwin');
  const app = '/home/a b/Applications/Sluice URL Handler.app';
  const lsregister = '/System/Library/Frameworks/CoreServices.framework/Frameworks/LaunchServices.framework/Support/lsregister';

  it('compiles the applet, writes its Info.plist, signs it again and registers it', () => {
    const steps = macos.install(hostile);
    const script = [
      'on open location theURL',
      '\ttry',
      '\t\tdo shell script quoted form of "/opt/my node/bin/node" & " " & quoted form of "/srv/it\'s \\"quoted\\" $HOME `x` 100%/main.js" & " " & ' +
        'quoted form of "open-url" & " " & quoted form of "--data-dir" & " " & quoted form of "/data/50% off\\\\dir" & " " & quoted form of "--" & " " & quoted form of theURL',
      '\ton error errorText',
      '\t\tdisplay alert "Sluice could not open the link" message errorText as critical',
      '\tend try',
      'end open location',
    ];
    expect(steps.map((step) => (step.kind === 'write' ? { ...step, content: '…' } : step))).toEqual([
      { kind: 'remove', path: app },
      { kind: 'run', command: 'osacompile', args: ['-o', app, ...script.flatMap((line) => ['-e', line])] },
      { kind: 'write', path: `${app}/Contents/Info.plist`, content: '…' },
      { kind: 'run', command: 'codesign', args: ['--force', '--sign', '-', app] },
      { kind: 'run', command: lsregister, args: ['-f', app] },
    ]);
    const plist = (steps[2] as { content: string }).content;
    expect(plist).toContain(
      [
        '\t<key>CFBundleURLTypes</key>',
        '\t<array>',
        '\t\t<dict>',
        '\t\t\t<key>CFBundleURLName</key>',
        '\t\t\t<string>Sluice pairing link</string>',
        '\t\t\t<key>CFBundleURLSchemes</key>',
        '\t\t\t<array>',
        '\t\t\t\t<string>sluice</string>',
        '\t\t\t</array>',
        '\t\t</dict>',
        '\t</array>',
        '\t<key>LSUIElement</key>',
        '\t<true/>',
      ].join('\n'),
    );
    expect(plist).toContain('<key>CFBundleExecutable</key>\n\t<string>applet</string>');
    expect(plist).toContain(
      ['\t<key>SluiceOpenURLCommand</key>', '\t<array>', '\t\t<string>/opt/my node/bin/node</string>', `\t\t<string>${HOSTILE_SCRIPT}</string>`].join('\n'),
    );
    expect(plist.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist')).toBe(true);
    expect(plist.endsWith('</dict>\n</plist>\n')).toBe(true);
  });

  it('escapes XML in the Info.plist', () => {
    const plist = (macos.install({ ...plain, dataDir: '/a<b>&c' })[2] as { content: string }).content;
    expect(plist).toContain('<string>/a&lt;b&gt;&amp;c</string>');
  });

  it('uninstall unregisters and removes the bundle, and does nothing when there is none', () => {
    const { host } = fakeHost({ [`${app}/Contents/Info.plist`]: 'x' });
    expect(macos.uninstall(hostile, host)).toEqual([
      { kind: 'run', command: lsregister, args: ['-u', app] },
      { kind: 'remove', path: app },
    ]);
    expect(macos.uninstall(hostile, fakeHost().host)).toEqual([]);
  });

  it('is installed when the Info.plist is exactly the one install writes', () => {
    const plist = (macos.install(plain)[2] as { path: string; content: string });
    expect(macos.isInstalled(plain, fakeHost({ [plist.path]: plist.content }).host)).toBe(true);
    expect(macos.isInstalled({ ...plain, dataDir: '/elsewhere' }, fakeHost({ [plist.path]: plist.content }).host)).toBe(false);
  });
});

describe('Windows: HKCU\\Software\\Classes\\sluice, written by reg.exe', () => {
  const windows = schemeRegistrar('win32');
  const target: SchemeTarget = {
    home: 'C:\\Users\\A B',
    env: {},
    sluice: ['C:\\Program Files\\nodejs\\node.exe', "C:\\Users\\A B\\it's $HOME & more\\main.js"],
    dataDir: 'C:\\Users\\A B\\AppData\\Roaming\\Sluice\\',
  };
  const command =
    '"C:\\Program Files\\nodejs\\node.exe" "C:\\Users\\A B\\it\'s $HOME & more\\main.js" "open-url" "--data-dir" "C:\\Users\\A B\\AppData\\Roaming\\Sluice\\\\" "--" "%1"';

  it('adds the URL protocol and its open command as argument arrays', () => {
    expect(windows.install(target)).toEqual([
      { kind: 'run', command: 'reg.exe', args: ['add', 'HKCU\\Software\\Classes\\sluice', '/ve', '/t', 'REG_SZ', '/d', 'URL:Sluice pairing link', '/f'] },
      { kind: 'run', command: 'reg.exe', args: ['add', 'HKCU\\Software\\Classes\\sluice', '/v', 'URL Protocol', '/t', 'REG_SZ', '/d', '', '/f'] },
      { kind: 'run', command: 'reg.exe', args: ['add', 'HKCU\\Software\\Classes\\sluice\\shell\\open\\command', '/ve', '/t', 'REG_SZ', '/d', command, '/f'] },
    ]);
  });

  it('refuses a path with % (the shell would expand it) or "', () => {
    expect(() => windows.install({ ...target, dataDir: 'C:\\100%1' })).toThrow('cannot register a command whose path holds " or %: C:\\100%1');
    expect(() => windows.install({ ...target, sluice: ['C:\\a"b\\node.exe', 'x'] })).toThrow(/holds " or %/);
  });

  it('uninstall deletes the key only when it is there', () => {
    const there = fakeHost({}, () => ok);
    expect(windows.uninstall(target, there.host)).toEqual([{ kind: 'run', command: 'reg.exe', args: ['delete', 'HKCU\\Software\\Classes\\sluice', '/f'] }]);
    expect(there.ran).toEqual([['reg.exe', 'query', 'HKCU\\Software\\Classes\\sluice']]);
    expect(windows.uninstall(target, fakeHost({}, () => ({ ...ok, status: 1 })).host)).toEqual([]);
  });

  it('is installed when the registered command is exactly this one', () => {
    const output = `\r\nHKEY_CURRENT_USER\\Software\\Classes\\sluice\\shell\\open\\command\r\n    (Standard)    REG_SZ    ${command}\r\n\r\n`;
    const answered = fakeHost({}, () => ({ ...ok, stdout: output }));
    expect(windows.isInstalled(target, answered.host)).toBe(true);
    expect(answered.ran).toEqual([['reg.exe', 'query', 'HKCU\\Software\\Classes\\sluice\\shell\\open\\command', '/ve']]);
    expect(windows.isInstalled({ ...target, dataDir: 'C:\\other' }, answered.host)).toBe(false);
    expect(windows.isInstalled({ ...target, dataDir: 'C:\\100%' }, answered.host)).toBe(false);
  });
});

describe('applySteps', () => {
  it('does each step and says what it did; a missing optional program is said, not fatal', () => {
    const { host, files, ran } = fakeHost({ '/old': 'x' }, (command) => (command === 'optional' ? { ...ok, status: null, missing: true } : ok));
    const said = applySteps(
      [
        { kind: 'write', path: '/new', content: 'y' },
        { kind: 'remove', path: '/old' },
        { kind: 'run', command: 'prog', args: ['a b', 'c'] },
        { kind: 'run', command: 'optional', args: [], ifMissing: 'optional was not found' },
        { kind: 'note', text: 'note: done' },
      ],
      host,
    );
    expect(said).toEqual(['wrote /new', 'removed /old', 'ran prog "a b" c', 'optional was not found', 'note: done']);
    expect(files).toEqual({ '/new': 'y' });
    expect(ran).toEqual([['prog', 'a b', 'c'], ['optional']]);
  });

  it('stops at a program that fails, with its first line of stderr', () => {
    const { host, files } = fakeHost({}, () => ({ status: 3, stdout: '', stderr: 'no such type\nmore\n', missing: false }));
    const steps = [
      { kind: 'run' as const, command: 'xdg-mime', args: ['default', 'x.desktop'] },
      { kind: 'write' as const, path: '/after', content: '' },
    ];
    expect(() => applySteps(steps, host)).toThrow('xdg-mime default x.desktop exited with 3: no such type');
    expect(files).toEqual({});
    const missing = fakeHost({}, () => ({ status: null, stdout: '', stderr: '', missing: true }));
    expect(() => applySteps(steps, missing.host)).toThrow('xdg-mime was not found; 0 of 2 steps were done');
  });

  it('shows a command with JSON quotes where a word is not plain', () => {
    expect(displayCommand('reg.exe', ['add', 'HKCU\\Software', '/d', '', '"%1"'])).toBe('reg.exe add HKCU\\Software /d "" "\\"%1\\""');
  });
});
