import { describe, expect, it } from 'vitest';
import { type ObjectSchema, validateArguments } from '../../../src/capabilities/schema.js';
import { ProtocolError } from '../../../src/core/errors.js';

const schema: ObjectSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 5 },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    ratio: { type: 'number' },
    flag: { type: 'boolean' },
    mode: { type: 'string', enum: ['a', 'b'] },
    list: { type: 'array', items: { type: 'integer' }, maxItems: 2 },
    nested: {
      type: 'object',
      properties: { x: { type: 'string' } },
      required: ['x'],
      additionalProperties: false,
    },
    anything: {},
  },
  required: ['name'],
  additionalProperties: false,
};

const failure = (value: unknown) => {
  try {
    validateArguments(schema, value);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
    return (error as ProtocolError).data?.path;
  }
};

describe('validateArguments', () => {
  it('accepts valid arguments', () => {
    const args = {
      name: 'ab',
      count: 3,
      ratio: 0.5,
      flag: true,
      mode: 'b',
      list: [1, 2],
      nested: { x: 'y' },
      anything: [{}],
    };
    expect(validateArguments(schema, args)).toBe(args);
  });

  it.each([
    [{}, 'arguments.name'],
    [{ name: 'ab', extra: 1 }, 'arguments.extra'],
    [{ name: 7 }, 'arguments.name'],
    [{ name: '' }, 'arguments.name'],
    [{ name: 'toolong' }, 'arguments.name'],
    [{ name: 'a', count: 1.5 }, 'arguments.count'],
    [{ name: 'a', count: 11 }, 'arguments.count'],
    [{ name: 'a', ratio: Number.NaN }, 'arguments.ratio'],
    [{ name: 'a', flag: 'true' }, 'arguments.flag'],
    [{ name: 'a', mode: 'c' }, 'arguments.mode'],
    [{ name: 'a', list: [1, 'x'] }, 'arguments.list[1]'],
    [{ name: 'a', list: [1, 2, 3] }, 'arguments.list'],
    [{ name: 'a', nested: {} }, 'arguments.nested.x'],
    [{ name: 'a', nested: { x: 'y', z: 1 } }, 'arguments.nested.z'],
    [[], 'arguments'],
  ])('%j fails at %s', (value, path) => {
    expect(failure(value)).toBe(path);
  });
});
