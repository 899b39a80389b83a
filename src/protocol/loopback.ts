/** The host names of the loopback interface, as URL `hostname`s (IPv6 in brackets). */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);
