#!/usr/bin/env node
import { ConfigError } from '../db/savedConnections.js';
import { UsageError } from './usageError.js';

type Command = (argv: string[]) => Promise<void>;

/** While the application runs it owns the token file: the command line asks it instead. */
async function tokensCommand(argv: string[]): Promise<void> {
  const [{ callControl, isRunning }, { supportDirOf }, { tokens }] = await Promise.all([
    import('./controlClient.js'),
    import('./dataDirOption.js'),
    import('./tokens.js'),
  ]);
  const dataDir = supportDirOf(argv);
  const running = await isRunning(dataDir);
  await tokens(argv, running ? { remote: (method, params) => callControl(dataDir, method, params) } : {});
}

/** Each command's module, loaded when it runs: `serve` starts faster without the others. */
const commands: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.js')).serve,
  tokens: async () => tokensCommand,
  activity: async () => (await import('./activity.js')).activity,
  'open-url': async () => (await import('./openUrl.js')).openUrl,
  install: async () => (await import('./install.js')).install,
  uninstall: async () => (await import('./install.js')).uninstall,
  approvals: async () => (await import('./approvals.js')).approvals,
  approve: async () => (await import('./approvals.js')).approve,
  deny: async () => (await import('./approvals.js')).deny,
  pair: async () => (await import('./pair.js')).pair,
  server: async () => (await import('./serverSwitch.js')).serverSwitch,
  lockouts: async () => (await import('./lockouts.js')).lockouts,
  connections: async () => (await import('./connections.js')).connections,
  bridge: async () => (await import('./bridge.js')).bridge,
  console: async () => (await import('./console.js')).consoleLink,
  service: async () => (await import('./service.js')).service,
  'client-config': async () => (await import('./clientConfig.js')).clientConfig,
};

const USAGE = `usage: sluice <command> [options] [--data-dir DIR]
  serve [--port N] [--console-port N | --no-console] [--no-auth] [--log-requests] [--log-file FILE]   run Sluice
  console                                           print a one-time link to the running console
  tokens create --name NAME [--level L] [--connections all|ID,ID] [--expires never|1|7|30|90]
  tokens list [--json] | tokens revoke ID
  open-url [--no-browser] URL                       hand a sluice:// link to Sluice (started if not running); show its sheet
  install | uninstall                               register or remove the sluice:// URL scheme for this user
  approvals [--json] [--all] | approve ID [--level L] [--connections …] [--expires D] | deny ID
  pair --client NAME [--scopes LEVEL] [--print-token]   the reference pairing client
  server on|off|status                              switch the MCP server (off: -33006)
  lockouts list [--json] | lockouts clear ID|--all  who the limits hold back, until when; clear them
  connections list [--json] | connections add --name N (--sqlite PATH | --url URL) [--id ID] [--external-access L] [--ai-policy P]
  activity [--json] [--limit N] [--category C] [--verify]
  bridge                                            MCP over stdio for clients that launch servers
  service install|uninstall|status [--dry-run]      start Sluice at login (systemd, launchd, Task Scheduler)
  client-config <claude-desktop|claude-code|cursor|vscode|windsurf> [--write]   a client's configuration for the bridge`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const load = commands[name];
  if (!load) throw new UsageError(`unknown command "${name}" (sluice --help lists them)`);
  await (await load())(rest);
  return process.exitCode === undefined ? 0 : Number(process.exitCode);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`sluice: ${(error as Error).message}\n`);
    process.exitCode = usage ? 2 : error instanceof ConfigError ? 78 : 1;
  },
);
