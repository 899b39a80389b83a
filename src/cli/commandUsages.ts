/**
 * One entry per command (or subcommand): the source of `--help`, `-h`, `sluice help` and the
 * "did you mean" of an unknown option. `--data-dir DIR` and `--help` belong to every command.
 */
export type CommandUsage = {
  /** The words that name it, e.g. `connections add`. */
  command: string;
  /** What follows those words on the usage line. */
  synopsis: string;
  summary: string;
  /** Each option as written (`--name NAME`) with one line of help. */
  options: Array<[string, string]>;
  example: string;
};

const LEVEL = 'readOnly|readWrite|fullAccess';
const EXPIRES = 'never|1|7|30|90';
const grantOptions: Array<[string, string]> = [
  ['--level L', `permission level: ${LEVEL}`],
  ['--connections all|ID,ID', 'the connections it may use'],
  ['--expires D', `days until it expires: ${EXPIRES}`],
  ['--tools NAME,NAME', 'only these custom tools (tools.json), and no resources or prompts'],
];
const connectionSettings: Array<[string, string]> = [
  ['--external-access L', 'what AI clients may do: blocked|readOnly|readWrite (default readOnly)'],
  ['--ai-policy P', 'when AI clients may use it: never|askEachTime|always (default askEachTime)'],
];
const noCheck: [string, string] = ['--no-check', 'save without opening the database first'];
const sshTunnelOptions: Array<[string, string]> = [
  ['--ssh U@HOST[:PORT]', 'reach the server through an SSH tunnel (HOST may be a ~/.ssh/config alias)'],
  ['--ssh-key FILE', 'the SSH private key (default: ~/.ssh/config, then ~/.ssh/id_*)'],
  ['--ssh-agent', "use the SSH agent's keys (a key with a passphrase: ssh-add it)"],
  ['--ssh-passphrase-stdin', "read the --ssh-key's passphrase from stdin (no echo in a terminal); kept like a password"],
  ['--ssh-jump U@HOST[:PORT]', 'through this jump host first (ProxyJump; comma-separated hops)'],
];

export const COMMAND_USAGES: CommandUsage[] = [
  {
    command: 'serve',
    synopsis: '[--port N] [--console-port N | --no-console] [--no-auth] [--log-requests] [--no-notify] [--no-undo] [--log-file FILE]',
    summary: 'run Sluice in the foreground',
    options: [
      ['--port N', 'MCP port on 127.0.0.1 (default 38621, or any free one; 0 = any)'],
      ['--console-port N', 'console port (default 38622, or any free one)'],
      ['--no-console', 'serve no console'],
      ['--no-auth', 'no bearer tokens: every caller is the anonymous, read-only principal'],
      ['--log-requests', 'one JSON line per request on stderr'],
      ['--no-notify', 'no desktop notification for waiting approvals'],
      ['--no-undo', 'keep no rows of approved writes: nothing can be undone (config.json: "undo": false)'],
      ['--log-file FILE', 'append stderr to FILE'],
    ],
    example: 'sluice serve --port 0 --log-requests',
  },
  { command: 'console', synopsis: '', summary: 'print a one-time link to the running console', options: [], example: 'sluice console' },
  {
    command: 'tokens create',
    synopsis: `--name NAME [--level L] [--connections all|ID,ID] [--expires ${EXPIRES}] [--tools NAME,NAME]`,
    summary: 'mint a bearer token; prints it once',
    options: [['--name NAME', 'what the token is for'], ...grantOptions],
    example: 'sluice tokens create --name "Claude Code" --level readWrite --expires 30',
  },
  { command: 'tokens list', synopsis: '[--json]', summary: 'list the tokens', options: [['--json', 'as JSON']], example: 'sluice tokens list --json' },
  { command: 'tokens revoke', synopsis: 'ID', summary: 'revoke a token at once', options: [], example: 'sluice tokens revoke tok_1a2b3c' },
  {
    command: 'open-url',
    synopsis: '[--no-browser] URL',
    summary: 'hand a sluice:// link to Sluice (started if not running)',
    options: [['--no-browser', 'do not open the console in the browser']],
    example: "sluice open-url 'sluice://integrations/pair?…'",
  },
  { command: 'install', synopsis: '', summary: 'register the sluice:// URL scheme for this user', options: [], example: 'sluice install' },
  { command: 'uninstall', synopsis: '', summary: 'remove the sluice:// URL scheme', options: [], example: 'sluice uninstall' },
  {
    command: 'approvals',
    synopsis: '[--json] [--all]',
    summary: 'the approval sheets waiting for an answer',
    options: [['--json', 'as JSON'], ['--all', 'also those that ended in the last ten minutes']],
    example: 'sluice approvals --all',
  },
  {
    command: 'approve',
    synopsis: 'ID [--level L] [--connections all|ID,ID] [--expires D] [--tools NAME,NAME]',
    summary: 'approve a waiting sheet',
    options: grantOptions,
    example: 'sluice approve 7f3a --level readOnly --expires 7',
  },
  { command: 'deny', synopsis: 'ID', summary: 'deny a waiting sheet', options: [], example: 'sluice deny 7f3a' },
  {
    command: 'pair',
    synopsis: '--client NAME [--scopes LEVEL] [--print-token]',
    summary: 'the reference pairing client',
    options: [
      ['--client NAME', 'the client name shown on the approval sheet'],
      ['--scopes LEVEL', `level asked for: ${LEVEL} (default readWrite)`],
      ['--print-token', 'print the token instead of keeping it in the credential store'],
    ],
    example: 'sluice pair --client "My script" --scopes readOnly',
  },
  { command: 'server', synopsis: 'on|off|status', summary: 'switch the MCP server (off: -33006)', options: [], example: 'sluice server off' },
  {
    command: 'lockouts list',
    synopsis: '[--json]',
    summary: 'who the limits hold back, until when',
    options: [['--json', 'as JSON']],
    example: 'sluice lockouts list',
  },
  {
    command: 'lockouts clear',
    synopsis: 'ID|--all',
    summary: 'let a locked-out caller in at once',
    options: [['--all', 'clear every lockout']],
    example: 'sluice lockouts clear --all',
  },
  {
    command: 'connections list',
    synopsis: '[--json]',
    summary: 'the saved connections (passwords shown as ***)',
    options: [['--json', 'as JSON']],
    example: 'sluice connections list',
  },
  {
    command: 'connections add',
    synopsis: '--name NAME (--sqlite PATH | --url URL | --duckdb PATH [--files-dir DIR]) [--id ID] [--external-access L] [--ai-policy P] [--no-check] [--ssh U@HOST[:PORT] …]',
    summary: 'save a connection once it opens and answers',
    options: [
      ['--name NAME', 'the name AI clients see (unique)'],
      ['--sqlite PATH', 'an SQLite database file'],
      ['--url URL', 'postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, mysql://… or mariadb://…'],
      ['--duckdb PATH', 'a DuckDB database file, or :memory:'],
      ['--files-dir DIR', 'the only directory its statements may read CSV, Parquet or JSON files from (none without it)'],
      ['--id ID', 'its id (default: made from the name)'],
      ...connectionSettings,
      noCheck,
      ...sshTunnelOptions,
    ],
    example: "sluice connections add --name Shop --url 'postgres://reader:secret@127.0.0.1:5432/shop'",
  },
  {
    command: 'connections update',
    synopsis: 'ID [--name NAME] [--sqlite PATH | --url URL] [--external-access L] [--ai-policy P] [--no-check] [--ssh U@HOST[:PORT] … | --no-ssh]',
    summary: 'change a saved connection; checked like add',
    options: [
      ['--name NAME', 'a new name (unique)'],
      ['--sqlite PATH', 'point it at another SQLite file'],
      ['--url URL', 'point it at another server'],
      ...connectionSettings,
      noCheck,
      ...sshTunnelOptions,
      ['--no-ssh', 'reach the server directly again (drop its SSH tunnel)'],
    ],
    example: 'sluice connections update shop --external-access readWrite',
  },
  {
    command: 'connections remove',
    synopsis: 'ID [--yes]',
    summary: 'forget a saved connection (asks first in a terminal)',
    options: [['--yes', 'do not ask; needed when stdin is not a terminal']],
    example: 'sluice connections remove shop --yes',
  },
  {
    command: 'connections test',
    synopsis: 'ID',
    summary: 'open a saved connection; print its server version and latency',
    options: [],
    example: 'sluice connections test shop',
  },
  {
    command: 'connections mask',
    synopsis: 'ID (--column PATTERN --action mask|hash|hide | --remove PATTERN | --exempt TOKEN_ID | --unexempt TOKEN_ID | --list [--json])',
    summary: 'keep columns private from AI clients: masked, hashed or left out of every answer',
    options: [
      ['--column PATTERN', 'a column name or a glob with * (*email*, *_ssn, phone*), in every table and view'],
      ['--action A', 'mask (shape kept: j***@e***.com), hash (h: and a stable keyed hash) or hide (left out)'],
      ['--remove PATTERN', "drop the pattern's rule"],
      ['--exempt TOKEN_ID', 'let a token (a person’s own) read the values as they are'],
      ['--unexempt TOKEN_ID', 'put the token under the policy again'],
      ['--list', 'show the rules and the exempt tokens'],
      ['--json', 'as JSON'],
    ],
    example: "sluice connections mask shop --column '*email*' --action hash",
  },
  {
    command: 'connections trust-host',
    synopsis: 'ID [--replace]',
    summary: "accept the SSH host keys of a connection's tunnel; prints each fingerprint",
    options: [['--replace', 'accept a host key that changed (only if you know why)']],
    example: 'sluice connections trust-host shop',
  },
  {
    command: 'activity',
    synopsis: '[--json] [--limit N] [--category C] [--verify]',
    summary: 'the activity log, newest first',
    options: [
      ['--json', 'as JSON'],
      ['--limit N', 'at most N entries'],
      ['--category C', 'only this category'],
      ['--verify', 'check the hash chain'],
    ],
    example: 'sluice activity --category admin --limit 20',
  },
  {
    command: 'undo',
    synopsis: 'ACTIVITY-ID [--force] [--json]',
    summary: 'take back an approved write (the activity row that ran it); a row changed since stops it',
    options: [
      ['--force', 'overwrite rows that changed since the write'],
      ['--json', 'as JSON'],
    ],
    example: 'sluice undo 42',
  },
  { command: 'bridge', synopsis: '', summary: 'MCP over stdio for clients that launch servers', options: [], example: 'sluice bridge' },
  {
    command: 'service',
    synopsis: 'install|uninstall|status [--dry-run]',
    summary: 'start Sluice at login (systemd, launchd, Task Scheduler)',
    options: [['--dry-run', 'print what would run, change nothing']],
    example: 'sluice service install --dry-run',
  },
  {
    command: 'client-config',
    synopsis: 'claude-desktop|claude-code|cursor|vscode|windsurf [--write]',
    summary: "a client's configuration for the bridge",
    options: [['--write', "merge it into the client's file (with a backup)"]],
    example: 'sluice client-config cursor --write',
  },
  { command: 'help', synopsis: '[COMMAND]', summary: 'this list, or one command in detail', options: [], example: 'sluice help connections add' },
];
