/** A value a server driver returned, as JSON can carry it (binary as `0x…` hex, as SQLite's are). */
export function toWireValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value !== 'bigint') return value;
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (Buffer.isBuffer(value)) return `0x${value.toString('hex')}`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return value;
}

/** A row the driver made for this statement alone, its values made wire values in place (a fresh array per row costs more than the conversion). */
export function wireValues(row: unknown[]): unknown[] {
  for (let i = 0; i < row.length; i++) {
    const value = row[i];
    if (typeof value === 'object' || typeof value === 'bigint') row[i] = toWireValue(value);
  }
  return row;
}

/** A 64-bit integer sent as text: a number when it fits, else the text. */
export function int64(text: string): number | string {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
}

/**
 * Runs `work`; when `signal` aborts, `cancel` stops it on the server (and `work` then fails), and the
 * call rejects with the abort's reason rather than with the server's "cancelled" error.
 */
export async function cancellable<T>(signal: AbortSignal, work: () => Promise<T>, cancel: () => Promise<void>): Promise<T> {
  signal.throwIfAborted();
  const onAbort = () => void cancel().catch(() => {});
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await work();
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
