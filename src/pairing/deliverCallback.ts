import { spawn } from 'node:child_process';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
const DELIVERY_TIMEOUT_MS = 5_000;

function openerFor(platform: NodeJS.Platform, url: string): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""', url]];
  return ['xdg-open', [url]];
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
  const [command, args] = openerFor(platform, url.href);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', (error) => reject(new Error(`cannot open the callback: ${error.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
