import { describe, expect, it } from 'vitest';
import { loginServicePlan, systemdExecutable, systemdQuote, windowsQuote } from '../../../src/platform/loginService.js';

/** Paths a user may really have: spaces, quotes, %, $, &, <, and a trailing backslash on Windows. */
const UNIX_TARGET = {
  node: '/opt/my node/100% $node/bin/node',
  script: `/home/o'brien/"quoted" 100% $HOME/lib/node_modules/sluice/dist/src/cli/main.js`,
  dataDir: '/data/50% off/${USER}/<db> & co',
};

describe('loginServicePlan on Linux: a systemd user unit', () => {
  const plan = loginServicePlan('linux', UNIX_TARGET, { home: '/home/o b', supportDir: '/unused' });

  it('writes the unit with every word quoted and %, $, " and \\ escaped', () => {
    expect(plan.file).toBe('/home/o b/.config/systemd/user/sluice.service');
    expect(plan.encoding).toBe('utf8');
    expect(plan.contents).toBe(
      [
        '[Unit]',
        'Description=Sluice, the local MCP server for your databases',
        '',
        '[Service]',
        'Type=simple',
        `ExecStart="/opt/my node/100%% $node/bin/node" "/home/o'brien/\\"quoted\\" 100%% $$HOME/lib/node_modules/sluice/dist/src/cli/main.js" "serve" "--data-dir" "/data/50%% off/$\${USER}/<db> & co"`,
        'Restart=on-failure',
        'RestartSec=5',
        'StandardOutput=null',
        'StandardError=journal',
        '',
        '[Install]',
        'WantedBy=default.target',
        '',
      ].join('\n'),
    );
  });

  it('runs systemctl --user with argument arrays', () => {
    expect(plan.install).toEqual([
      { command: 'systemctl', args: ['--user', 'daemon-reload'] },
      { command: 'systemctl', args: ['--user', 'enable', 'sluice.service'] },
      { command: 'systemctl', args: ['--user', 'restart', 'sluice.service'] },
    ]);
    expect(plan.uninstall).toEqual([
      { command: 'systemctl', args: ['--user', 'disable', '--now', 'sluice.service'], mayFail: true },
      { command: 'systemctl', args: ['--user', 'daemon-reload'], mayFail: true },
    ]);
    expect(plan.status).toEqual({ command: 'systemctl', args: ['--user', 'is-active', 'sluice.service'] });
    expect(plan.logs).toBe('journalctl --user -u sluice.service');
  });

  it('follows XDG_CONFIG_HOME and leaves --data-dir out when the user chose none', () => {
    const plain = loginServicePlan('linux', { node: '/usr/bin/node', script: '/s/main.js' }, { home: '/h', supportDir: '/x', xdgConfigHome: '/cfg' });
    expect(plain.file).toBe('/cfg/systemd/user/sluice.service');
    expect(plain.contents).toContain('\nExecStart="/usr/bin/node" "/s/main.js" "serve"\n');
  });

  it('refuses a path with a line break rather than write a unit that runs something else', () => {
    expect(() => loginServicePlan('linux', { node: '/usr/bin/node', script: '/a\nExecStartPre=/bin/evil' }, { home: '/h', supportDir: '/x' })).toThrow(
      'cannot start a path with a control character at login: "/a\\nExecStartPre=/bin/evil"',
    );
  });

  it('quotes one word so that systemd reads back exactly the characters given', () => {
    expect(systemdQuote('a\\b"c%d$e')).toBe('"a\\\\b\\"c%%d$$e"');
  });

  it('writes the program as systemd reads it (% expanded, $ not) and refuses what systemd refuses there', () => {
    expect(systemdExecutable('/a b/100% $x/node')).toBe('"/a b/100%% $x/node"');
    for (const path of [`/o'brien/node`, '/say "hi"/node', '/back\\slash/node'])
      expect(() => systemdExecutable(path)).toThrow(`systemd cannot start a program whose path has a quote or a backslash: ${path}`);
  });
});

describe('loginServicePlan on macOS: a launchd agent', () => {
  const plan = loginServicePlan('darwin', UNIX_TARGET, { home: '/Users/o b', supportDir: '/Users/o b/Library/Application Support/Sluice', uid: 501 });

  it('writes the plist with each argument its own XML-escaped string', () => {
    expect(plan.file).toBe('/Users/o b/Library/LaunchAgents/app.sluice.serve.plist');
    expect(plan.contents).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
        '<plist version="1.0">',
        '<dict>',
        '  <key>Label</key>',
        '  <string>app.sluice.serve</string>',
        '  <key>ProgramArguments</key>',
        '  <array>',
        '    <string>/opt/my node/100% $node/bin/node</string>',
        '    <string>/home/o&apos;brien/&quot;quoted&quot; 100% $HOME/lib/node_modules/sluice/dist/src/cli/main.js</string>',
        '    <string>serve</string>',
        '    <string>--data-dir</string>',
        '    <string>/data/50% off/${USER}/&lt;db&gt; &amp; co</string>',
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
        '  <key>StandardErrorPath</key>',
        '  <string>/Users/o b/Library/Application Support/Sluice/sluice.log</string>',
        '</dict>',
        '</plist>',
        '',
      ].join('\n'),
    );
  });

  it('bootstraps into the user’s GUI domain, replacing a loaded copy', () => {
    expect(plan.install).toEqual([
      { command: 'launchctl', args: ['bootout', 'gui/501/app.sluice.serve'], mayFail: true },
      { command: 'launchctl', args: ['bootstrap', 'gui/501', '/Users/o b/Library/LaunchAgents/app.sluice.serve.plist'] },
    ]);
    expect(plan.uninstall).toEqual([{ command: 'launchctl', args: ['bootout', 'gui/501/app.sluice.serve'], mayFail: true }]);
    expect(plan.status).toEqual({ command: 'launchctl', args: ['print', 'gui/501/app.sluice.serve'] });
    expect(plan.logs).toBe('/Users/o b/Library/Application Support/Sluice/sluice.log');
  });
});

describe('loginServicePlan on Windows: a per-user scheduled task', () => {
  const target = {
    node: 'C:\\Program Files\\nodejs\\node.exe',
    script: "C:\\Users\\Zoë O'Brien & Co\\AppData\\Roaming\\npm\\node_modules\\sluice\\dist\\src\\cli\\main.js",
    dataDir: 'D:\\Sluice <data>\\',
  };
  const user = { home: 'C:\\Users\\Zoë', supportDir: 'D:\\Sluice <data>\\', windowsUser: 'DESKTOP-1\\Zoë' };
  const plan = loginServicePlan('win32', target, user);

  it('writes task XML (UTF-16) with a logon trigger, no time limit, and a command line that reads back exactly', () => {
    expect(plan.file).toBe('D:\\Sluice <data>\\sluice-task.xml');
    expect(plan.encoding).toBe('utf16le');
    expect(plan.contents).toBe(
      [
        '<?xml version="1.0" encoding="UTF-16"?>',
        '<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
        '  <RegistrationInfo>',
        '    <Description>Sluice, the local MCP server for your databases</Description>',
        '  </RegistrationInfo>',
        '  <Triggers>',
        '    <LogonTrigger>',
        '      <Enabled>true</Enabled>',
        '      <UserId>DESKTOP-1\\Zoë</UserId>',
        '    </LogonTrigger>',
        '  </Triggers>',
        '  <Principals>',
        '    <Principal id="Author">',
        '      <UserId>DESKTOP-1\\Zoë</UserId>',
        '      <LogonType>InteractiveToken</LogonType>',
        '      <RunLevel>LeastPrivilege</RunLevel>',
        '    </Principal>',
        '  </Principals>',
        '  <Settings>',
        '    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>',
        '    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>',
        '    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>',
        '    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>',
        '    <RestartOnFailure>',
        '      <Interval>PT1M</Interval>',
        '      <Count>3</Count>',
        '    </RestartOnFailure>',
        '    <Enabled>true</Enabled>',
        '  </Settings>',
        '  <Actions Context="Author">',
        '    <Exec>',
        '      <Command>&quot;C:\\Program Files\\nodejs\\node.exe&quot;</Command>',
        '      <Arguments>&quot;C:\\Users\\Zoë O&apos;Brien &amp; Co\\AppData\\Roaming\\npm\\node_modules\\sluice\\dist\\src\\cli\\main.js&quot; &quot;serve&quot; &quot;--data-dir&quot; &quot;D:\\Sluice &lt;data&gt;\\\\&quot; &quot;--log-file&quot; &quot;D:\\Sluice &lt;data&gt;\\sluice.log&quot;</Arguments>',
        '    </Exec>',
        '  </Actions>',
        '</Task>',
        '',
      ].join('\r\n'),
    );
  });

  it('registers, starts, ends and deletes it with schtasks argument arrays', () => {
    expect(plan.install).toEqual([
      { command: 'schtasks.exe', args: ['/Create', '/TN', 'Sluice', '/XML', 'D:\\Sluice <data>\\sluice-task.xml', '/F'] },
      { command: 'schtasks.exe', args: ['/Run', '/TN', 'Sluice'] },
    ]);
    expect(plan.uninstall).toEqual([
      { command: 'schtasks.exe', args: ['/End', '/TN', 'Sluice'], mayFail: true },
      { command: 'schtasks.exe', args: ['/Delete', '/TN', 'Sluice', '/F'], mayFail: true },
    ]);
    expect(plan.status).toEqual({ command: 'schtasks.exe', args: ['/Query', '/TN', 'Sluice', '/FO', 'LIST', '/V'] });
    expect(plan.logs).toBe('D:\\Sluice <data>\\sluice.log');
  });

  it('refuses a path with % (Task Scheduler would expand it) and needs the user', () => {
    expect(() => loginServicePlan('win32', { ...target, script: 'C:\\100%USERNAME%\\main.js' }, user)).toThrow(
      'cannot start a path containing % from a scheduled task (Windows would expand it): C:\\100%USERNAME%\\main.js',
    );
    expect(() => loginServicePlan('win32', target, { home: 'C:\\h', supportDir: 'C:\\s' })).toThrow('cannot tell the Windows user (USERNAME is not set)');
  });

  it('quotes as CommandLineToArgvW reads back: trailing backslashes doubled, inner ones literal', () => {
    expect(windowsQuote('C:\\a b\\')).toBe('"C:\\a b\\\\"');
    expect(windowsQuote('C:\\a\\b')).toBe('"C:\\a\\b"');
  });
});
