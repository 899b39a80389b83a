import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../../../src/protocol/cursor.js';
import type { ProtocolError } from '../../../src/core/errors.js';
import { PAGES } from '../../../src/core/contract.js';

const codes = (fn: () => unknown) => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as ProtocolError).code;
  }
};

describe('CursorCodec', () => {
  const codec = new CursorCodec();
  const items = Array.from({ length: 120 }, (_, i) => i);

  it('pages 50 at a time and ends without a cursor', () => {
    const first = codec.page('tools/list', items, undefined);
    expect(first.items).toEqual(items.slice(0, PAGES.pageSize));
    const second = codec.page('tools/list', items, first.nextCursor);
    const third = codec.page('tools/list', items, second.nextCursor);
    expect([...first.items, ...second.items, ...third.items]).toEqual(items);
    expect(third.nextCursor).toBeUndefined();
  });

  it('binds a cursor to its method and its key, and refuses forgeries', () => {
    const cursor = codec.page('tools/list', items, undefined).nextCursor as string;
    expect(codes(() => codec.decode('prompts/list', cursor))).toBe(-32602);
    expect(codes(() => new CursorCodec().decode('tools/list', cursor))).toBe(-32602);
    const forged = Buffer.from(`${'x'.repeat(16)}tools/list\n0`).toString('base64url');
    expect(codes(() => codec.decode('tools/list', forged))).toBe(-32602);
    for (const bad of ['', 'abc', 42, null, 'a'.repeat(600)])
      expect(codes(() => codec.decode('tools/list', bad))).toBe(-32602);
  });
});
