import type { Engine } from '../../core/shared/engineNames.js';
import type { EngineModule } from './engineModule.js';
import { duckdb } from './duckdb/index.js';
import { mysql } from './mysql/index.js';
import { postgres } from './postgres/index.js';
import { sqlite } from './sqlite/index.js';

/**
 * The engines Sluice speaks, one module each. Adding an engine is one folder beside these and one line
 * here; every feature asks `engineModule(engine)` for what it needs, never tests the engine's name.
 */
const ENGINES: Record<Engine, EngineModule> = { sqlite, postgres, mysql, duckdb };

export const engineModule = (engine: Engine): EngineModule => ENGINES[engine];

/** Every engine's key, in the order tools list them. */
export const ENGINE_KEYS = Object.keys(ENGINES) as Engine[];

// The application owns one pool of SQLite query processes that every SQLite connection shares.
export { SqliteProcessPool } from './sqlite/processPool.js';
export { type SqlitePoolSettings, sqlitePoolSettings } from './sqlite/poolSettings.js';

/** The Parquet writer (DuckDB), loaded only when someone exports Parquet: Sluice idles without it. */
export const parquetWriter = () => import('./duckdb/parquetFile.js');
