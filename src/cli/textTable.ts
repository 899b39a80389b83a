import { visibleText } from '../core/shared/visibleText.js';

/**
 * Rows as a terminal table: columns padded to their widest cell, two spaces apart. Every cell is shown
 * by the one rule of invisible characters (`visibleText`), since names and messages come from clients
 * and databases: no escape sequence, bidi control or line break of theirs reaches the terminal.
 */
export function textTable(rows: readonly (readonly string[])[]): string {
  const cells = rows.map((row) => row.map(visibleText));
  const widths = (cells[0] ?? []).map((_, column) => Math.max(...cells.map((row) => row[column]?.length ?? 0)));
  return cells.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n');
}
