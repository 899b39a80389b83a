import { parseArgs } from 'node:util';
import { startApp } from '../app/app.js';
import { desktopNotifier } from '../platform/desktopNotification.js';
import { requestLogLine } from '../http/requestLog.js';
import { resolveSupportDir } from '../platform/supportDir.js';
import { appendStderrTo } from './logFile.js';
import { UsageError } from './usageError.js';

function parsePort(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535)
    throw new UsageError(`${option} must be a number from 0 to 65535, not "${text}"`);
  return port;
}

/** `sluice serve`: runs in the foreground until SIGINT or SIGTERM. */
export async function serve(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      'console-port': { type: 'string' },
      'no-console': { type: 'boolean' },
      'data-dir': { type: 'string' },
      'no-auth': { type: 'boolean' },
      'log-requests': { type: 'boolean' },
      'no-notify': { type: 'boolean' },
      'no-undo': { type: 'boolean' },
      'log-file': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = parsePort('--port', values.port);
  const consolePort = values['no-console'] ? false : parsePort('--console-port', values['console-port']);
  if (values['log-file']) appendStderrTo(values['log-file']);
  const dataDir = resolveSupportDir(values['data-dir']);
  const auth = !values['no-auth'];
  // Listened for before the app starts: a signal that comes while it starts (the handshake file is
  // already written) still stops it cleanly, once it has started.
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const app = await startApp({
    dataDir,
    auth,
    ...(port !== undefined ? { port } : {}),
    ...(consolePort !== undefined ? { consolePort } : {}),
    ...(values['no-undo'] ? { undo: { enabled: false } } : {}),
    ...(values['no-notify'] ? {} : { notifier: desktopNotifier({ log: (line) => process.stderr.write(line) }) }),
    ...(values['log-requests']
      ? { onRequestEnd: (trace) => process.stderr.write(requestLogLine(trace)) }
      : {}),
  });

  process.stdout.write(
    [
      `Sluice is serving MCP at ${app.url}`,
      app.console
        ? `  console: ${app.console.openUrl()}  (opens once; sluice console prints a new link)`
        : '  console: off (--no-console)',
      `  support directory: ${app.dataDir}`,
      auth
        ? '  authentication: bearer tokens (sluice tokens create, or pair a client with sluice pair)'
        : '  authentication: off (--no-auth): every caller is anonymous, with read-only scopes',
      values['no-notify']
        ? '  desktop notifications: off (--no-notify)'
        : '  desktop notifications: on, for every approval that waits (--no-notify turns them off)',
      '',
    ].join('\n'),
  );

  const signal = await signalled;
  process.stderr.write(`sluice: ${signal} received, stopping\n`);
  await app.stop().catch(() => undefined);
}
