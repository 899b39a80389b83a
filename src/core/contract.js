// Every number of the wire contract (spec/wire-contract.md) and of spec/decisions.md, in one place, and
// the numbers Sluice chose where both are silent (marked "chosen"; docs/limits.md lists the limits a
// client can meet, with their tests).
// Plain JavaScript so that the SQLite query process, which runs without a build step, reads the same
// file. To change a rule, change it here; the code names these constants and never repeats a value.

const KIB = 1024;
const MIB = 1024 * KIB;
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Object.freeze, typed so that the numbers stay `number` (not literal types) for code and tests.
 * @template T
 * @param {T} value
 * @returns {Readonly<T>}
 */
const frozen = (value) => Object.freeze(value);

/** The HTTP server (contract, "Transport"). */
export const TRANSPORT = frozen({
  /**
   * Open connections. At the cap the one waiting longest on its client gives way to a newcomer
   * (decisions.md); when every one holds a request being answered, the newcomer is answered `-33000`.
   */
  maxConnections: 64,
  /** A connection idle this long is closed. */
  idleTimeoutMs: 30 * SECOND,
  /**
   * Chosen (decisions.md: "a few seconds"): a request head must be complete this long after its first
   * byte, or after the connection opened; a loopback client sends one in microseconds.
   */
  headersTimeoutMs: 5 * SECOND,
  /** Chosen: a whole request, its body included, must have arrived this long after its first byte. */
  requestTimeoutMs: 120 * SECOND,
  /**
   * Chosen: node:http looks for a head or request past its deadline this often (30 s by default), so a
   * cut comes up to this much after the deadline.
   */
  connectionsCheckingIntervalMs: 500,
  maxHeaderBytes: 16 * KIB,
  /** Chosen: more header lines is 431 `too_many_headers`. */
  maxHeaderLines: 100,
  maxBodyBytes: 10 * MIB,
  /** Chosen: how much of a refused (unauthenticated) body is read, only to find its id. */
  refusedBodyBytes: 64 * KIB,
  /** Chosen: the structure a body may carry (`JSON.parse` time grows with it). */
  maxJsonDepth: 64,
  maxJsonValues: 50_000,
  /** How long the ended requests of a stopping server may take to write their `-33000`. */
  shutdownGraceMs: SECOND,
  /** How long a refused upload still arriving is read (and discarded) before the socket closes. */
  refusedUploadDrainMs: SECOND,
  /**
   * Chosen: a response body longer than this many characters is encoded to UTF-8 and written this many
   * characters (at most three times as many bytes) a turn apart, waiting for the socket to drain: a
   * 16 MiB answer encoded and written in one turn held the event loop up to 254 ms (docs/performance.md).
   */
  responsePieceChars: 256 * KIB,
});

/** Per-token limits (contract, "Rate limits"; decisions.md). */
export const CALLER_LIMITS = frozen({ requestsPerWindow: 240, windowSeconds: 60, concurrent: 8 });

/** Bearer tokens that do not verify share one budget (decisions.md, "Rate limits and lockouts"). */
export const UNVERIFIED_BEARERS = frozen({ perWindow: 20, windowMs: 10 * SECOND });

/** `POST /v1/integrations/exchange` (contract, "Pairing"). */
export const EXCHANGE = frozen({
  path: '/v1/integrations/exchange',
  lockout: frozen({ failures: 5, windowSeconds: 300, lockoutSeconds: 900 }),
  maxFieldBytes: KIB,
  maxBodyBytes: 8 * KIB,
});

/** Pairing (contract, "Pairing"). */
export const PAIRING = frozen({
  /** An approval sheet waits this long, then expires (Approve dimmed). */
  approvalWindowMs: 5 * MINUTE,
  /** A pairing code can be exchanged this long… */
  codeLifetimeMs: 5 * MINUTE,
  /** …and is remembered this long after, so a late exchange hears 410 rather than 404. */
  codeTombstoneMs: 10 * MINUTE,
  /** Chosen: how long the console keeps showing a sheet after it was answered or expired. */
  endedSheetMs: 10 * MINUTE,
  /** The sheet's starting expiry, and the choices it offers (`null`: never). */
  defaultExpiryDays: 30,
  expiryChoices: frozen([null, 1, 7, 30, 90]),
  maxClientNameChars: 200,
  maxStateBytes: KIB,
  /** Chosen: a loopback callback that does not answer within this is reported as not delivered. */
  callbackTimeoutMs: 5 * SECOND,
});

/** Requests (contract, "Cancellation and timeouts"). */
export const REQUESTS = frozen({
  /** A handler still running after this ends with `-33003` (not `subscriptions/listen`). */
  handlerDeadlineMs: 330 * SECOND,
  /** How often a running request checks that its client is still connected. */
  disconnectPollMs: SECOND,
  /** `requestState` lives this long and is spent once. */
  requestStateTtlMs: 5 * MINUTE,
  /** Chosen: spent `requestState` ids remembered at most (the oldest expire first). */
  maxSpentStates: 10_000,
});

/** `subscriptions/listen` (contract, "Subscriptions"; decisions.md). */
export const SUBSCRIPTIONS = frozen({
  keepAliveMs: 15 * SECOND,
  disconnectPollMs: SECOND,
  /** Changes made outside Sluice are found within this. */
  schemaPollMs: 5 * SECOND,
  maxStreamsPerToken: 8,
  retryAfterSeconds: 5,
});

/** Legacy sessions (contract, "Legacy revisions"): the least recently used of more is evicted. */
export const LEGACY = frozen({ maxSessions: 16 });

/** Lists (contract, "Pagination") and completion. */
export const PAGES = frozen({ pageSize: 50, maxCompletionValues: 100 });

/**
 * decisions.md, "Catalogue": what a client hands the model of a full-access token's `tools/list` — each
 * tool's name, description and input schema, as compact JSON — stays within `modelBytes`. Output
 * schemas and annotations are declared beside them, for the client, and do not count.
 */
export const TOOL_DECLARATIONS = frozen({ modelBytes: 12 * KIB });

/**
 * Custom tools (issue 32; docs/catalogue.md, "Custom tools"): the definitions file `tools.json` in the
 * data folder. A file over `maxFileBytes` is refused whole; past `maxTools` entries the rest are
 * refused one by one. Names follow MCP's tool-name rule (letters, digits, `_`, `-`, `.`) within
 * `maxNameChars`; a string argument is at most `maxStringChars` (it may be tested against the
 * definition's pattern). Edits to the file are read once they have settled for `reloadSettleMs`.
 */
export const CUSTOM_TOOLS = frozen({
  maxFileBytes: 256 * KIB,
  maxTools: 64,
  maxNameChars: 64,
  maxDescriptionChars: 1_024,
  maxParameters: 32,
  maxStringChars: 4_096,
  reloadSettleMs: 250,
});

/**
 * Cache hints (contract, "Cache hints"): fixed per method; `resources/read` per resource, within bounds.
 * @type {Readonly<Record<string, Readonly<{ ttlMs: number, cacheScope: 'public' | 'private' }>>>}
 */
export const CACHE_HINTS = frozen({
  'server/discover': frozen({ ttlMs: HOUR, cacheScope: 'public' }),
  'prompts/list': frozen({ ttlMs: HOUR, cacheScope: 'public' }),
  'resources/templates/list': frozen({ ttlMs: HOUR, cacheScope: 'public' }),
  'tools/list': frozen({ ttlMs: 5 * MINUTE, cacheScope: 'private' }),
  'resources/list': frozen({ ttlMs: 30 * SECOND, cacheScope: 'private' }),
});
/** `resources/read`: within `min`–`max`, chosen per resource family (by its `name`). */
export const RESOURCE_READ_TTL = frozen({
  min: 5 * SECOND,
  max: 5 * MINUTE,
  connections: 5 * SECOND,
  'query-history': 5 * SECOND,
  'connection-schema': 30 * SECOND,
  'connection-tables': 30 * SECOND,
  'connection-databases': 30 * SECOND,
  'connection-schemas': 30 * SECOND,
  table: MINUTE,
  'table-ddl': 5 * MINUTE,
});

/**
 * Chosen: the query history (the `history` resource and the `summarize_query_history` prompt). Kept in
 * memory only, `perConnection` statements each; a read returns `defaultLimit`, at most `maxLimit`.
 */
export const QUERY_HISTORY = frozen({
  perConnection: 200,
  defaultLimit: 50,
  maxLimit: 200,
  /** The `search` text of a history read. */
  maxSearchChars: 256,
  /** A statement rendered into the summarize_query_history prompt is cut after this many characters. */
  promptStatementChars: 1_000,
});

/** Results (contract, "Tools"; decisions.md, "Result size"). Sizes are bytes of the rows' JSON text. */
export const RESULTS = frozen({
  /** `max_bytes`: the default, the hard cap, and the most one cell may take. */
  defaultBytes: MIB,
  capBytes: 16 * MIB,
  cellBytes: 64 * KIB,
  /** Chosen: a JSON value nested deeper than this comes back as its text (JSON.stringify overflows near 4,200 levels). */
  jsonDepth: 512,
  /** Chosen: what an answer's fixed fields (counts, reason, kind, its frame) may add to `max_bytes`. */
  answerFieldsBytes: KIB,
  /** Catalog reads (tables, columns, DDL): no cell is cut, since a cut name or DDL is wrong. */
  catalogRows: 100_000,
  /** `execute_query`: rows, statement size, bound parameters, statement timeout. */
  defaultRows: 500,
  maxRows: 10_000,
  maxSqlBytes: 100 * KIB,
  maxParams: 1_000,
  defaultTimeoutSeconds: 30,
  maxTimeoutSeconds: 300,
  /**
   * `max_tokens`: what an answer's text may take, in o200k_base tokens (issue 30): the default, the least
   * and the cap (under the 25,000 past which Claude Code refuses a tool's output). Counting yields the
   * event loop after `tokenSliceMs` of work.
   */
  defaultTokens: 8_000,
  minTokens: 500,
  capTokens: 20_000,
  tokenSliceMs: 10,
  /** Chosen: random bytes of an answer's data fence (`<data-…>`), drawn per answer (64 bits). */
  fenceBytes: 8,
  /** Chosen: a PostgreSQL row message larger than this ends the statement before it is buffered. */
  maxPostgresRowBytes: 32 * MIB,
  /**
   * Chosen: a database server's answer rows are serialised, as JSON and as the lines of the result's
   * text, about this many characters of JSON a turn (db/results/answerRows.ts).
   */
  answerBatchChars: 256 * KIB,
});

/**
 * Reading on (issue 30; decisions.md, "Sessions, slots and answers"): a cut `execute_query` or
 * `browse_table` read keeps its statement open behind a `next_cursor`, on one session of its
 * connection's pool, until its last page is read, for at most `idleMs` after its last page.
 */
export const RESULT_CURSORS = frozen({
  idleMs: 5 * MINUTE,
  perToken: 4,
  perConnection: 4,
  /** Rows of a held MySQL/MariaDB read queued in Sluice before its socket is paused (the rest wait on the server). */
  mysqlQueuedRows: 256,
  /** Evicted reads (closed to free a session for their token) whose cursors still say so; older ones are only "closed". */
  evictionsRemembered: 256,
});

/** Database sessions (chosen; decisions.md, "Pools"). */
export const DATABASES = frozen({
  connectTimeoutMs: 5 * SECOND,
  /** Read sessions per PostgreSQL / MySQL connection; one token may hold half of them. */
  readSessions: 4,
  /** Other databases on a connection's server a call may name (`database`), each with its own pools. */
  otherDatabasesPerConnection: 4,
  /**
   * Chosen: one pool of SQLite query processes serves every SQLite connection (docs/limits.md, "The
   * SQLite query pool"): as many as the cores, at least `sqliteProcessesMin` and at most
   * `sqliteProcessesMax` unless `SLUICE_SQLITE_PROCESSES` says otherwise (1 to `sqliteProcessesLimit`).
   * Each keeps read connections to its `sqliteFilesPerProcess` most recently used files, and is replaced
   * once idle when it holds more than `sqliteRecycleRssMb` of memory.
   */
  sqliteProcessesMin: 2,
  sqliteProcessesMax: 4,
  sqliteProcessesLimit: 16,
  sqliteFilesPerProcess: 16,
  sqliteRecycleRssMb: 150,
  /** Processes beyond the one kept warm go after this long without a statement. */
  sqliteIdleProcessMs: 60 * SECOND,
  /** A query process's heap, and how long a write waits for the lock. */
  sqliteHeapMb: 256,
  sqliteBusyTimeoutMs: 5 * SECOND,
  introspectionTimeoutMs: 30 * SECOND,
  /** `sluice connections add|update|test`: how long opening a connection and reading its version may take. */
  connectionCheckTimeoutMs: 15 * SECOND,
  /** A statement past its own deadline is stopped by the engine; this long later, by Sluice. */
  deadlineGraceMs: SECOND,
  /**
   * Chosen: a write's dialog counts the rows an UPDATE or DELETE would change for at most this long,
   * and then asks the planner for at most as long again (docs/console.md, "What a dialog shows").
   */
  effectPreviewTimeoutMs: 1.5 * SECOND,
  /**
   * Chosen: a write's dialog first tries the write in a transaction that is rolled back, stopped by the
   * database past this long in all (docs/console.md, "The exact effect").
   */
  rehearsalBudgetMs: 2 * SECOND,
  /**
   * Chosen: how long that try waits for another session's lock before it gives up and the dialog falls
   * back to the estimate. MySQL's `innodb_lock_wait_timeout` counts whole seconds, 1 at least: there it
   * is 1 s (`rehearsalLockWaitSecondsMysql`).
   */
  rehearsalLockWaitMs: 200,
  rehearsalLockWaitSecondsMysql: 1,
  /** Chosen: the changed rows a write's dialog shows, before and after; the count is always whole. */
  rehearsalRowsShown: 20,
  /**
   * Chosen: `table_statistics` on SQLite counts its tables' rows exactly for at most this long in all,
   * the query process stopping a count that runs past it; a table not counted in time gets
   * sqlite_stat1's estimate, marked as one (docs/limits.md, "Schema, statistics and performance tools").
   */
  sqliteExactCountBudgetMs: 100,
  /**
   * Chosen: a DuckDB database runs inside Sluice's own process, so its memory and worker threads are
   * capped (DuckDB's defaults: 80% of RAM, every core); past the memory a statement spills to disk or fails.
   */
  duckdbMemoryLimitMb: 1024,
  duckdbThreads: 2,
});

/** SSH tunnels of PostgreSQL and MySQL connections (chosen; README, "SSH tunnels"). */
export const SSH = frozen({
  /** The SSH handshake and authentication of one hop, at most. */
  connectTimeoutMs: 10 * SECOND,
  /** A keepalive this often; three unanswered ones drop the tunnel. */
  keepaliveMs: 15 * SECOND,
  /** A tunnel with no database session through it for this long is closed (reopened on next use). */
  idleCloseMs: 60 * SECOND,
  /**
   * Chosen: the most of a known-hosts file Sluice reads. A larger file refuses the connection rather
   * than be read in part, which could miss a key it holds or revokes.
   */
  maxKnownHostsBytes: 16 * MIB,
});

/** The application (chosen). */
export const APPLICATION = frozen({
  preferredPort: 38621,
  preferredConsolePort: 38622,
  /** Token `lastUsedAt` is written at most this often. */
  tokenFlushMs: 5 * SECOND,
  /** Console and control-socket commands: the most one may carry. */
  maxCommandBytes: 64 * KIB,
  /** The console's event stream writes a keep-alive comment this often. */
  consoleKeepAliveMs: 15 * SECOND,
  /** A console session ends after this long without a request while none of its event streams is open. */
  consoleSessionIdleMs: 12 * HOUR,
  /** Bursts of changes within this reach the console as one. */
  changeSettleMs: 50,
  /** `sluice bridge`: rounds of `input_required` it answers for one request. */
  maxBridgeInputRounds: 8,
  /**
   * A write waiting on a dialog in Sluice reports progress this often (when it has a progress token),
   * so that a client resetting its timeout on progress keeps waiting: half of the 10 s it is owed.
   */
  approvalProgressMs: 5 * SECOND,
  /** The OS credential store must answer its probe within this, or secrets stay in the files. */
  credentialProbeMs: 5 * SECOND,
  /** The activity log's rows, and the kept rows of the writes they record (undo), are kept this many days. */
  activityRetentionDays: 90,
});

/**
 * `export_data` (chosen; docs/catalogue.md): rows written to one file, and the most read for it. Rows
 * are read and written a page at a time (at most `pageRows` rows or `pageBytes` of JSON), so the server
 * holds at most `memoryMb` more while an export runs, whatever its size (measured: docs/performance.md).
 */
export const EXPORTS = frozen({
  defaultRows: 100_000,
  maxRows: 1_000_000,
  /** The rows' JSON size read for one export; past it the file ends there (`is_truncated`). */
  maxBytes: 256 * MIB,
  pageRows: 10_000,
  pageBytes: MIB,
  /** Every this many pages an export asks V8 for a concurrent major collection (core/garbageCollection.ts). */
  pagesPerCollection: 16,
  memoryMb: 128,
  /** Parquet is written through a scratch DuckDB on disk: its memory, and the rows of one row group. */
  parquetMemoryMb: 16,
  parquetRowGroupRows: 16_384,
  /** A file name (one path component) and a whole path, in bytes: Linux's NAME_MAX and PATH_MAX. */
  maxNameBytes: 255,
  maxPathBytes: 4_095,
});

/**
 * `insert_rows` (chosen; docs/catalogue.md): rows in one INSERT, its bound values (within every engine's
 * own limit on placeholders: SQLite 32,766), and how many rows its consent shows.
 */
export const INSERTS = frozen({ maxRows: 1_000, maxValues: 30_000, shownRows: 20 });

/**
 * Private columns (issue 30; capabilities/maskedValues.ts): a hashed value keeps this many hex digits of
 * its HMAC-SHA-256 (64 bits); masked text keeps its first letter from this many letters and digits on;
 * a policy holds at most `maxRules` rules and exempts at most `maxExemptTokens` tokens.
 */
export const MASKING = frozen({ hashHexDigits: 16, keepFirstFrom: 4, maxRules: 100, maxExemptTokens: 100 });

/**
 * Undo (issue 31; db/keptWrites.ts): an approved INSERT, UPDATE or DELETE keeps the rows it changes,
 * before and after, up to `maxRows` rows and `maxBytes` of them (past either, the dialog says before
 * approval that it cannot be undone, and nothing is kept); kept as long as the activity log keeps its rows.
 * Kept rows are read again by key `keysPerRead` keys to a statement (and, on DuckDB, an undo's rows set
 * back or inserted as many to a statement), and go between the server and the
 * SQLite query process `pieceBytes` of them to a message (no 50 MiB message serialised or read in one turn).
 */
export const UNDO = frozen({ maxRows: 10_000, maxBytes: 50 * MIB, keysPerRead: 100, pieceBytes: 256 * KIB });
