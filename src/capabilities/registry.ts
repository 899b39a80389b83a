import type { Principal } from '../auth/principal.js';
import { dataQualityAudit } from './prompts/dataQualityAudit.js';
import { explainSchema } from './prompts/explainSchema.js';
import { explainTable } from './prompts/explainTable.js';
import { proposeIndexes } from './prompts/proposeIndexes.js';
import { questionToSql } from './prompts/questionToSql.js';
import { reviewQuery } from './prompts/reviewQuery.js';
import { summarizeQueryHistory } from './prompts/summarizeQueryHistory.js';
import { writeMigration } from './prompts/writeMigration.js';
import { connectionsResource } from './resources/connections.js';
import { databasesResource } from './resources/databases.js';
import { historyResource } from './resources/history.js';
import { schemaResource } from './resources/schema.js';
import { schemasResource } from './resources/schemas.js';
import { tableResource } from './resources/table.js';
import { tableDdlResource } from './resources/tableDdl.js';
import { tablesResource } from './resources/tables.js';
import { browseTable } from './tools/browseTable.js';
import { confirmDestructiveOperation } from './tools/confirmDestructiveOperation.js';
import { countRows } from './tools/countRows.js';
import { databaseHealth } from './tools/databaseHealth.js';
import { databaseStatistics } from './tools/databaseStatistics.js';
import { describeTable } from './tools/describeTable.js';
import { executeQuery } from './tools/executeQuery.js';
import { exportData } from './tools/exportData.js';
import { explainQuery } from './tools/explainQuery.js';
import { getTableDdl } from './tools/getTableDdl.js';
import { insertRows } from './tools/insertRows.js';
import { getViewDefinition } from './tools/getViewDefinition.js';
import { indexAdvice } from './tools/indexAdvice.js';
import { listConnections } from './tools/listConnections.js';
import { listDatabases } from './tools/listDatabases.js';
import { listForeignKeys } from './tools/listForeignKeys.js';
import { listIndexes } from './tools/listIndexes.js';
import { listRoutines } from './tools/listRoutines.js';
import { listSchemas } from './tools/listSchemas.js';
import { listTables } from './tools/listTables.js';
import { listTriggers } from './tools/listTriggers.js';
import { listViews } from './tools/listViews.js';
import { searchSchema } from './tools/searchSchema.js';
import { slowQueries } from './tools/slowQueries.js';
import { tableStatistics } from './tools/tableStatistics.js';
import type { CapabilityModules, Prompt, ResourceFamily, Tool } from './types.js';

/** Everything Sluice ships; tests may add modules of their own next to these. */
export const builtinCapabilities: CapabilityModules = {
  tools: [
    listConnections,
    listDatabases,
    listSchemas,
    listTables,
    describeTable,
    getTableDdl,
    listIndexes,
    listForeignKeys,
    listViews,
    getViewDefinition,
    listRoutines,
    listTriggers,
    searchSchema,
    executeQuery,
    explainQuery,
    slowQueries,
    indexAdvice,
    countRows,
    tableStatistics,
    databaseStatistics,
    databaseHealth,
    browseTable,
    exportData,
    insertRows,
    confirmDestructiveOperation,
  ],
  resources: [
    connectionsResource,
    schemaResource,
    tablesResource,
    tableResource,
    tableDdlResource,
    historyResource,
    databasesResource,
    schemasResource,
  ],
  prompts: [
    explainSchema,
    explainTable,
    questionToSql,
    reviewQuery,
    writeMigration,
    dataQualityAudit,
    proposeIndexes,
    summarizeQueryHistory,
  ],
};

export class CapabilityRegistry {
  readonly tools = new Map<string, Tool>();
  readonly prompts = new Map<string, Prompt>();
  readonly resources: ResourceFamily[] = [];
  /** The names of the custom tools (tools.json), which follow the others in `tools`. */
  readonly #custom = new Set<string>();
  readonly #toolListeners = new Set<() => void>();

  constructor(...modules: CapabilityModules[]) {
    for (const module of modules) {
      for (const tool of module.tools) this.tools.set(tool.name, tool);
      for (const prompt of module.prompts) this.prompts.set(prompt.name, prompt);
      this.resources.push(...module.resources);
    }
  }

  /** The tools a principal may call: `tools:read` plus each tool's own scopes, and its grant's tools when it has one. */
  toolsFor(principal: Principal): Tool[] {
    if (!principal.scopes.has('tools:read')) return [];
    return [...this.tools.values()].filter((t) => this.granted(principal, t.name) && t.scopes.every((s) => principal.scopes.has(s)));
  }

  /** Whether the principal's grant lets it reach this tool: any tool without a grant of tools, else only custom tools it names. */
  granted(principal: Principal, name: string): boolean {
    return principal.tools === undefined || (principal.tools.has(name) && this.#custom.has(name));
  }

  /** The custom tools' names, in the file's order. */
  customToolNames(): string[] {
    return [...this.#custom];
  }

  /** Replaces the custom tools (never a built-in one) and tells those listening that the list changed. */
  replaceCustomTools(tools: Tool[]): void {
    for (const name of this.#custom) this.tools.delete(name);
    this.#custom.clear();
    for (const tool of tools) {
      if (this.tools.has(tool.name)) throw new Error(`a custom tool cannot take the name of the tool ${tool.name}`);
      this.tools.set(tool.name, tool);
      this.#custom.add(tool.name);
    }
    for (const listener of this.#toolListeners) listener();
  }

  /** Hears each change of the custom tools; returns the function that stops listening. */
  onToolsChanged(listener: () => void): () => void {
    this.#toolListeners.add(listener);
    return () => this.#toolListeners.delete(listener);
  }

  findResource(uri: string): { family: ResourceFamily; variables: Record<string, string> } | undefined {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return undefined;
    }
    for (const family of this.resources) {
      const variables = family.match(url);
      if (variables) return { family, variables };
    }
    return undefined;
  }
}
