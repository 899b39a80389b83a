import { RawJson } from '../protocol/rawJson.js';

/**
 * The text a model reads of a tool result: a compact rendering of `structuredContent`, not a second copy
 * of its JSON. Lists of records are tables, tab-separated under one header row (a tab costs fewer tokens
 * than ` | ` or JSON's punctuation: docs/performance.md), other fields `key: value`. Values stay
 * unambiguous: `NULL` is null, and a string that is empty, is `NULL`, has edge spaces or holds a quote, a
 * backslash or a control character (a tab, a line break) is written as a JSON string. The exact typed
 * values are in `structuredContent`.
 */
export function resultText(structured: Record<string, unknown>): string {
  const lines: string[] = [];
  renderObject(structured, '', lines);
  return lines.join('\n');
}

/** Characters that would make a bare value ambiguous in a table cell or a `key: value` line. */
// eslint-disable-next-line no-control-regex
const NEEDS_QUOTES = /["\\\u0000-\u001f\u007f\u2028\u2029]|^\s|\s$|^NULL$|^$/u;

function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return NEEDS_QUOTES.test(value) ? JSON.stringify(value) : value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && value.every(isScalar)) return value.map(listItemText).join(', ');
  // Nested records inside a cell keep their JSON: rare, and a table inside a table would not read.
  return JSON.stringify(value);
}

/** Control characters other than the tab and the line break, escaped as `\uXXXX` when a multi-line text is written out. */
// eslint-disable-next-line no-control-regex
const INVISIBLE_IN_LINE = /[\u0000-\u0008\u000b-\u001f\u007f\u2028\u2029]/gu;
const escapeCode = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** An item of an inline list: a string holding a comma is quoted, so that the list splits one way only. */
const listItemText = (value: unknown): string => (typeof value === 'string' && value.includes(',') ? JSON.stringify(value) : valueText(value));

const isScalar = (value: unknown): boolean => value === null || typeof value !== 'object';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RawJson);

/** A result set's rows: arrays of values, or their JSON text when the driver serialised them already. */
function rowValues(rows: unknown): unknown[][] | undefined {
  if (rows instanceof RawJson) return JSON.parse(rows.text) as unknown[][];
  return Array.isArray(rows) && rows.every(Array.isArray) ? (rows as unknown[][]) : undefined;
}

const tableLine = (cells: unknown[]): string => cells.map(valueText).join('\t');

function renderObject(object: Record<string, unknown>, indent: string, lines: string[]): void {
  const columns = object.columns;
  const rows = rowValues(object.rows);
  const isResultSet = Array.isArray(columns) && columns.every(isRecord) && rows !== undefined;
  if (isResultSet) {
    lines.push(indent + tableLine(columns.map((c) => c.name)));
    for (const row of rows) lines.push(indent + tableLine(row));
  }
  for (const [key, value] of Object.entries(object)) {
    if (isResultSet && (key === 'columns' || key === 'rows')) continue;
    renderField(key, value, indent, lines);
  }
}

function renderField(key: string, value: unknown, indent: string, lines: string[]): void {
  if (value instanceof RawJson) {
    lines.push(`${indent}${key}: ${value.text}`);
  } else if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) {
    const header = [...new Set(value.flatMap((record) => Object.keys(record)))];
    lines.push(`${indent}${key} (${value.length}):`);
    lines.push(indent + '  ' + header.join('\t'));
    for (const record of value) lines.push(indent + '  ' + tableLine(header.map((column) => record[column])));
  } else if (Array.isArray(value) && value.length === 0) {
    lines.push(`${indent}${key}: (none)`);
  } else if (isRecord(value)) {
    lines.push(`${indent}${key}:`);
    renderObject(value, indent + '  ', lines);
  } else if (typeof value === 'string' && value.includes('\n')) {
    // Multi-line text (DDL, plans, definitions) reads best as itself, indented under its key.
    lines.push(`${indent}${key}:`);
    for (const line of value.split('\n')) lines.push(`${indent}  ${line.replace(INVISIBLE_IN_LINE, escapeCode)}`);
  } else {
    lines.push(`${indent}${key}: ${valueText(value)}`);
  }
}
