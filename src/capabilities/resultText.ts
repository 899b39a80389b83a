import { JsonRows } from '../db/database.js';
import { rowText, valueText } from '../db/results/valueText.js';
import { RawJson } from '../protocol/rawJson.js';

/**
 * The text a model reads of a tool result: a compact rendering of `structuredContent`, not a second copy
 * of its JSON. Lists of records are tables, tab-separated under one header row (a tab costs fewer tokens
 * than ` | ` or JSON's punctuation: docs/performance.md), other fields `key: value`. Values stay
 * unambiguous (db/results/valueText.js): `NULL` is null, and a string that is empty, is `NULL`, has edge spaces or
 * holds a quote, a backslash or a control character (a tab, a line break) is written as a JSON string.
 * The exact typed values are in `structuredContent`.
 */
export function resultText(structured: Record<string, unknown>): string {
  const lines = renderedLines(structured);
  return lines.map((line) => (typeof line === 'string' ? line : (JSON.parse(`"${line.lines}"`) as string))).join('\n');
}

/**
 * `resultText` as a tool result's content carries it: where the driver wrote the rows' lines already
 * (JsonRows with `lines`), a JSON string literal spliced around them, so that a large result is neither
 * parsed nor escaped here.
 */
export function resultContentText(structured: Record<string, unknown>): string | RawJson {
  const lines = renderedLines(structured);
  if (lines.every((line) => typeof line === 'string')) return lines.join('\n');
  // Concatenated, not joined: the written lines are not copied here, only once the response is written.
  let literal: string | undefined;
  let plain: string[] = [];
  const add = (escaped: string) => {
    literal = literal === undefined ? escaped : `${literal}\\n${escaped}`;
  };
  for (const line of lines) {
    if (typeof line === 'string') plain.push(line);
    else {
      if (plain.length > 0) add(JSON.stringify(plain.join('\n')).slice(1, -1));
      plain = [];
      add(line.lines);
    }
  }
  if (plain.length > 0) add(JSON.stringify(plain.join('\n')).slice(1, -1));
  return new RawJson(`"${literal ?? ''}"`);
}

/** A table's row lines the driver wrote, JSON-escaped (non-empty). */
type WrittenLines = JsonRows & { lines: string };

/** The lines of the text, with row lines written by the driver left as they came. */
function renderedLines(structured: Record<string, unknown>): (string | WrittenLines)[] {
  const lines: (string | WrittenLines)[] = [];
  renderObject(structured, '', lines);
  return lines;
}

/** Control characters other than the tab and the line break, escaped as `\uXXXX` when a multi-line text is written out. */
// eslint-disable-next-line no-control-regex
const INVISIBLE_IN_LINE = /[\u0000-\u0008\u000b-\u001f\u007f\u2028\u2029]/gu;
const escapeCode = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RawJson);

/** A result set's rows: arrays of values, their lines written already, or their JSON text when the driver serialised them. */
function rowValues(rows: unknown, indent: string): unknown[][] | WrittenLines | undefined {
  if (rows instanceof JsonRows && rows.lines !== undefined && indent === '') return rows as WrittenLines;
  if (rows instanceof RawJson) return JSON.parse(rows.text) as unknown[][];
  if (!Array.isArray(rows)) return undefined;
  for (const row of rows) if (!Array.isArray(row)) return undefined;
  return rows as unknown[][];
}

function renderObject(object: Record<string, unknown>, indent: string, lines: (string | WrittenLines)[]): void {
  const columns = object.columns;
  const rows = rowValues(object.rows, indent);
  const isResultSet = Array.isArray(columns) && columns.every(isRecord) && rows !== undefined;
  if (isResultSet) {
    lines.push(indent + rowText(columns.map((c) => c.name)));
    if (rows instanceof JsonRows) {
      if (rows.length > 0) lines.push(rows);
    } else if (indent === '') {
      for (const row of rows) lines.push(rowText(row));
    } else {
      for (const row of rows) lines.push(indent + rowText(row));
    }
  }
  for (const [key, value] of Object.entries(object)) {
    if (isResultSet && (key === 'columns' || key === 'rows')) continue;
    renderField(key, value, indent, lines);
  }
}

function renderField(key: string, value: unknown, indent: string, lines: (string | WrittenLines)[]): void {
  if (value instanceof RawJson) {
    lines.push(`${indent}${key}: ${value.text}`);
  } else if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) {
    const header = [...new Set(value.flatMap((record) => Object.keys(record)))];
    lines.push(`${indent}${key} (${value.length}):`);
    lines.push(indent + '  ' + header.join('\t'));
    for (const record of value) lines.push(indent + '  ' + rowText(header.map((column) => record[column])));
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
