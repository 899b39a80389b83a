/** The tools of decisions.md's catalogue that only need `tools:read` (plus `tools:write` to write). */
export const READ_TOOLS = [
  'list_connections',
  'list_databases',
  'list_schemas',
  'list_tables',
  'describe_table',
  'get_table_ddl',
  'search_schema',
  'execute_query',
  'explain_query',
  'count_rows',
  'browse_table',
];

export const ALL_TOOLS = [...READ_TOOLS, 'confirm_destructive_operation'];
