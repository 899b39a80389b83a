import { spawn } from 'node:child_process';

/**
 * The program that opens `url` on `platform`, and its arguments: the URL is always one argument, given
 * unchanged, and no shell ever reads it. (On Windows `cmd /c start` would run whatever follows an `&`
 * in the URL; `rundll32 url.dll,FileProtocolHandler` opens it as the shell's "open" verb would.)
 */
export function urlOpener(platform: NodeJS.Platform, url: string): { command: string; args: string[] } {
  if (platform === 'darwin') return { command: 'open', args: [url] };
  if (platform === 'win32') return { command: 'rundll32.exe', args: ['url.dll,FileProtocolHandler', url] };
  return { command: 'xdg-open', args: [url] };
}

/** Hands `url` to the operating system's opener; resolves once the opener has started. */
export function openWithOs(url: string, platform: NodeJS.Platform = process.platform): Promise<void> {
  const { command, args } = urlOpener(platform, url);
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, shell: false });
    child.once('error', (error) => reject(new Error(`cannot start ${command}: ${error.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
