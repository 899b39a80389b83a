#!/usr/bin/env node
import { visibleLinesText } from '../core/shared/visibleText.js';
import { ConfigError } from '../db/connections/savedConnections.js';
import { asksForHelp, helpText, overview, unknownOption } from './help.js';
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
  undo: async () => (await import('./undo.js')).undo,
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

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    process.stdout.write(`${overview()}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === 'help' || (commands[name] && asksForHelp(rest))) {
    const text = helpText(name === 'help' && !asksForHelp(rest) ? rest : argv);
    if (text === undefined) throw new UsageError(`unknown command "${rest.join(' ')}" (sluice help lists them)`);
    process.stdout.write(`${text}\n`);
    return 0;
  }
  const load = commands[name];
  if (!load) throw new UsageError(`unknown command "${name}" (sluice help lists them)`);
  await (await load())(rest);
  return process.exitCode === undefined ? 0 : Number(process.exitCode);
}

/** What the user sees of a failure: one line, never a stack trace. */
function message(error: unknown, argv: string[]): string {
  const { code, message } = error as { code?: string; message: string };
  const unknown = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(message)?.[1] : undefined;
  return unknown === undefined ? message : unknownOption(argv, unknown);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`sluice: ${visibleLinesText(message(error, process.argv.slice(2)))}\n`);
    process.exitCode = usage ? 2 : error instanceof ConfigError ? 78 : 1;
  },
);
