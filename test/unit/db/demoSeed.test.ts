import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoDatabase } from '../../../src/db/demo/seed.js';

const ROOT_TABLES = ['authors', 'customers', 'genres', 'publishers', 'warehouses'];

const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-seed-'));

function buildDatabase(name: string): string {
  const file = path.join(tmpDir, name);
  createDemoDatabase(file);
  return file;
}

function tableNames(db: Database.Database): string[] {
  return db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
}

function contentDigest(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const hash = createHash('sha256');
    const schema = db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').raw().all();
    hash.update(`${JSON.stringify(schema)}\n`);
    for (const table of tableNames(db)) {
      const rows = db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).raw().all();
      hash.update(`${table}\n${JSON.stringify(rows)}\n`);
    }
    return hash.digest('hex');
  } finally {
    db.close();
  }
}

describe('createDemoDatabase', () => {
  let file: string;
  let db: Database.Database;

  beforeAll(() => {
    file = buildDatabase('demo.db');
    db = new Database(file, { readonly: true });
  });

  afterAll(() => {
    db.close();
    fs.rmSync(tmpDir, { recursive: true, force: true });
  });

  it('creates related tables and at least one view', () => {
    const tables = tableNames(db);
    expect(tables.length).toBeGreaterThanOrEqual(6);
    expect(tables).toEqual(expect.arrayContaining(ROOT_TABLES));

    const views = db.prepare("SELECT name FROM sqlite_master WHERE type = 'view'").pluck().all();
    expect(views.length).toBeGreaterThanOrEqual(1);
  });

  it('gives every non-root table a foreign key and violates none of them', () => {
    for (const table of tableNames(db).filter((name) => !ROOT_TABLES.includes(name))) {
      expect(db.pragma(`foreign_key_list("${table}")`), table).not.toHaveLength(0);
    }
    expect(db.pragma('foreign_key_check')).toEqual([]);
  });

  it('declares explicit secondary indexes', () => {
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
      .pluck()
      .all();
    expect(indexes.length).toBeGreaterThanOrEqual(5);
  });

  it('holds a few thousand rows', () => {
    const total = tableNames(db).reduce(
      (sum, table) => sum + (db.prepare(`SELECT COUNT(*) FROM "${table}"`).pluck().get() as number),
      0,
    );
    expect(total).toBeGreaterThanOrEqual(2000);
  });

  it('has views that can be queried and return rows', () => {
    const views = db.prepare("SELECT name FROM sqlite_master WHERE type = 'view'").pluck().all() as string[];
    for (const view of views) {
      expect(db.prepare(`SELECT * FROM "${view}" LIMIT 5`).all(), view).not.toHaveLength(0);
    }
  });

  it('builds identical contents on every run', () => {
    expect(contentDigest(buildDatabase('again.db'))).toBe(contentDigest(file));
  });
});
