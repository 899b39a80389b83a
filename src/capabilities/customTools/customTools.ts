import { type FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';
import type { AppClock } from '../../core/clock.js';
import { CUSTOM_TOOLS } from '../../core/contract.js';
import type { ConnectionCatalog } from '../../db/connections/connectionCatalog.js';
import type { CapabilityRegistry } from '../registry.js';
import { customTool } from './customTool.js';
import { DefinitionError } from './toolDefinition.js';
import { type DefinitionRefusal, readToolsFile, TOOLS_FILE } from './toolsFile.js';
import { defineInFile, removeFromFile } from './toolsFileEdits.js';

export type CustomToolsDeps = {
  dataDir: string;
  registry: CapabilityRegistry;
  catalog: ConnectionCatalog;
  clock: AppClock;
  /** Says a refused definition, once while it stays refused (`sluice serve`: standard error). */
  notice(line: string): void;
  /** Told when the tools or the refusals changed (the console shows both). */
  changed(): void;
};

/** A refusal as one line: `file:line: reason`. */
const refusalLine = (refusal: DefinitionRefusal) => `${refusal.file}:${refusal.line}: ${refusal.reason}`;

/**
 * The custom tools of `tools.json`, kept in the registry as the file says: read at start, and again once
 * an edit of the file (or of the saved connections, which definitions name) has settled for
 * `CUSTOM_TOOLS.reloadSettleMs`. Reads never overlap; the tools are replaced only when their
 * definitions changed, which is what tells `subscriptions/listen` listeners that the list changed.
 */
export class CustomTools {
  readonly #deps: CustomToolsDeps;
  readonly path: string;
  #refusals: DefinitionRefusal[] = [];
  /** The definitions last put in the registry, as JSON. */
  #loaded = '[]';
  #reading: Promise<void> = Promise.resolve();
  #settling: unknown;
  #watcher: FSWatcher | undefined;
  #stopConnections: (() => void) | undefined;

  constructor(deps: CustomToolsDeps) {
    this.#deps = deps;
    this.path = join(deps.dataDir, TOOLS_FILE);
  }

  /** The custom tools served now, in the file's order. */
  names(): string[] {
    return this.#deps.registry.customToolNames();
  }

  /** The definitions refused by the last read. */
  refusals(): DefinitionRefusal[] {
    return [...this.#refusals];
  }

  /** Reads the file now (after any read under way) and applies it. */
  reload(): Promise<void> {
    this.#reading = this.#reading.then(() => this.#read()).catch(this.#unread);
    return this.#reading;
  }

  /** A file that cannot be read at all (permissions) keeps the tools as they were, and says why. */
  readonly #unread = (error: unknown) => {
    this.#deps.notice(`${this.path} not read: ${(error as Error).message}`);
  }

  /** The built-in tools' names: what no custom tool may be called. */
  #builtinNames(): Set<string> {
    const custom = new Set(this.#deps.registry.customToolNames());
    return new Set([...this.#deps.registry.tools.keys()].filter((name) => !custom.has(name)));
  }

  /**
   * Adds a definition to the file (or replaces the one of its name) once it passes the checks, and
   * reads the file again; a refused one throws an Error with the reason and leaves the file alone.
   */
  async define(entry: unknown): Promise<void> {
    const name = typeof entry === 'object' && entry !== null ? (entry as { name?: unknown }).name : undefined;
    const others = this.names().filter((other) => other !== name);
    const context = { taken: new Set([...this.#builtinNames(), ...others]), connection: (id: string) => this.#deps.catalog.get(id) };
    await this.#edit(() => defineInFile(this.path, entry, context));
  }

  /** Removes the named definition from the file and reads it again; an Error when it has none. */
  async remove(name: string): Promise<void> {
    await this.#edit(async () => {
      if (!(await removeFromFile(this.path, name))) throw new DefinitionError(`${this.path} defines no tool named ${name}`);
    });
  }

  /** One edit of the file, after any read or edit under way, then a read; a refusal is a plain Error. */
  async #edit(change: () => Promise<void>): Promise<void> {
    const edited = this.#reading.then(change);
    // A refused edit changed nothing, so nothing is read again.
    this.#reading = edited.then(() => this.#read(), () => undefined).catch(this.#unread);
    try {
      await edited;
    } catch (error) {
      if (error instanceof DefinitionError) throw new Error(error.message, { cause: error });
      throw error;
    }
    await this.#reading;
  }

  async #read(): Promise<void> {
    const { registry, catalog } = this.#deps;
    const taken = this.#builtinNames();
    const { definitions, refusals } = await readToolsFile(this.path, { taken, connection: (id) => catalog.get(id) });
    const said = new Set(this.#refusals.map(refusalLine));
    for (const refusal of refusals) if (!said.has(refusalLine(refusal))) this.#deps.notice(`custom tool refused: ${refusalLine(refusal)}`);
    const refusalsChanged = JSON.stringify(refusals) !== JSON.stringify(this.#refusals);
    this.#refusals = refusals;
    const loaded = JSON.stringify(definitions);
    const toolsChanged = loaded !== this.#loaded;
    this.#loaded = loaded;
    if (toolsChanged) registry.replaceCustomTools(definitions.map(customTool));
    if (refusalsChanged || toolsChanged) this.#deps.changed();
  }

  /** Reads again once changes stop arriving for the settle time. */
  #settle(): void {
    const { clock } = this.#deps;
    clock.clearTimeout(this.#settling);
    this.#settling = clock.setTimeout(() => {
      this.#settling = undefined;
      void this.reload();
    }, CUSTOM_TOOLS.reloadSettleMs);
  }

  /** Watches the data folder for the file (an editor often replaces it whole) and the saved connections. */
  watch(): void {
    this.#watcher = watch(this.#deps.dataDir, (_event, name) => {
      if (name === TOOLS_FILE) this.#settle();
    });
    this.#stopConnections = this.#deps.catalog.changes.subscribe((change) => {
      if (change.type === 'connections') this.#settle();
    });
  }

  /** Stops watching; a read under way finishes. */
  async close(): Promise<void> {
    this.#watcher?.close();
    this.#stopConnections?.();
    this.#deps.clock.clearTimeout(this.#settling);
    await this.#reading;
  }
}
