import { type ChildProcess, spawn as nodeSpawn, type SpawnOptions } from 'node:child_process';

/** What a desktop notification says; neither text is ever part of a command or a script. */
export type Notice = {
  title: string;
  body: string;
  /** Where a click goes (Linux only: the other systems' notifications cannot call back). */
  onClick?: () => void;
};

/** Shows a notice; the function returned withdraws what is still running of it. */
export type DesktopNotifier = { show(notice: Notice): () => void };

export type NoticeCommand = { command: string; args: string[]; env: Record<string, string> };

export type Spawn = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

const CLICK_ACTION = 'open';

// AppleScript's `display notification`, with both texts taken from the script's arguments.
const MACOS_SCRIPT = ['on run argv', 'display notification (item 2 of argv) with title (item 1 of argv)', 'end run'];

// A Windows toast whose texts come from the environment. The app id is PowerShell's own: a toast needs a
// registered one, and Sluice registers none.
const WINDOWS_SCRIPT = [
  '$ErrorActionPreference = "Stop"',
  '[void][Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime]',
  '$xml = [Windows.UI.Notifications.ToastNotificationManager]::GetTemplateContent([Windows.UI.Notifications.ToastTemplateType]::ToastText02)',
  '$texts = $xml.GetElementsByTagName("text")',
  '[void]$texts.Item(0).AppendChild($xml.CreateTextNode($env:SLUICE_NOTICE_TITLE))',
  '[void]$texts.Item(1).AppendChild($xml.CreateTextNode($env:SLUICE_NOTICE_BODY))',
  '$appId = "{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\\WindowsPowerShell\\v1.0\\powershell.exe"',
  '[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier($appId).Show([Windows.UI.Notifications.ToastNotification]::new($xml))',
].join('\n');

// Notification servers read the body as a small markup language: a client's text must stay text.
const markupEscaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The program that shows `notice` on `platform`, its arguments and its environment: the texts are argv
 * items (after `--` on Linux, so none is read as an option) or environment values, never a shell's or a
 * script's source.
 */
export function noticeCommand(platform: NodeJS.Platform, notice: Notice): NoticeCommand {
  if (platform === 'darwin') {
    // The title (Sluice's own words) comes first: osascript stops reading options there.
    return { command: 'osascript', args: [...MACOS_SCRIPT.flatMap((line) => ['-e', line]), notice.title, notice.body], env: {} };
  }
  if (platform === 'win32') {
    return {
      command: 'powershell.exe',
      args: ['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand', Buffer.from(WINDOWS_SCRIPT, 'utf16le').toString('base64')],
      env: { SLUICE_NOTICE_TITLE: notice.title, SLUICE_NOTICE_BODY: notice.body },
    };
  }
  // With an action, notify-send waits for the notification to close and prints the action clicked.
  const click = notice.onClick ? [`--action=${CLICK_ACTION}=Open the console`, '--wait'] : [];
  return { command: 'notify-send', args: ['--app-name=Sluice', ...click, '--', notice.title, markupEscaped(notice.body)], env: {} };
}

export type DesktopNotifierDeps = {
  /** The server log: told once, when notices turn out not to work, why they are off. */
  log(line: string): void;
  platform?: NodeJS.Platform;
  spawn?: Spawn;
};

/**
 * The operating system's notifications. The first notice that cannot be shown (no `notify-send`, no
 * session bus, a refused script) turns them off for the rest of the run, with one line in the log.
 */
export function desktopNotifier(deps: DesktopNotifierDeps): DesktopNotifier {
  const platform = deps.platform ?? process.platform;
  const spawn = deps.spawn ?? nodeSpawn;
  let off = false;
  const turnOff = (why: string) => {
    if (off) return;
    off = true;
    deps.log(`sluice: desktop notifications are off: ${why}\n`);
  };
  return {
    show(notice) {
      if (off) return () => {};
      const { command, args, env } = noticeCommand(platform, notice);
      const child = spawn(command, args, {
        shell: false,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
        env: { ...process.env, ...env },
      });
      let withdrawn = false;
      let stdout = '';
      let stderr = '';
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout = (stdout + chunk).slice(-256)));
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-256)));
      child.once('error', (error: NodeJS.ErrnoException) =>
        turnOff(error.code === 'ENOENT' ? `${command} was not found${platform === 'linux' ? ' (install libnotify-bin)' : ''}` : error.message),
      );
      child.once('close', (code: number | null) => {
        if (withdrawn) return;
        if (code !== 0 && code !== null) turnOff(`${command} exited with ${code}${stderr.trim() ? `: ${stderr.trim().split('\n')[0]}` : ''}`);
        else if (stdout.trim() === CLICK_ACTION) notice.onClick?.();
      });
      return () => {
        withdrawn = true;
        if (child.exitCode === null && child.signalCode === null) child.kill();
      };
    },
  };
}
