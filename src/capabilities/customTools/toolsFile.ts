import { readFile } from 'node:fs/promises';
import { CUSTOM_TOOLS } from '../../core/contract.js';
import { entryLines, lineOfParseError } from '../../core/jsonEntryLines.js';
import { isPlainObject } from '../../protocol/jsonrpc.js';
import { checkDefinition, type DefinitionContext, DefinitionError, type ToolDefinition } from './toolDefinition.js';

/** The custom tools' definitions, in the data folder. */
export const TOOLS_FILE = 'tools.json';

/** A definition refused: where it is and why. */
export type DefinitionRefusal = { file: string; line: number; reason: string };

export type ToolsFileContents = { definitions: ToolDefinition[]; refusals: DefinitionRefusal[] };

/** The file's text; undefined when there is none. A file over the size bound is refused whole. */
export async function textOf(path: string): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (bytes.length > CUSTOM_TOOLS.maxFileBytes) throw new DefinitionError(`the file is over ${CUSTOM_TOOLS.maxFileBytes / 1024} KB`);
  return bytes.toString('utf8');
}

/** The `tools` list of the file's JSON; a syntax error names the line it is on. */
export function entriesOf(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw Object.assign(new DefinitionError(`not valid JSON: ${(error as Error).message}`), { line: lineOfParseError(text, error as Error) });
  }
  if (!isPlainObject(parsed) || !Array.isArray(parsed.tools)) throw new DefinitionError('the file must be an object with a "tools" list');
  return parsed.tools;
}

/**
 * Reads `tools.json` at `path` and checks each definition on its own: a refused one is reported with its
 * line and reason, and the others are kept. A file that cannot be read as a whole is one refusal.
 */
export async function readToolsFile(path: string, context: DefinitionContext): Promise<ToolsFileContents> {
  const contents: ToolsFileContents = { definitions: [], refusals: [] };
  let text: string | undefined;
  let entries: unknown[];
  try {
    text = await textOf(path);
    if (text === undefined) return contents;
    entries = entriesOf(text);
  } catch (error) {
    if (!(error instanceof DefinitionError)) throw error;
    contents.refusals.push({ file: path, line: (error as { line?: number }).line ?? 1, reason: error.message });
    return contents;
  }
  const lines = entryLines(text, 'tools');
  const taken = new Set(context.taken);
  for (const [index, entry] of entries.entries()) {
    const line = lines[index] ?? 1;
    if (index >= CUSTOM_TOOLS.maxTools) {
      contents.refusals.push({ file: path, line, reason: `past the first ${CUSTOM_TOOLS.maxTools} tools` });
      continue;
    }
    // A turn between definitions: parsing and classifying one statement of 100 KB holds the loop for tens of ms.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      const definition = await checkDefinition(entry, { ...context, taken });
      taken.add(definition.name);
      contents.definitions.push(definition);
    } catch (error) {
      if (!(error instanceof DefinitionError)) throw error;
      contents.refusals.push({ file: path, line, reason: error.message });
    }
  }
  return contents;
}
