import { execFile } from 'node:child_process';
import { posix, win32 } from 'node:path';
import { SERVE_LOG } from './supportDir.js';

/** What the login service starts: `node <script> serve …`, by absolute paths. */
export type ServeCommand = {
  node: string;
  script: string;
  /** Given only when the user chose a support directory (`--data-dir` or `SLUICE_HOME`). */
  dataDir?: string;
};

/** Where the user's files are, and who the user is (read from the environment, passed in tests). */
export type UserContext = {
  home: string;
  /** The support directory the service's Sluice uses (its log lives there on macOS and Windows). */
  supportDir: string;
  uid?: number;
  xdgConfigHome?: string;
  /** `DOMAIN\user` on Windows: the account the logon trigger and the task run as. */
  windowsUser?: string;
};

/** One program run, as an argument array: never a shell string. */
export type Step = { command: string; args: string[]; mayFail?: boolean };

export type LoginServicePlan = {
  kind: 'systemd user unit' | 'launchd agent' | 'scheduled task';
  /** The file Sluice writes (the unit, the plist, the task's XML). */
  file: string;
  contents: string;
  /** Windows reads task XML as UTF-16 (with a byte order mark); the others are UTF-8. */
  encoding: 'utf8' | 'utf16le';
  /** Run after the file is written. */
  install: Step[];
  /** Run before the file is removed. */
  uninstall: Step[];
  /** Exit status 0 = running. */
  status: Step;
  /** Where its output goes, for people. */
  logs: string;
};

const SERVICE_NAME = 'sluice';
const LAUNCHD_LABEL = 'app.sluice.serve';
const TASK_NAME = 'Sluice';
const DESCRIPTION = 'Sluice, the local MCP server for your databases';

/** `sluice serve`'s own arguments; `logFile` only where the service manager cannot capture stderr. */
function serveArgs(target: ServeCommand, logFile?: string): string[] {
  return [
    target.script,
    'serve',
    ...(target.dataDir ? ['--data-dir', target.dataDir] : []),
    ...(logFile ? ['--log-file', logFile] : []),
  ];
}

function refuseControlCharacters(values: string[]): void {
  for (const value of values) {
    if ([...value].some((char) => char < ' ' || char === '\u007f')) throw new Error(`cannot start a path with a control character at login: ${JSON.stringify(value)}`);
  }
}

/**
 * One ExecStart argument: double-quoted, with systemd's C-style escapes; `%` (specifiers) and `$`
 * (environment variables) doubled, so every character reaches the program unchanged.
 */
export function systemdQuote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
}

/**
 * The ExecStart program: systemd expands `%` there but not `$`, and refuses a path with a quote or a
 * backslash outright ("Executable name contains special characters"), so such a path is refused here.
 */
export function systemdExecutable(path: string): string {
  if (/["'\\]/.test(path)) throw new Error(`systemd cannot start a program whose path has a quote or a backslash: ${path}`);
  return `"${path.replace(/%/g, '%%')}"`;
}

export function systemdUnit(target: ServeCommand): string {
  const args = serveArgs(target);
  refuseControlCharacters([target.node, ...args]);
  return [
    '[Unit]',
    `Description=${DESCRIPTION}`,
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${[systemdExecutable(target.node), ...args.map(systemdQuote)].join(' ')}`,
    'Restart=on-failure',
    'RestartSec=5',
    // stdout carries the console's one-time sign-in link: it stays out of the journal.
    'StandardOutput=null',
    'StandardError=journal',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

const xmlEscaped = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

function launchdPlist(target: ServeCommand, logFile: string): string {
  const words = [target.node, ...serveArgs(target)];
  refuseControlCharacters([...words, logFile]);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  <string>${LAUNCHD_LABEL}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...words.map((word) => `    <string>${xmlEscaped(word)}</string>`),
    '  </array>',
    '  <key>RunAtLoad</key>',
    '  <true/>',
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key>',
    '    <false/>',
    '  </dict>',
    '  <key>ProcessType</key>',
    '  <string>Interactive</string>',
    // No StandardOutPath: stdout (the console's one-time link) goes to /dev/null.
    '  <key>StandardErrorPath</key>',
    `  <string>${xmlEscaped(logFile)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/**
 * One argument of a Windows command line, quoted as CommandLineToArgvW reads it back: backslashes are
 * literal except before a quote. Task Scheduler expands `%NAME%` in arguments and has no escape for it,
 * so a `%` is refused rather than risk running a different path.
 */
export function windowsQuote(value: string): string {
  if (value.includes('%')) throw new Error(`cannot start a path containing % from a scheduled task (Windows would expand it): ${value}`);
  if (value.includes('"')) throw new Error(`a Windows path cannot contain a double quote: ${value}`);
  return `"${value.replace(/(\\+)$/, '$1$1')}"`;
}

function taskXml(target: ServeCommand, windowsUser: string, logFile: string): string {
  refuseControlCharacters([target.node, windowsUser, ...serveArgs(target, logFile)]);
  const user = xmlEscaped(windowsUser);
  return [
    '<?xml version="1.0" encoding="UTF-16"?>',
    '<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
    '  <RegistrationInfo>',
    `    <Description>${DESCRIPTION}</Description>`,
    '  </RegistrationInfo>',
    '  <Triggers>',
    '    <LogonTrigger>',
    '      <Enabled>true</Enabled>',
    `      <UserId>${user}</UserId>`,
    '    </LogonTrigger>',
    '  </Triggers>',
    '  <Principals>',
    '    <Principal id="Author">',
    `      <UserId>${user}</UserId>`,
    '      <LogonType>InteractiveToken</LogonType>',
    '      <RunLevel>LeastPrivilege</RunLevel>',
    '    </Principal>',
    '  </Principals>',
    '  <Settings>',
    '    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>',
    '    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>',
    '    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>',
    // PT0S: no time limit (the default stops a task after 72 hours).
    '    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>',
    '    <RestartOnFailure>',
    '      <Interval>PT1M</Interval>',
    '      <Count>3</Count>',
    '    </RestartOnFailure>',
    '    <Enabled>true</Enabled>',
    '  </Settings>',
    '  <Actions Context="Author">',
    '    <Exec>',
    `      <Command>${xmlEscaped(windowsQuote(target.node))}</Command>`,
    `      <Arguments>${xmlEscaped(serveArgs(target, logFile).map(windowsQuote).join(' '))}</Arguments>`,
    '    </Exec>',
    '  </Actions>',
    '</Task>',
    '',
  ].join('\r\n');
}

/** The login service of `platform`: its file, and the exact programs that install, remove and query it. */
export function loginServicePlan(platform: NodeJS.Platform, target: ServeCommand, user: UserContext): LoginServicePlan {
  if (platform === 'darwin') {
    const logFile = posix.join(user.supportDir, SERVE_LOG);
    const domain = `gui/${user.uid ?? 501}`;
    const file = posix.join(user.home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
    return {
      kind: 'launchd agent',
      file,
      contents: launchdPlist(target, logFile),
      encoding: 'utf8',
      install: [
        // bootstrap refuses an agent that is already loaded: reinstalling replaces it.
        { command: 'launchctl', args: ['bootout', `${domain}/${LAUNCHD_LABEL}`], mayFail: true },
        { command: 'launchctl', args: ['bootstrap', domain, file] },
      ],
      uninstall: [{ command: 'launchctl', args: ['bootout', `${domain}/${LAUNCHD_LABEL}`], mayFail: true }],
      status: { command: 'launchctl', args: ['print', `${domain}/${LAUNCHD_LABEL}`] },
      logs: logFile,
    };
  }
  if (platform === 'win32') {
    const logFile = win32.join(user.supportDir, SERVE_LOG);
    const file = win32.join(user.supportDir, 'sluice-task.xml');
    if (!user.windowsUser) throw new Error('cannot tell the Windows user (USERNAME is not set)');
    return {
      kind: 'scheduled task',
      file,
      contents: taskXml(target, user.windowsUser, logFile),
      encoding: 'utf16le',
      install: [
        { command: 'schtasks.exe', args: ['/Create', '/TN', TASK_NAME, '/XML', file, '/F'] },
        { command: 'schtasks.exe', args: ['/Run', '/TN', TASK_NAME] },
      ],
      uninstall: [
        { command: 'schtasks.exe', args: ['/End', '/TN', TASK_NAME], mayFail: true },
        { command: 'schtasks.exe', args: ['/Delete', '/TN', TASK_NAME, '/F'], mayFail: true },
      ],
      status: { command: 'schtasks.exe', args: ['/Query', '/TN', TASK_NAME, '/FO', 'LIST', '/V'] },
      logs: logFile,
    };
  }
  const configHome = user.xdgConfigHome || posix.join(user.home, '.config');
  const unit = `${SERVICE_NAME}.service`;
  return {
    kind: 'systemd user unit',
    file: posix.join(configHome, 'systemd', 'user', unit),
    contents: systemdUnit(target),
    encoding: 'utf8',
    install: [
      { command: 'systemctl', args: ['--user', 'daemon-reload'] },
      // restart, not start: a reinstall must run the new unit's command.
      { command: 'systemctl', args: ['--user', 'enable', unit] },
      { command: 'systemctl', args: ['--user', 'restart', unit] },
    ],
    uninstall: [
      { command: 'systemctl', args: ['--user', 'disable', '--now', unit], mayFail: true },
      { command: 'systemctl', args: ['--user', 'daemon-reload'], mayFail: true },
    ],
    status: { command: 'systemctl', args: ['--user', 'is-active', unit] },
    logs: `journalctl --user -u ${unit}`,
  };
}

export type StepResult = { code: number; stdout: string; stderr: string };
export type RunStep = (step: Step) => Promise<StepResult>;

/** Runs one step with no shell; a missing program is exit status 127, as a shell would report it. */
export const runStep: RunStep = (step) =>
  new Promise((resolve) => {
    execFile(step.command, step.args, { shell: false, windowsHide: true, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : error.code === 'ENOENT' ? 127 : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr || (error && !stderr ? error.message : '')) });
    });
  });
