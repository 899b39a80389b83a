import { openConsoleLink } from '../console/consoleOpenPage.js';
import { currentConsoleLink } from './console.js';

/** Opens the running application's console in the browser, signed in; undefined when there is no console. */
export async function openConsoleInBrowser(dataDir: string): Promise<string | undefined> {
  const link = currentConsoleLink(dataDir);
  return link === undefined ? undefined : openConsoleLink(dataDir, link);
}
