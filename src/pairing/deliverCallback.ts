import type { AppClock } from '../core/clock.js';
import { openWithOs } from '../platform/urlOpener.js';
import { PAIRING } from '../core/contract.js';
import { LOOPBACK_HOSTS } from '../protocol/loopback.js';

/**
 * Delivers a pairing callback: a loopback http(s) redirect is requested directly; any other scheme is
 * handed to the operating system's URL opener. Resolves when delivered; rejects with a short reason.
 */
export async function deliverCallback(url: URL, clock: AppClock, platform: NodeJS.Platform = process.platform): Promise<void> {
  if ((url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname)) {
    const timeout = new AbortController();
    const timer = clock.setTimeout(() => timeout.abort(new Error('the callback did not answer')), PAIRING.callbackTimeoutMs);
    try {
      const response = await fetch(url, { redirect: 'manual', signal: timeout.signal });
      await response.body?.cancel();
    } finally {
      clock.clearTimeout(timer);
    }
    return;
  }
  await openWithOs(url.href, platform);
}
