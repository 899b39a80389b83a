// How each engine is named to people and models: the same in tool texts, prompts and the console's
// dialog (served at /core/engineNames.js).

/** @type {{ sqlite: string, postgres: string, mysql: string, duckdb: string }} */
export const ENGINE_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MySQL/MariaDB', duckdb: 'DuckDB' };

/** An engine's key: `sqlite`, `postgres`, `mysql` or `duckdb`. @typedef {keyof typeof ENGINE_NAMES} Engine */
