/** What a server can do, by its `VERSION()`: MariaDB's says so (`10.11.6-MariaDB-0+deb12u1`), MySQL's does not (`8.0.36`). */
export const isMariadb = (version: string) => version.includes('MariaDB');

/** Whether an INSERT can return the rows it adds: MariaDB's INSERT … RETURNING, from 10.5 on; MySQL has none. */
export function insertReturns(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return isMariadb(version) && (major > 10 || (major === 10 && minor >= 5));
}
