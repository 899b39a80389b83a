import { resolve } from 'node:path';
import { UsageError } from './usageError.js';

/** `--duckdb PATH [--files-dir DIR]`: a DuckDB file (made absolute) or `:memory:`, and the one directory it may read files from. */
export function duckdbTargetOf(values: { duckdb?: string; 'files-dir'?: string }): { engine?: 'duckdb'; path?: string; filesDir?: string } {
  if (values.duckdb === undefined) {
    if (values['files-dir'] !== undefined) throw new UsageError('--files-dir goes with --duckdb PATH');
    return {};
  }
  return {
    engine: 'duckdb',
    path: values.duckdb === ':memory:' ? values.duckdb : resolve(values.duckdb),
    ...(values['files-dir'] === undefined ? {} : { filesDir: resolve(values['files-dir']) }),
  };
}
