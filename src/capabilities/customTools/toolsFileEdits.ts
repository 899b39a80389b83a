import { writeFileAtomic } from '../../core/atomicFile.js';
import { checkDefinition, type DefinitionContext, DefinitionError } from './toolDefinition.js';
import { entriesOf, textOf } from './toolsFile.js';

/** The file's entries, or an empty list when there is no file; a file that cannot be read is refused. */
async function currentEntries(path: string): Promise<unknown[]> {
  try {
    const text = await textOf(path);
    return text === undefined ? [] : entriesOf(text);
  } catch (error) {
    if (error instanceof DefinitionError) throw new DefinitionError(`${path} cannot be edited until it is fixed: ${error.message}`);
    throw error;
  }
}

const nameOf = (entry: unknown) => (typeof entry === 'object' && entry !== null ? (entry as { name?: unknown }).name : undefined);

/** Writes the entries back as the file's whole JSON, two-space indented. */
function write(path: string, entries: unknown[]): void {
  writeFileAtomic(path, `${JSON.stringify({ tools: entries }, null, 2)}\n`);
}

/**
 * The console's form: adds the definition to tools.json, or replaces the one of the same name, once it
 * passes the same checks as a definition read from the file (a refusal throws a DefinitionError and
 * leaves the file as it was). `context.taken` holds the names of the other tools, built-in and custom.
 */
export async function defineInFile(path: string, entry: unknown, context: DefinitionContext): Promise<void> {
  const entries = await currentEntries(path);
  const definition = await checkDefinition(entry, context);
  const at = entries.findIndex((e) => nameOf(e) === definition.name);
  write(path, at === -1 ? [...entries, entry] : entries.map((e, i) => (i === at ? entry : e)));
}

/** Removes the named definition from tools.json; false when the file has none of that name. */
export async function removeFromFile(path: string, name: string): Promise<boolean> {
  const entries = await currentEntries(path);
  const kept = entries.filter((e) => nameOf(e) !== name);
  if (kept.length === entries.length) return false;
  write(path, kept);
  return true;
}
