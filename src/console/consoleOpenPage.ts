import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFileAtomic } from '../core/atomicFile.js';
import { openWithOs } from '../platform/urlOpener.js';

/** In the support directory (mode 0600): the page that takes the browser on to the console's one-time link. */
const CONSOLE_OPEN_PAGE = 'console-open.html';

/** The page: a redirect to `link`, and the link itself should the browser not follow redirects. */
export function consoleOpenPage(link: string): string {
  if (!/^http:\/\/127\.0\.0\.1:\d+\/open\?secret=[A-Za-z0-9_-]+$/.test(link)) throw new Error(`not a console link: ${link}`);
  return [
    '<!doctype html>',
    '<meta charset="utf-8">',
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="0; url=${link}">`,
    '<title>Sluice</title>',
    `<p><a href="${link}">Open the Sluice console</a></p>`,
    '',
  ].join('\n');
}

/**
 * Opens the console's one-time `link` in the browser through a page in `dataDir` only this user can
 * read: on a command line (the opener's, the browser's) any local user could read the secret before
 * the browser spends it. Resolves with the page's path.
 */
export async function openConsoleLink(dataDir: string, link: string): Promise<string> {
  const page = join(dataDir, CONSOLE_OPEN_PAGE);
  writeFileAtomic(page, consoleOpenPage(link));
  await openWithOs(pathToFileURL(page).href);
  return page;
}
