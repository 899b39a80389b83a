import { spawn } from 'node:child_process';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
const DELIVERY_TIMEOUT_MS = 5_000;

/**
 * The program that opens `url` on `platform`, and its arguments: the URL is always one argument, given
 * unchanged, and no shell ever reads it. (On Windows `cmd /c start` would run whatever follows an `&`
 * in the URL; `rundll32 url.dll,FileProtocolHandler` opens it as the shell's "open" verb would.)
 */
export function urlOpener(platform: NodeJS.Platform, url: string): { command: string; args: string[] } {
  if (platform === 'darwin') return { command: 'open', args: [url] };
  if (platform === 'win32') return { command: 'rundll32.exe', args: ['url.dll,FileProtocolHandler', url] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Delivers a pairing callback: a loopback http(s) redirect is requested directly; any other scheme is
 * handed to the operating system's URL opener. Resolves when delivered; rejects with a short reason.
 */
export async function deliverCallback(url: URL, platform: NodeJS.Platform = process.platform): Promise<void> {
  if ((url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname)) {
    const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) });
    await response.body?.cancel();
    return;
  }
  const { command, args } = urlOpener(platform, url.href);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, shell: false });
    child.once('error', (error) => reject(new Error(`cannot open the callback: ${error.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
