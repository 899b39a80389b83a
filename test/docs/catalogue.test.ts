import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OutputSchema } from '../../src/capabilities/outputSchema.js';
import { builtinCapabilities } from '../../src/capabilities/registry.js';
import { readToolsFile } from '../../src/capabilities/customTools/toolsFile.js';
import type { SavedConnection } from '../../src/db/connections/savedConnections.js';

/**
 * docs/catalogue.md against the code (issue 19, item 6): every tool, resource template and prompt is
 * listed once, with the scopes, arguments (`name?` when optional), result fields (issue 29) and cache
 * lifetime the code declares, and nothing is listed that the code does not have.
 */

const doc = readFileSync(new URL('../../docs/catalogue.md', import.meta.url), 'utf8');

/** The rows of the first table after `heading`, as cells. */
function tableAfter(heading: string): string[][] {
  const lines = doc.slice(doc.indexOf(heading)).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);

/**
 * The argument names a cell lists: code spans that are bare identifiers (`?` marking an optional one),
 * other than the values an argument takes (`total`|`mean`).
 */
const argumentsIn = (cell: string, values: Set<string> = new Set()) =>
  codeSpans(cell)
    .filter((span) => /^[a-z_]+\??$/.test(span) && !values.has(span))
    .sort();

/** Every enum value anywhere in a schema. */
const enumValues = (schema: unknown): string[] =>
  typeof schema !== 'object' || schema === null
    ? []
    : [...((schema as { enum?: string[] }).enum ?? []), ...Object.values(schema).flatMap(enumValues)];

/** The names of every property of an output schema, at every depth. */
const fieldNames = (schema: OutputSchema): string[] => [
  ...Object.entries(schema.properties ?? {}).flatMap(([name, property]) => [name, ...fieldNames(property)]),
  ...(schema.items ? fieldNames(schema.items) : []),
];

const declaredArguments = (properties: string[], required: string[]) =>
  properties.map((name) => (required.includes(name) ? name : `${name}?`)).sort();

describe('docs/catalogue.md', () => {
  it('lists every tool with its scopes and arguments', () => {
    const rows = tableAfter('## Tools');
    const tools = builtinCapabilities.tools;
    expect(rows.map((row) => codeSpans(row[0] as string)[0]).sort()).toEqual(tools.map((tool) => tool.name).sort());
    for (const tool of tools) {
      const row = rows.find((cells) => codeSpans(cells[0] as string)[0] === tool.name) as string[];
      // Scopes before a `;` are those every call needs; after it, those a kind of call adds.
      const always = codeSpans((row[1] as string).split(';')[0] as string).sort();
      expect(always, tool.name).toEqual(['tools:read', ...tool.scopes].sort());
      const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
      const declared = declaredArguments(Object.keys(schema.properties ?? {}), schema.required ?? []);
      expect(argumentsIn(row[2] as string, new Set(enumValues(schema))), tool.name).toEqual(declared);
    }
  });

  it('names every field of each tool’s output schema in its result (a result set’s in the paragraph after the table)', () => {
    const rows = tableAfter('## Tools');
    const start = doc.indexOf('Result set: ');
    const resultSet = doc.slice(start, doc.indexOf('\n\n', start));
    for (const tool of builtinCapabilities.tools) {
      const row = rows.find((cells) => codeSpans(cells[0] as string)[0] === tool.name) as string[];
      const result = (row[3] as string).startsWith('result set') ? resultSet : (row[3] as string);
      const unnamed = [...new Set(fieldNames(tool.outputSchema))].filter((name) => !new RegExp(`\\b${name}\\b`).test(result));
      expect(unnamed, tool.name).toEqual([]);
    }
  });

  it('lists every resource template with its cache lifetime', () => {
    const rows = tableAfter('## Resources');
    const documented = rows.map((row) => [codeSpans(row[0] as string)[0], Number((row[1] as string).replace(/,/g, ''))]);
    const declared = builtinCapabilities.resources.map((family) => [family.uriTemplate, family.ttlMs]);
    expect(documented.sort()).toEqual(declared.sort());
  });

  it('lists every prompt with its arguments', () => {
    const rows = tableAfter('## Prompts');
    const prompts = builtinCapabilities.prompts;
    expect(rows.map((row) => codeSpans(row[0] as string)[0]).sort()).toEqual(prompts.map((prompt) => prompt.name).sort());
    for (const prompt of prompts) {
      const row = rows.find((cells) => codeSpans(cells[0] as string)[0] === prompt.name) as string[];
      const declared = declaredArguments(
        prompt.arguments.map((a) => a.name),
        prompt.arguments.filter((a) => a.required).map((a) => a.name),
      );
      expect(argumentsIn(row[1] as string), prompt.name).toEqual(declared);
    }
  });
});

describe('docs/catalogue.md, "Custom tools"', () => {
  it('gives an example tools.json that Sluice reads without a refusal, on the demo connection', async () => {
    const section = doc.slice(doc.indexOf('## Custom tools'));
    const example = /```json\n([\s\S]*?)```/.exec(section)?.[1] as string;
    const dir = mkdtempSync(join(tmpdir(), 'sluice-catalogue-'));
    try {
      writeFileSync(join(dir, 'tools.json'), example);
      const demo = { id: 'demo', name: 'Demo bookshop', engine: 'sqlite', path: join(dir, 'demo.sqlite') } as SavedConnection;
      const read = await readToolsFile(join(dir, 'tools.json'), {
        taken: new Set(builtinCapabilities.tools.map((tool) => tool.name)),
        connection: (id) => (id === 'demo' ? demo : undefined),
      });
      expect(read.refusals).toEqual([]);
      expect(read.definitions.map((d) => [d.name, d.kind])).toEqual([['order_status', 'read'], ['cancel_order', 'write']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
