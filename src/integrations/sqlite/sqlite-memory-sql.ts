/**
 * The SQL of `SqliteMemoryStore`: its tables (created, checked, moved from version 1), its
 * statements, and the `nodestep_memory_score` function an exact search ranks with.
 *
 * @module
 */
import type Database from "better-sqlite3";
import { MemoryStoreError } from "../../errors/index.js";
import { tooMany } from "../../memory/in-memory-store.js";
import { blobToVector, dot } from "../../memory/internal.js";

import { SQLITE_MEMORY_SCHEMA_VERSION } from "./sqlite-versions.js";

export { SQLITE_MEMORY_SCHEMA_VERSION };

const FORMAT = "nodestep-memory-store";
export const LIVE = "(expires_at IS NULL OR expires_at > @now)";
/** Upper bound of every encoded namespace, for the empty prefix. */
export const TOP = "\u{10ffff}";

export interface Ranked {
  ns: string;
  key: string;
  s: number;
}

/**
 * The query being scored by `nodestep_memory_score(embedding)`. better-sqlite3 runs a statement
 * synchronously, so one module-wide slot serves every store and connection of the process.
 */
let current: { q: Float32Array; count: number; max: number; prefix: string[] } | null = null;

/** Run `f` with `q` as the query `nodestep_memory_score` compares with. */
export function scoring<T>(q: Float32Array, max: number, prefix: string[], f: () => T): T {
  current = { q, count: 0, max, prefix };
  try {
    return f();
  } finally {
    current = null;
  }
}

const scoreRegistered = new WeakSet<Database.Database>();

/** Define `nodestep_memory_score(embedding)` on a connection: the query's cosine similarity to a float32 blob. */
export function registerScore(db: Database.Database): void {
  if (scoreRegistered.has(db)) return;
  db.function("nodestep_memory_score", { deterministic: false }, (blob: unknown) => {
    const c = current;
    if (c === null) throw new MemoryStoreError("nodestep_memory_score runs inside a search only");
    if (++c.count > c.max) throw tooMany(c.max, c.prefix);
    const b = blob as Uint8Array;
    // A view when the blob is aligned (better-sqlite3 gives each its own buffer), else a copy.
    const v =
      b.byteOffset % 4 === 0
        ? new Float32Array(b.buffer, b.byteOffset, b.byteLength >> 2)
        : blobToVector(b);
    return dot(c.q, v);
  });
  scoreRegistered.add(db);
}
export const COLS = "ns, key, value, created_at, updated_at, expires_at";

/** Create the tables when missing, or check them (moving a version 1 file's vectors). */
export function setUp(db: Database.Database, p: string, dims: number | null): void {
  db.transaction(() => {
    db.exec(`
CREATE TABLE IF NOT EXISTS ${p}meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ${p}items (
  ns TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  expires_at INTEGER,
  text_hash TEXT,
  PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ${p}items_expires ON ${p}items (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${p}vectors (
  ns TEXT NOT NULL,
  key TEXT NOT NULL,
  expires_at INTEGER,
  embedding BLOB NOT NULL,
  PRIMARY KEY (ns, key)
) WITHOUT ROWID;`);
    const meta = new Map(
      (db.prepare(`SELECT key, value FROM ${p}meta`).all() as { key: string; value: string }[]).map(
        (r) => [r.key, r.value],
      ),
    );
    const put = db.prepare(`INSERT OR REPLACE INTO ${p}meta (key, value) VALUES (?, ?)`);
    if (meta.size === 0) {
      put.run("format", FORMAT);
      put.run("schema_version", String(SQLITE_MEMORY_SCHEMA_VERSION));
    } else if (meta.get("format") !== FORMAT) {
      throw new MemoryStoreError(
        `Table ${p}meta is not a nodestep memory store's; pick another tablePrefix`,
      );
    } else if (meta.get("schema_version") === "1") {
      // Version 1 kept the vectors in the items table, after the value: a search read past
      // every value (overflow pages for values over about 1 KB). Move them to their own table.
      db.exec(`INSERT OR REPLACE INTO ${p}vectors (ns, key, expires_at, embedding)
  SELECT ns, key, expires_at, embedding FROM ${p}items WHERE embedding IS NOT NULL;
ALTER TABLE ${p}items DROP COLUMN embedding;`);
      put.run("schema_version", String(SQLITE_MEMORY_SCHEMA_VERSION));
    } else if (meta.get("schema_version") !== String(SQLITE_MEMORY_SCHEMA_VERSION)) {
      throw new MemoryStoreError(
        `The memory tables ${p}* were written with schema version ${meta.get("schema_version")}; this nodestep reads version ${SQLITE_MEMORY_SCHEMA_VERSION}`,
      );
    }
    if (dims !== null) {
      const had = meta.get("dimensions");
      if (had === undefined) put.run("dimensions", String(dims));
      else if (had !== String(dims)) {
        throw new MemoryStoreError(
          `The memory tables ${p}* hold vectors of ${had} dimensions; this store's index.dimensions is ${dims}. Use the same embeddings, or another tablePrefix`,
        );
      }
    }
  }).immediate();
}

/** The store's prepared statements and write transactions. */
export interface Statements {
  get: Database.Statement;
  getVector: Database.Statement;
  put: (
    row: Record<string, unknown> & { ns: string; key: string; blob: Uint8Array | null },
  ) => void;
  delete: (ns: string, key: string) => void;
  deleteRange: (lo: string, hi: string) => number;
  purge: (now: number) => number;
  list: Database.Statement;
  ranked: Database.Statement;
  namespaces: Database.Statement;
}

/** Prepare the statements on tables `<p>*`. */
export function prepare(db: Database.Database, p: string): Statements {
  const upsert = db.prepare(`
INSERT INTO ${p}items (ns, key, value, created_at, updated_at, expires_at, text_hash)
VALUES (@ns, @key, @value, coalesce(@createdAt, @now), coalesce(@updatedAt, @now), @expiresAt, @hash)
ON CONFLICT (ns, key) DO UPDATE SET
  value = excluded.value,
  created_at = CASE WHEN @createdAt IS NOT NULL
      OR (${p}items.expires_at IS NOT NULL AND ${p}items.expires_at <= @now)
    THEN excluded.created_at ELSE ${p}items.created_at END,
  updated_at = excluded.updated_at,
  expires_at = excluded.expires_at,
  text_hash = excluded.text_hash`);
  const putVector = db.prepare(
    `INSERT OR REPLACE INTO ${p}vectors (ns, key, expires_at, embedding) VALUES (@ns, @key, @expiresAt, @blob)`,
  );
  const deleteItem = db.prepare(`DELETE FROM ${p}items WHERE ns = ? AND key = ?`);
  const deleteVector = db.prepare(`DELETE FROM ${p}vectors WHERE ns = ? AND key = ?`);
  const deleteItems = db.prepare(`DELETE FROM ${p}items WHERE ns >= ? AND ns < ?`);
  const deleteVectors = db.prepare(`DELETE FROM ${p}vectors WHERE ns >= ? AND ns < ?`);
  const purgeItems = db.prepare(
    `DELETE FROM ${p}items WHERE expires_at IS NOT NULL AND expires_at <= ?`,
  );
  const purgeVectors = db.prepare(
    `DELETE FROM ${p}vectors WHERE expires_at IS NOT NULL AND expires_at <= ?`,
  );
  return {
    get: db.prepare(`SELECT ${COLS} FROM ${p}items WHERE ns = @ns AND key = @key AND ${LIVE}`),
    getVector: db.prepare(
      `SELECT i.text_hash, v.embedding FROM ${p}items i LEFT JOIN ${p}vectors v ON v.ns = i.ns AND v.key = i.key WHERE i.ns = ? AND i.key = ?`,
    ),
    /** The item and its vector (or none), in one transaction. */
    put: db.transaction(
      (row: Record<string, unknown> & { ns: string; key: string; blob: Uint8Array | null }) => {
        upsert.run(row);
        if (row.blob) putVector.run(row);
        else deleteVector.run(row.ns, row.key);
      },
    ),
    delete: db.transaction((ns: string, key: string) => {
      deleteItem.run(ns, key);
      deleteVector.run(ns, key);
    }),
    deleteRange: db.transaction((lo: string, hi: string): number => {
      deleteVectors.run(lo, hi);
      return deleteItems.run(lo, hi).changes;
    }),
    purge: db.transaction((now: number): number => {
      purgeVectors.run(now);
      return purgeItems.run(now).changes;
    }),
    list: db.prepare(
      `SELECT ${COLS} FROM ${p}items WHERE ns >= @lo AND ns < @hi AND ${LIVE} ORDER BY ns, key LIMIT @limit OFFSET @offset`,
    ),
    ranked: db.prepare(
      `SELECT ns, key, nodestep_memory_score(embedding) AS s FROM ${p}vectors
WHERE ns >= @lo AND ns < @hi AND ${LIVE}
ORDER BY s DESC, ns, key LIMIT @limit OFFSET @offset`,
    ),
    namespaces: db
      .prepare(`SELECT DISTINCT ns FROM ${p}items WHERE ns >= @lo AND ns < @hi AND ${LIVE}`)
      .pluck(),
  };
}
