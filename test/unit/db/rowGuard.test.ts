import { describe, expect, it } from 'vitest';
import { GuardedSocket } from '../../../src/db/engines/postgres/rowGuard.js';
import { RESULTS } from '../../../src/core/contract.js';

/** A protocol message: type byte, int32 length (counting itself), body. */
const message = (type: string, bodyBytes: number) => {
  const out = Buffer.alloc(5 + bodyBytes, 0x61);
  out.write(type, 0, 'latin1');
  out.writeInt32BE(4 + bodyBytes, 1);
  return out;
};

/** What `pg` would see of `stream` fed in chunks of `size`. */
function through(guard: GuardedSocket, stream: Buffer, size: number): Buffer {
  const seen: Buffer[] = [];
  guard.on('data', (chunk: Buffer) => seen.push(chunk));
  for (let i = 0; i < stream.length; i += size) guard.emit('data', stream.subarray(i, i + size));
  return Buffer.concat(seen);
}

describe('GuardedSocket: DataRows past the allowance never reach the driver', () => {
  const rows = [message('T', 20), message('D', 100), message('D', 100), message('D', 100), message('C', 10), message('Z', 1)];
  const stream = Buffer.concat(rows);

  it('passes everything when disarmed, in any chunking', () => {
    for (const size of [1, 3, 7, 1_000]) expect(through(new GuardedSocket(), stream, size)).toEqual(stream);
  });

  it('armed, drops the rows past the allowance whole and keeps every other message', () => {
    for (const size of [1, 4, 1_000]) {
      const guard = new GuardedSocket();
      guard.arm(220, false);
      expect(through(guard, stream, size)).toEqual(Buffer.concat([rows[0], rows[1], rows[2], rows[4], rows[5]] as Buffer[]));
      expect(guard.dropped).toBe(1);
    }
  });

  it('armed with a number of rows, drops the rows past it whatever their size', () => {
    for (const size of [1, 1_000]) {
      const guard = new GuardedSocket();
      guard.arm(Number.POSITIVE_INFINITY, true, 2);
      expect(through(guard, stream, size)).toEqual(Buffer.concat([rows[0], rows[1], rows[2], rows[4], rows[5]] as Buffer[]));
      expect(guard.dropped).toBe(1);
    }
  });

  it('lets the first row through whatever the allowance when asked, and drops a row over 32 MB always', () => {
    const guard = new GuardedSocket();
    guard.arm(10, true);
    expect(through(guard, Buffer.concat([message('D', 100), message('D', 1)]), 50)).toEqual(message('D', 100));
    const huge = Buffer.alloc(5);
    huge.write('D', 0, 'latin1');
    huge.writeInt32BE(RESULTS.maxPostgresRowBytes + 1, 1);
    const open = new GuardedSocket();
    expect(through(open, huge, 5)).toEqual(Buffer.alloc(0));
    expect(open.dropped).toBe(1);
  });
});
