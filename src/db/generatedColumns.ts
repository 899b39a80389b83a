import type { KeepPlan } from './keptWrites.js';

/**
 * A kept write's plan without the columns its table computes (generated columns, stored or virtual): their
 * values follow from the others, which are kept, and a database refuses to have them set or inserted, so
 * an undo that wrote them back would fail.
 */
export function withoutGenerated(plan: KeepPlan, generated: ReadonlySet<string>): KeepPlan {
  if (generated.size === 0) return plan;
  return { ...plan, table: { ...plan.table, columns: plan.table.columns.filter((column) => !generated.has(column.name)) } };
}
