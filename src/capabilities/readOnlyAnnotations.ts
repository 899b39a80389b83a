import type { ToolAnnotations } from './types.js';

/** Annotations of every tool that only reads the database. */
export const readOnlyAnnotations: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
