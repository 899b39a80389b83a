/** Characters that make the Desktop Entry spec ("The Exec key") require an argument to be quoted. */
const RESERVED = /[\s"'\\><~|&;$*?#()`]/;

/**
 * One argument of an `Exec=` line, per the Desktop Entry spec: `%` doubled (it starts a field code),
 * and, when it holds a reserved character, double-quoted with `"`, `` ` ``, `$` and `\` escaped.
 * An argument without reserved characters stays bare, because xdg-open's own launcher (its fallback
 * outside GNOME and KDE) splits the line on blanks and does not read quotes.
 */
export function execArgument(arg: string): string {
  const percent = arg.replace(/%/g, '%%');
  return RESERVED.test(arg) ? `"${percent.replace(/["`$\\]/g, '\\$&')}"` : percent;
}

/** A value of type string in a desktop file: backslash and the control characters escaped. */
export function desktopString(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r');
}

/** True when every argument stays bare in the Exec line (xdg-open's fallback launcher needs that). */
export const execNeedsNoQuotes = (args: string[]) => args.every((arg) => !RESERVED.test(arg));
