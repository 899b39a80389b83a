/**
 * A tool's output schema: the JSON Schema its `structuredContent` follows, declared in `tools/list` for
 * clients to validate results with (MCP `outputSchema`; decisions.md, "Catalogue"). Only keywords that
 * read the same in drafts 07 and 2020-12, so that any client's validator takes them. Null is a type of
 * its own: a field the engine may not know is `[type, 'null']`.
 */

type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null';

export type OutputSchema = {
  type?: JsonType | readonly JsonType[];
  description?: string;
  enum?: readonly (string | null)[];
  properties?: Record<string, OutputSchema>;
  required?: readonly string[];
  items?: OutputSchema;
};

/** The root of an output schema: MCP asks for an object. */
export type ObjectOutputSchema = OutputSchema & { type: 'object'; properties: Record<string, OutputSchema> };

export const text = { type: 'string' } as const;
export const integer = { type: 'integer' } as const;
export const number = { type: 'number' } as const;
export const boolean = { type: 'boolean' } as const;
/** Any JSON value: a database value in a row. */
export const anyValue = {} as const;

/** `type`, or null where the engine does not know the value. */
export const orNull = (type: 'string' | 'integer' | 'number'): OutputSchema => ({ type: [type, 'null'] });

export const oneOf = (values: readonly string[]): OutputSchema => ({ type: 'string', enum: values });

/** One of `values`, or null where the engine does not know. */
export const oneOfOrNull = (values: readonly string[]): OutputSchema => ({ type: ['string', 'null'], enum: [...values, null] });

export const listOf = (items: OutputSchema): OutputSchema => ({ type: 'array', items });

/** An object with these fields, every one always present but those named in `optional`. */
export function record(properties: Record<string, OutputSchema>, optional: readonly string[] = []): ObjectOutputSchema {
  const required = Object.keys(properties).filter((name) => !optional.includes(name));
  return { type: 'object', properties, required };
}
