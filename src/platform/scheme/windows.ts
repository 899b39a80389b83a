import { type SchemeRegistrar, type SchemeTarget, SCHEME, handlerArgs } from './target.js';

const SCHEME_KEY = `HKCU\\Software\\Classes\\${SCHEME}`;
const COMMAND_KEY = `${SCHEME_KEY}\\shell\\open\\command`;

/**
 * One argument of the command line Windows builds from the registered command, quoted as the C runtime
 * reads it back: backslashes doubled only before a quote. A path with `"` cannot exist on Windows; one
 * with `%` is refused, because the shell replaces `%1`, `%L`, `%*`… anywhere in the command and has no
 * escape for a literal `%`.
 */
function windowsArgument(arg: string): string {
  if (/["%]/.test(arg)) throw new Error(`cannot register a command whose path holds " or %: ${arg}`);
  return `"${arg.replace(/(\\+)$/, '$1$1')}"`;
}

/** The `shell\open\command` value: the handler's arguments, then the link as `"%1"`. */
const openCommand = (t: SchemeTarget) => [...handlerArgs(t).map(windowsArgument), '"%1"'].join(' ');

/** `reg query` prints `    (Default)    REG_SZ    <value>`; the label is translated, the type is not. */
const registryString = (output: string) => /\sREG_SZ {4}(.*)$/m.exec(output)?.[1]?.replace(/\r$/, '');

/**
 * Windows: `HKCU\Software\Classes\sluice`, a URL protocol of the current user, written by reg.exe with
 * argument arrays (no cmd.exe, so no `%` or `&` of a path is ever expanded or run).
 */
export const windowsScheme: SchemeRegistrar = {
  install: (t) => [
    { kind: 'run', command: 'reg.exe', args: ['add', SCHEME_KEY, '/ve', '/t', 'REG_SZ', '/d', 'URL:Sluice pairing link', '/f'] },
    { kind: 'run', command: 'reg.exe', args: ['add', SCHEME_KEY, '/v', 'URL Protocol', '/t', 'REG_SZ', '/d', '', '/f'] },
    { kind: 'run', command: 'reg.exe', args: ['add', COMMAND_KEY, '/ve', '/t', 'REG_SZ', '/d', openCommand(t), '/f'] },
  ],
  uninstall: (_t, host) =>
    host.run('reg.exe', ['query', SCHEME_KEY]).status === 0 ? [{ kind: 'run', command: 'reg.exe', args: ['delete', SCHEME_KEY, '/f'] }] : [],
  isInstalled(t, host) {
    if (!handlerArgs(t).every((arg) => !/["%]/.test(arg))) return false;
    const query = host.run('reg.exe', ['query', COMMAND_KEY, '/ve']);
    return query.status === 0 && registryString(query.stdout) === openCommand(t);
  },
};
