import { join } from 'node:path';
import { SCHEME, type SchemeRegistrar, type SchemeTarget, handlerArgs } from './target.js';
import { desktopString, execArgument, execNeedsNoQuotes } from './desktopEntry.js';
import { withoutAssociation } from './mimeappsList.js';

const DESKTOP_ID = 'sluice-url-handler.desktop';
const MIME_TYPE = `x-scheme-handler/${SCHEME}`;

const applicationsDir = (t: SchemeTarget) => join(t.env.XDG_DATA_HOME || join(t.home, '.local', 'share'), 'applications');
const desktopFilePath = (t: SchemeTarget) => join(applicationsDir(t), DESKTOP_ID);
/** Where `xdg-mime default` (and `gio mime`) record the user's choice. */
const mimeappsListPath = (t: SchemeTarget) => join(t.env.XDG_CONFIG_HOME || join(t.home, '.config'), 'mimeapps.list');

/** The desktop file: a hidden application that takes `sluice:` links, `%u` being the link. */
export function desktopFile(t: SchemeTarget): string {
  const exec = [...handlerArgs(t).map(execArgument), '%u'].join(' ');
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Version=1.0',
    'Name=Sluice URL Handler',
    'Comment=Hands sluice:// pairing links to Sluice',
    `Exec=${desktopString(exec)}`,
    `MimeType=${MIME_TYPE};`,
    'NoDisplay=true',
    'Terminal=false',
    '',
  ].join('\n');
}

const updateDatabase = (t: SchemeTarget) => ({
  kind: 'run' as const,
  command: 'update-desktop-database',
  args: [applicationsDir(t)],
  ifMissing: 'update-desktop-database was not found (desktop-file-utils): the MIME cache was left as it was',
});

/** Linux and the other free desktops: a desktop file, made the default for `x-scheme-handler/sluice`. */
export const linuxScheme: SchemeRegistrar = {
  install: (t) => [
    { kind: 'write', path: desktopFilePath(t), content: desktopFile(t) },
    { kind: 'run', command: 'xdg-mime', args: ['default', DESKTOP_ID, MIME_TYPE] },
    updateDatabase(t),
    ...(execNeedsNoQuotes(handlerArgs(t))
      ? []
      : [{ kind: 'note' as const, text: 'note: a path above has blanks or shell characters; GNOME and KDE read the quoted Exec line, but the xdg-open of xdg-utils 1.1 outside them does not' }]),
  ],
  uninstall(t, host) {
    const mimeapps = mimeappsListPath(t);
    const current = host.readFile(mimeapps);
    const edited = current === undefined ? undefined : withoutAssociation(current, MIME_TYPE, DESKTOP_ID);
    const hasFile = host.exists(desktopFilePath(t));
    return [
      ...(hasFile ? [{ kind: 'remove' as const, path: desktopFilePath(t) }] : []),
      // A list left with no association at all (xdg-mime made it for us) goes with it.
      ...(edited === undefined ? [] : /^[^[#\s].*=/m.test(edited) ? [{ kind: 'write' as const, path: mimeapps, content: edited }] : [{ kind: 'remove' as const, path: mimeapps }]),
      ...(hasFile ? [updateDatabase(t)] : []),
    ];
  },
  isInstalled(t, host) {
    if (host.readFile(desktopFilePath(t)) !== desktopFile(t)) return false;
    const query = host.run('xdg-mime', ['query', 'default', MIME_TYPE]);
    return query.status === 0 && query.stdout.trim() === DESKTOP_ID;
  },
};
