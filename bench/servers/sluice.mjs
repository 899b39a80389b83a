// Sluice for the benchmark: the built application with authentication on and every check in place, but
// per-caller rate limits raised so that the load generator measures the server, not the limiter.
import { startApp } from '../../dist/src/app/app.js';

const [dataDir] = process.argv.slice(2);
const app = await startApp({
  dataDir,
  port: 0,
  consolePort: false,
  callerLimits: { requestsPerWindow: 1e9, windowSeconds: 60, concurrent: 1_000 },
});
process.send?.({ ready: app.port });
process.on('message', (message) => {
  if (message !== 'measure') return;
  // With --expose-gc, a collection first, so that RSS compares what is kept, not what is pending.
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ liveActors: app.liveActors(), rss, heapUsed });
});
process.on('SIGTERM', () => app.stop().then(() => process.exit(0)));
