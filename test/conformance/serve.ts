/**
 * Serves Sluice with the conformance fixtures until killed, for running the official suite by hand:
 *
 *   npm run conformance:serve            # prints the MCP URL
 *   npm run conformance:suite -- server --url <url> --requirements 2026-07-28
 *
 * In-process `startApp` on a fresh temporary support directory, an ephemeral port, authentication off
 * (the suite's `server` command cannot send an `Authorization` header). `--port N` picks the port.
 */
import { startConformanceServer } from './fixtures.js';

const portAt = process.argv.indexOf('--port');
const port = portAt >= 0 ? Number(process.argv[portAt + 1]) : 0;
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error('serve: --port needs a port number');
  process.exit(2);
}

const server = await startConformanceServer({ port });
console.log(server.url);
console.error(`Sluice with the conformance fixtures is serving ${server.url} (support directory ${server.app.dataDir}); Ctrl-C stops it.`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void server.dispose().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
