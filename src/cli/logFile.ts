import { mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * `serve --log-file FILE`: everything written to stderr is appended to FILE (mode 0600) instead, for
 * service managers that cannot capture a program's output (Windows' Task Scheduler). stdout, which
 * carries the console's one-time link, is left alone and never reaches the file.
 */
export function appendStderrTo(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const fd = openSync(file, 'a', 0o600);
  process.stderr.write = ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
    writeSync(fd, typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : chunk);
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') done();
    return true;
  }) as typeof process.stderr.write;
}
