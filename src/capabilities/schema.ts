import { invalidParams } from '../core/errors.js';
import { isPlainObject } from '../protocol/jsonrpc.js';

/** The subset of JSON Schema the catalogue declares, and validates arguments against. */
export type Schema =
  | {
      type: 'string';
      description?: string;
      enum?: readonly string[];
      minLength?: number;
      maxLength?: number;
      /** An ECMAScript pattern (Unicode mode), unanchored as JSON Schema reads it. */
      pattern?: string;
      default?: string;
    }
  | { type: 'integer' | 'number'; description?: string; minimum?: number; maximum?: number; default?: number }
  | { type: 'boolean'; description?: string; default?: boolean }
  | { type: 'array'; description?: string; items: Schema; maxItems?: number; minItems?: number }
  | ObjectSchema
  | { description?: string; type?: undefined };

export type ObjectSchema = {
  type: 'object';
  description?: string;
  properties: Record<string, Schema>;
  required?: readonly string[];
  additionalProperties?: boolean;
};

function fail(path: string, message: string): never {
  throw invalidParams(`Invalid arguments: ${path} ${message}`, { path });
}

/** Each pattern compiled once. */
const patterns = new Map<string, RegExp>();

function patternOf(source: string): RegExp {
  let pattern = patterns.get(source);
  if (!pattern) patterns.set(source, (pattern = new RegExp(source, 'u')));
  return pattern;
}

function check(schema: Schema, value: unknown, path: string): void {
  switch (schema.type) {
    case undefined:
      return;
    case 'string':
      if (typeof value !== 'string') fail(path, 'must be a string');
      if (schema.enum && !schema.enum.includes(value)) fail(path, `must be one of ${schema.enum.join(', ')}`);
      if (schema.minLength !== undefined && value.length < schema.minLength)
        fail(path, `must have at least ${schema.minLength} characters`);
      if (schema.maxLength !== undefined && value.length > schema.maxLength)
        fail(path, `must have at most ${schema.maxLength} characters`);
      if (schema.pattern !== undefined && !patternOf(schema.pattern).test(value)) fail(path, `must match the pattern ${schema.pattern}`);
      return;
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) fail(path, `must be a ${schema.type}`);
      if (schema.type === 'integer' && !Number.isInteger(value)) fail(path, 'must be an integer');
      if (schema.minimum !== undefined && value < schema.minimum)
        fail(path, `must be at least ${schema.minimum}`);
      if (schema.maximum !== undefined && value > schema.maximum)
        fail(path, `must be at most ${schema.maximum}`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail(path, 'must be a boolean');
      return;
    case 'array':
      if (!Array.isArray(value)) fail(path, 'must be an array');
      if (schema.minItems !== undefined && value.length < schema.minItems)
        fail(path, `must have at least ${schema.minItems} items`);
      if (schema.maxItems !== undefined && value.length > schema.maxItems)
        fail(path, `must have at most ${schema.maxItems} items`);
      for (const [i, item] of value.entries()) check(schema.items, item, `${path}[${i}]`);
      return;
    case 'object':
      checkObject(schema, value, path);
      return;
  }
}

function checkObject(schema: ObjectSchema, value: unknown, path: string): void {
  if (!isPlainObject(value)) fail(path, 'must be an object');
  for (const name of schema.required ?? []) {
    if (value[name] === undefined) fail(`${path}.${name}`, 'is required');
  }
  for (const [name, field] of Object.entries(value)) {
    // Own properties only: an argument named "constructor" is not a known one.
    const property = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    if (!property) {
      if (schema.additionalProperties === false) fail(`${path}.${name}`, 'is not a known argument');
      continue;
    }
    if (field !== undefined) check(property, field, `${path}.${name}`);
  }
}

/** Validates `value` against an object schema; every failure is `-32602` naming the offending path. */
export function validateArguments<S extends ObjectSchema>(schema: S, value: unknown): FromSchema<S> {
  checkObject(schema, value ?? {}, 'arguments');
  return (value ?? {}) as FromSchema<S>;
}

/** The value a schema admits, as a TypeScript type: what `validateArguments` lets through. */
export type FromSchema<S> = S extends { type: 'string'; enum: readonly (infer E)[] }
  ? E
  : S extends { type: 'string' }
    ? string
    : S extends { type: 'integer' | 'number' }
      ? number
      : S extends { type: 'boolean' }
        ? boolean
        : S extends { type: 'array'; items: infer I }
          ? FromSchema<I>[]
          : S extends ObjectSchema
            ? FromObjectSchema<S>
            : unknown;

type RequiredNames<S extends ObjectSchema> = S['required'] extends readonly (infer R)[] ? R & keyof S['properties'] : never;

/**
 * An object schema's value: its required properties, the others optional, and (unless
 * `additionalProperties: false`) any other name. Flattened so that hovers show the fields.
 */
type FromObjectSchema<S extends ObjectSchema> = Flat<
  { [K in RequiredNames<S>]: FromSchema<S['properties'][K]> } & {
    [K in Exclude<keyof S['properties'], RequiredNames<S>>]?: FromSchema<S['properties'][K]>;
  } & (S extends { additionalProperties: false } ? unknown : Record<string, unknown>)
>;

type Flat<T> = { [K in keyof T]: T[K] };
