import { DAY_MS } from '../core/clock.js';
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { writeFileAtomic } from '../core/atomicFile.js';
import { nameRefusal } from '../core/nameCharacters.js';
import { isPlainObject } from '../protocol/jsonrpc.js';
import { permissionLevels, type PermissionLevel } from './levels.js';
import { checkGrant } from './grant.js';
import { SECRETS_IN_FILES, type SecretHome, secretAccount, settleSecrets } from '../platform/secretHome.js';

export const TOKENS_FILE = 'tokens.json';

/** A token's id: `tok_` and 12 hex digits. */
export const TOKEN_ID = /^tok_[0-9a-f]{12}$/;

export type TokenRecord = {
  /** `tok_` + 12 hex digits. */
  id: string;
  name: string;
  /** First 8 characters after `sl_`: shown to the user and used to find the record. */
  prefix: string;
  /** 16 random bytes, hex; `''` while the secret cannot be read (the record then never verifies). */
  salt: string;
  /** Hex SHA-256 of the salt bytes followed by the plaintext (UTF-8); `''` with `salt`. */
  hash: string;
  level: PermissionLevel;
  connections: 'all' | string[];
  /** Absent: every tool its level allows. Present: only these custom tools (issue 32), and no resources or prompts. */
  tools?: string[];
  createdAt: string;
  /** Absent: never expires. */
  expiresAt?: string;
  lastUsedAt?: string;
  revokedAt?: string;
};

/** What may leave the store: a record without its salt and hash. */
export type PublicTokenRecord = Omit<TokenRecord, 'salt' | 'hash'>;

export function withoutSecrets(record: TokenRecord): PublicTokenRecord {
  return Object.fromEntries(
    Object.entries(record).filter(([field]) => field !== 'salt' && field !== 'hash'),
  ) as PublicTokenRecord;
}

export type MintOptions = {
  name: string;
  level: PermissionLevel;
  connections: 'all' | string[];
  tools?: string[];
  expiresInDays: number | null;
  now: number;
};

export type Verification =
  | { ok: true; record: TokenRecord }
  | { ok: false; reason: 'unknown' | 'revoked' | 'expired'; record?: TokenRecord };

const PLAINTEXT_SHAPE = /^sl_[A-Za-z0-9_-]{43}$/;
const prefixOf = (plaintext: string) => plaintext.slice(3, 11);
const iso = (time: number) => new Date(time).toISOString();

function hashToken(salt: string, plaintext: string): Buffer {
  return hash('sha256', Buffer.concat([Buffer.from(salt, 'hex'), Buffer.from(plaintext, 'utf8')]), 'buffer');
}

function copy(record: TokenRecord): TokenRecord {
  return {
    ...record,
    connections: record.connections === 'all' ? 'all' : [...record.connections],
    ...(record.tools ? { tools: [...record.tools] } : {}),
  };
}

const matches = (pattern: RegExp) => (value: unknown) => typeof value === 'string' && pattern.test(value);
const isTime = (value: unknown) => typeof value === 'string' && !Number.isNaN(Date.parse(value));
const optionalTime = (value: unknown) => value === undefined || isTime(value);

const fieldRules: Record<keyof TokenRecord, [test: (value: unknown) => boolean, rule: string]> = {
  id: [matches(TOKEN_ID), 'must be "tok_" and 12 hex digits'],
  name: [(value) => typeof value === 'string', 'must be a string'],
  prefix: [matches(/^[A-Za-z0-9_-]{8}$/), 'must be 8 base64url characters'],
  // Absent when the secret is kept in the OS credential store.
  salt: [(value) => value === undefined || matches(/^[0-9a-f]{32}$/)(value), 'must be 32 hex digits when present'],
  hash: [(value) => value === undefined || matches(/^[0-9a-f]{64}$/)(value), 'must be 64 hex digits when present'],
  level: [(value) => permissionLevels.includes(value as never), `must be one of ${permissionLevels.join(', ')}`],
  connections: [
    (value) => value === 'all' || (Array.isArray(value) && value.every((id) => typeof id === 'string')),
    'must be "all" or an array of connection ids',
  ],
  tools: [
    (value) => value === undefined || (Array.isArray(value) && value.length > 0 && value.every((name) => typeof name === 'string')),
    'must be a non-empty array of tool names when present',
  ],
  createdAt: [isTime, 'must be an ISO time'],
  expiresAt: [optionalTime, 'must be an ISO time when present'],
  lastUsedAt: [optionalTime, 'must be an ISO time when present'],
  revokedAt: [optionalTime, 'must be an ISO time when present'],
};

function parseRecord(value: unknown, where: string): TokenRecord {
  if (!isPlainObject(value)) throw new Error(`${where} must be an object`);
  const record: Record<string, unknown> = {};
  for (const [field, [test, rule]] of Object.entries(fieldRules)) {
    if (!test(value[field])) throw new Error(`${where}.${field} ${rule}`);
    if (value[field] !== undefined) record[field] = value[field];
  }
  if ((record.salt === undefined) !== (record.hash === undefined)) throw new Error(`${where} must have both salt and hash, or neither`);
  return { salt: '', hash: '', ...record } as TokenRecord;
}

/** Reads the token file; absent is empty, anything unreadable throws rather than dropping tokens. */
function readTokenFile(path: string): TokenRecord[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isPlainObject(raw) || raw.version !== 1 || !Array.isArray(raw.tokens)) {
    throw new Error(`${path} must be an object with "version": 1 and a "tokens" array`);
  }
  const records = raw.tokens.map((value, index) => parseRecord(value, `${path}: tokens[${index}]`));
  if (new Set(records.map((r) => r.id)).size !== records.length) {
    throw new Error(`${path}: token ids must be unique`);
  }
  return records;
}

/** A token's secret as the credential store keeps it. */
const SECRET_SHAPE = /^([0-9a-f]{32}):([0-9a-f]{64})$/;

/**
 * Hashed bearer tokens: the records in a JSON file, each one's salt and hash in the OS credential store
 * or, when the secret home says so, in the file too. The plaintext exists only in `mint`'s result.
 */
export class TokenStore {
  private readonly byId = new Map<string, TokenRecord>();
  /** Prefix → records with that prefix (almost always one): verification hashes only these. */
  private readonly byPrefix = new Map<string, TokenRecord[]>();
  private dirty = false;
  /** Uses not yet written into their record (a time string per request would be wasted work). */
  private readonly lastUsed = new Map<string, number>();
  private readonly revokeListeners: ((record: TokenRecord) => void)[] = [];

  private constructor(
    private readonly path: string,
    private readonly secrets: SecretHome,
  ) {}

  /** Reads the file and settles each secret where `secrets` says (moving those on the wrong side). */
  static open(path: string, secrets: SecretHome = SECRETS_IN_FILES): TokenStore {
    const store = new TokenStore(path, secrets);
    const records = readTokenFile(path);
    const fill = (found: Map<string, string>) => {
      for (const record of records) {
        const secret = found.get(store.account(record));
        if (secret === undefined) continue;
        const [, salt, hash] = SECRET_SHAPE.exec(secret) ?? [];
        if (!salt || !hash) throw new Error(`the secret of ${record.id} in ${secrets.store?.name} is not a salt and a hash`);
        Object.assign(record, { salt, hash });
      }
    };
    const slots = records.map((record) => ({
      account: store.account(record),
      inFile: record.hash === '' ? undefined : `${record.salt}:${record.hash}`,
    }));
    const { found } = settleSecrets(secrets, slots, { file: basename(path), noun: 'token secret' }, (found) => {
      fill(found);
      store.write(records);
    });
    fill(found);
    store.replaceAll(records);
    return store;
  }

  private account(record: TokenRecord): string {
    return secretAccount(this.secrets, 'token', record.id);
  }

  mint(options: MintOptions): { record: TokenRecord; plaintext: string } {
    checkGrant(options);
    const refused = nameRefusal('name', options.name);
    if (refused) throw new RangeError(refused);
    const plaintext = `sl_${randomBytes(32).toString('base64url')}`;
    let id: string;
    do id = `tok_${randomBytes(6).toString('hex')}`;
    while (this.byId.has(id));
    const salt = randomBytes(16).toString('hex');
    const record: TokenRecord = {
      id,
      name: options.name,
      prefix: prefixOf(plaintext),
      salt,
      hash: hashToken(salt, plaintext).toString('hex'),
      level: options.level,
      connections: options.connections === 'all' ? 'all' : [...options.connections],
      ...(options.tools ? { tools: [...options.tools] } : {}),
      createdAt: iso(options.now),
      ...(options.expiresInDays !== null
        ? { expiresAt: iso(options.now + options.expiresInDays * DAY_MS) }
        : {}),
    };
    // The store first: a crash before the file is written leaves an unused secret, never a record without one.
    if (this.secrets.target === 'store') this.secrets.store?.set(this.account(record), `${salt}:${record.hash}`);
    this.write([...this.byId.values(), record]);
    this.index(record);
    return { record: copy(record), plaintext };
  }

  verify(plaintext: string, now: number): Verification {
    if (!PLAINTEXT_SHAPE.test(plaintext)) return { ok: false, reason: 'unknown' };
    for (const record of this.byPrefix.get(prefixOf(plaintext)) ?? []) {
      if (!timingSafeEqual(hashToken(record.salt, plaintext), Buffer.from(record.hash, 'hex'))) continue;
      // The verdict's copy may lack the latest `lastUsedAt` (see `touch`): no caller of verify reads it.
      if (record.revokedAt !== undefined) return { ok: false, reason: 'revoked', record: copy(record) };
      if (record.expiresAt !== undefined && now >= Date.parse(record.expiresAt)) {
        return { ok: false, reason: 'expired', record: copy(record) };
      }
      return { ok: true, record: copy(record) };
    }
    return { ok: false, reason: 'unknown' };
  }

  list(): TokenRecord[] {
    return [...this.byId.values()].map((record) => this.out(record));
  }

  get(id: string): TokenRecord | undefined {
    const record = this.byId.get(id);
    return record && this.out(record);
  }

  /** Calls `listener` with every token revoked from now on. */
  onRevoke(listener: (record: TokenRecord) => void): void {
    this.revokeListeners.push(listener);
  }

  /** Marks the token revoked and persists; a second revocation keeps the first time. */
  revoke(id: string, now: number): TokenRecord | undefined {
    const record = this.byId.get(id);
    if (!record) return undefined;
    if (record.revokedAt === undefined) {
      record.revokedAt = iso(now);
      this.write([...this.byId.values()]);
      for (const listener of this.revokeListeners) listener(this.out(record));
    }
    return this.out(record);
  }

  /** Records use in memory only; `flush` persists it. */
  touch(id: string, now: number): void {
    if (!this.byId.has(id)) return;
    this.lastUsed.set(id, now);
    this.dirty = true;
  }

  /** A copy of the record to hand out, with its last use written in. */
  private out(record: TokenRecord): TokenRecord {
    this.settleUse(record);
    return copy(record);
  }

  /** Writes the record's pending use (see `touch`) into it. */
  private settleUse(record: TokenRecord): void {
    const used = this.lastUsed.get(record.id);
    if (used === undefined) return;
    record.lastUsedAt = iso(used);
    this.lastUsed.delete(record.id);
  }

  flush(): void {
    if (this.dirty) this.write([...this.byId.values()]);
  }

  private write(records: TokenRecord[]): void {
    for (const record of records) this.settleUse(record);
    const inFile = (record: TokenRecord) =>
      this.secrets.target === 'file' && record.hash !== '' ? record : withoutSecrets(record);
    writeFileAtomic(this.path, `${JSON.stringify({ version: 1, tokens: records.map(inFile) }, null, 2)}\n`);
    this.dirty = false;
  }

  private replaceAll(records: TokenRecord[]): void {
    this.byId.clear();
    this.byPrefix.clear();
    for (const record of records) this.index(record);
  }

  private index(record: TokenRecord): void {
    this.byId.set(record.id, record);
    if (record.hash === '') return;
    const samePrefix = this.byPrefix.get(record.prefix);
    if (samePrefix) samePrefix.push(record);
    else this.byPrefix.set(record.prefix, [record]);
  }
}
