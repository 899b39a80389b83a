import { join } from 'node:path';
import { SCHEME, type SchemeRegistrar, type SchemeTarget, handlerArgs } from './target.js';

const APP_NAME = 'Sluice URL Handler';
const LSREGISTER =
  '/System/Library/Frameworks/CoreServices.framework/Frameworks/LaunchServices.framework/Support/lsregister';

const appPath = (t: SchemeTarget) => join(t.home, 'Applications', `${APP_NAME}.app`);

/** An AppleScript string literal. */
const appleString = (text: string) =>
  `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The applet's script. An app bundle receives a URL as an Apple Event, not as an argument, so the
 * applet's `open location` handler runs the command through `do shell script` (a `sh -c`). Every word
 * of it — the fixed paths and the link — reaches that shell only through `quoted form of`, which puts
 * it in single quotes (each `'` inside becoming `'\''`): sh expands nothing there, so no character of
 * a link can end the word or start another command. A refusal (`open-url` exits 1) is shown as an alert.
 */
function appletScript(t: SchemeTarget): string[] {
  const command = handlerArgs(t).map((arg) => `quoted form of ${appleString(arg)}`).join(' & " " & ');
  return [
    'on open location theURL',
    '\ttry',
    `\t\tdo shell script ${command} & " " & quoted form of theURL`,
    '\ton error errorText',
    '\t\tdisplay alert "Sluice could not open the link" message errorText as critical',
    '\tend try',
    'end open location',
  ];
}

/**
 * The bundle's Info.plist, replacing the one osacompile writes: the applet's own keys, the `sluice`
 * URL scheme, LSUIElement (no Dock icon, yet it may show an alert), and the command it runs (read by
 * `isInstalled`, and by whoever wonders what the app does).
 */
function infoPlist(t: SchemeTarget): string {
  const string = (text: string) => `<string>${xml(text)}</string>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    '\t<key>CFBundleDevelopmentRegion</key>',
    `\t${string('en')}`,
    '\t<key>CFBundleExecutable</key>',
    `\t${string('applet')}`,
    '\t<key>CFBundleIconFile</key>',
    `\t${string('applet')}`,
    '\t<key>CFBundleIdentifier</key>',
    `\t${string('dev.sluice.url-handler')}`,
    '\t<key>CFBundleInfoDictionaryVersion</key>',
    `\t${string('6.0')}`,
    '\t<key>CFBundleName</key>',
    `\t${string(APP_NAME)}`,
    '\t<key>CFBundlePackageType</key>',
    `\t${string('APPL')}`,
    '\t<key>CFBundleSignature</key>',
    `\t${string('aplt')}`,
    '\t<key>CFBundleURLTypes</key>',
    '\t<array>',
    '\t\t<dict>',
    '\t\t\t<key>CFBundleURLName</key>',
    `\t\t\t${string('Sluice pairing link')}`,
    '\t\t\t<key>CFBundleURLSchemes</key>',
    '\t\t\t<array>',
    `\t\t\t\t${string(SCHEME)}`,
    '\t\t\t</array>',
    '\t\t</dict>',
    '\t</array>',
    '\t<key>LSUIElement</key>',
    '\t<true/>',
    '\t<key>OSAAppletShowStartupScreen</key>',
    '\t<false/>',
    '\t<key>SluiceOpenURLCommand</key>',
    '\t<array>',
    ...handlerArgs(t).map((arg) => `\t\t${string(arg)}`),
    '\t</array>',
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/**
 * macOS: `~/Applications/Sluice URL Handler.app`, an AppleScript applet made by osacompile, its
 * Info.plist declaring the scheme, signed again ad hoc (the edited plist broke osacompile's seal, and
 * Apple silicon runs no bundle with a broken one), then registered with Launch Services.
 */
export const macosScheme: SchemeRegistrar = {
  install: (t) => [
    { kind: 'remove', path: appPath(t) },
    { kind: 'run', command: 'osacompile', args: ['-o', appPath(t), ...appletScript(t).flatMap((line) => ['-e', line])] },
    { kind: 'write', path: join(appPath(t), 'Contents', 'Info.plist'), content: infoPlist(t) },
    { kind: 'run', command: 'codesign', args: ['--force', '--sign', '-', appPath(t)] },
    { kind: 'run', command: LSREGISTER, args: ['-f', appPath(t)] },
  ],
  uninstall: (t, host) =>
    host.exists(appPath(t))
      ? [
          { kind: 'run', command: LSREGISTER, args: ['-u', appPath(t)] },
          { kind: 'remove', path: appPath(t) },
        ]
      : [],
  isInstalled: (t, host) => host.readFile(join(appPath(t), 'Contents', 'Info.plist')) === infoPlist(t),
};
