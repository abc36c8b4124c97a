/**
 * `SqliteMemoryStore`: the {@link MemoryStore} in a SQLite file (better-sqlite3), with exact
 * semantic search.
 *
 * @module
 */
import Database from "better-sqlite3";
import { MemoryStoreError } from "../../errors/index.js";
import type { JsonObject } from "../../json/index.js";
import { compileFilter } from "../../memory/filter.js";
import { tooMany } from "../../memory/in-memory-store.js";
import {
  blobToVector,
  type CheckedIndex,
  checkIndex,
  checkKey,
  checkNamespace,
  clockOf,
  closedStore,
  dot,
  embedChecked,
  encodeNamespace,
  encodeValue,
  expiryOf,
  MAX_DIMENSIONS,
  maxSearchItemsOf,
  pageOf,
  prefixRange,
  queryOf,
  tablePrefixOf,
  textHash,
  textToEmbed,
  toItem,
  vectorToBlob,
} from "../../memory/internal.js";
import { keptTimes, namespacesPage, namespacesQuery, runBatch } from "../../memory/operations.js";
import { takePage } from "../../memory/ranking.js";
import type {
  IndexConfig,
  ListNamespacesOptions,
  ListOptions,
  MemoryItem,
  MemoryOperation,
  MemoryOperationResult,
  MemoryStore,
  Namespace,
  PutOptions,
  SearchItem,
  SearchOptions,
} from "../../memory/types.js";

/** Version of the memory tables this code reads and writes; kept in `<prefix>meta`. */
export const SQLITE_MEMORY_SCHEMA_VERSION = 2;
const FORMAT = "nodestep-memory-store";
const NAME = "SqliteMemoryStore";

/** Options of {@link SqliteMemoryStore}. */
export interface SqliteMemoryStoreOptions {
  /** The database file (created when missing), which may be the state store's; `":memory:"` for a private one. Give `path` or `database`. */
  path?: string;
  /** An open better-sqlite3 database to use instead of `path`; the store does not close it. */
  database?: Database.Database;
  /** Prefix of the store's tables `<prefix>items` and `<prefix>meta`; default `"memory_"`. Letters, digits and `_`. */
  tablePrefix?: string;
  /** Semantic search: the embeddings, their dimensions (1 to 4,096) and the default fields. */
  index?: IndexConfig;
  /** Most indexed items one query compares (exact search); default 200,000. */
  maxSearchItems?: number;
  /** How long a write waits for another process's lock, in ms (default 5,000); only with `path`. */
  busyTimeoutMs?: number;
  /** The clock, in ms since the epoch; default `Date.now`. */
  now?: () => number;
}

interface Row {
  ns: string;
  key: string;
  value: string;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
}

const LIVE = "(expires_at IS NULL OR expires_at > @now)";
/** Upper bound of every encoded namespace, for the empty prefix. */
const TOP = "\u{10ffff}";

interface Ranked {
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
function scoring<T>(q: Float32Array, max: number, prefix: string[], f: () => T): T {
  current = { q, count: 0, max, prefix };
  try {
    return f();
  } finally {
    current = null;
  }
}

const scoreRegistered = new WeakSet<Database.Database>();

/** Define `nodestep_memory_score(embedding)` on a connection: the query's cosine similarity to a float32 blob. */
function registerScore(db: Database.Database): void {
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
const COLS = "ns, key, value, created_at, updated_at, expires_at";

/**
 * A {@link MemoryStore} in a SQLite file, through better-sqlite3 (LangGraph: `SqliteStore`).
 *
 * Its tables (`<tablePrefix>items`, `<tablePrefix>vectors`, `<tablePrefix>meta`) can live in
 * the state store's file: give both the same `path`. Values are JSON text; vectors are float32
 * blobs (4 bytes a dimension) normalized to length 1, in their own compact table (written in
 * the item's transaction), so a query reads no values. A query scores every indexed vector
 * under the prefix in one pass inside SQLite (the SQL function `nodestep_memory_score`) and
 * keeps the best `offset + limit` (exact search, no approximate index), so its time grows with
 * the items under the prefix; at most `maxSearchItems`. A file's index dimensions are fixed by
 * the first store opened on it with an `index`. Files of schema version 1 (vectors in the
 * items table) are moved to version 2 when opened.
 *
 * @throws MemoryStoreError from the constructor when the file cannot be opened, its memory
 *   tables were written by another version, or `index.dimensions` differs from the file's.
 * @example
 * ```ts
 * import { SqliteMemoryStore, SqliteStateStore } from "nodestep/sqlite";
 * const stateStore = new SqliteStateStore({ path: "app.db" });
 * const memoryStore = new SqliteMemoryStore({ path: "app.db" });
 * ```
 */
export class SqliteMemoryStore implements MemoryStore {
  #db: Database.Database | null;
  readonly #own: boolean;
  readonly #index: CheckedIndex | null;
  readonly #max: number;
  readonly #now: () => number;
  readonly #s: ReturnType<typeof prepare>;

  constructor(options: SqliteMemoryStoreOptions) {
    const prefix = tablePrefixOf(options?.tablePrefix, NAME);
    this.#index = checkIndex(options.index, MAX_DIMENSIONS, NAME);
    this.#max = maxSearchItemsOf(options.maxSearchItems, NAME);
    this.#now = clockOf(options.now, NAME);
    if (options.database) {
      this.#db = options.database;
      this.#own = false;
    } else {
      if (typeof options.path !== "string" || options.path === "") {
        throw new MemoryStoreError(
          `${NAME} needs a { path } to a database file or an open { database }`,
        );
      }
      try {
        this.#db = new Database(options.path);
        this.#db.pragma(
          `busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`,
        );
        this.#db.pragma("journal_mode = WAL");
      } catch (e) {
        throw new MemoryStoreError(
          `Cannot open the SQLite memory store at ${options.path}: ${(e as Error).message}`,
          {
            cause: e,
          },
        );
      }
      this.#own = true;
    }
    try {
      setUp(this.#db, prefix, this.#index?.dimensions ?? null);
      registerScore(this.#db);
      this.#s = prepare(this.#db, prefix);
    } catch (e) {
      if (this.#own) this.#db.close();
      if (e instanceof MemoryStoreError) throw e;
      throw new MemoryStoreError(`Cannot set up the SQLite memory store: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }

  async put(
    namespace: Namespace,
    key: string,
    value: JsonObject,
    options?: PutOptions,
  ): Promise<void> {
    this.#open();
    const ns = checkNamespace(namespace, false, "put");
    checkKey(key, ns, "put");
    const json = encodeValue(value, ns, key);
    const now = this.#now();
    const expiresAt = expiryOf(options, now, ns, key);
    const { createdAt, updatedAt } = keptTimes(options, ns, key);
    const text = textToEmbed(value, options, this.#index, ns, key);
    const enc = encodeNamespace(ns);
    let hash: string | null = null;
    let blob: Uint8Array | null = null;
    if (text !== null && this.#index) {
      hash = textHash(text);
      const old = this.#run(() => this.#s.getVector.get(enc, key)) as
        | { text_hash: string | null; embedding: Buffer | null }
        | undefined;
      if (old?.text_hash === hash && old.embedding) blob = old.embedding;
      else blob = vectorToBlob((await embedChecked(this.#index, [text]))[0] as Float32Array);
    }
    this.#run(() =>
      this.#s.put({ ns: enc, key, value: json, now, createdAt, updatedAt, expiresAt, hash, blob }),
    );
  }

  async get(namespace: Namespace, key: string): Promise<MemoryItem | null> {
    this.#open();
    const ns = checkNamespace(namespace, false, "get");
    checkKey(key, ns, "get");
    const row = this.#run(() =>
      this.#s.get.get({ ns: encodeNamespace(ns), key, now: this.#now() }),
    ) as Row | undefined;
    return row ? rowItem(row) : null;
  }

  async delete(namespace: Namespace, key: string): Promise<boolean> {
    this.#open();
    const ns = checkNamespace(namespace, false, "delete");
    checkKey(key, ns, "delete");
    const enc = encodeNamespace(ns);
    const now = this.#now();
    return this.#run(() => {
      const live = this.#s.get.get({ ns: enc, key, now }) !== undefined;
      this.#s.delete(enc, key);
      return live;
    });
  }

  async list(namespacePrefix: Namespace, options?: ListOptions): Promise<MemoryItem[]> {
    return (await this.#listed(namespacePrefix, options, "list")).map(
      ({ score: _, ...item }) => item,
    );
  }

  async search(namespacePrefix: Namespace, options?: SearchOptions): Promise<SearchItem[]> {
    this.#open();
    const query = queryOf(options, this.#index !== null);
    if (query === null) return this.#listed(namespacePrefix, options, "search");
    const prefix = checkNamespace(namespacePrefix, true, "search");
    const { limit, offset } = pageOf(options, "search");
    const test = compileFilter(options?.filter, "search");
    const [q] = (await embedChecked(this.#index as CheckedIndex, [query])) as [Float32Array];
    this.#open();
    const { lo, hi } = prefixRange(prefix);
    const now = this.#now();
    const args = { lo, hi: hi ?? TOP, now };
    const item = (r: { ns: string; key: string }) => {
      const row = this.#s.get.get({ ns: r.ns, key: r.key, now }) as Row | undefined;
      return row ? rowItem(row) : null;
    };
    const score = (r: { s: number }) => r.s;
    // One pass over the vectors under the prefix, scored in SQL by nodestep_memory_score;
    // without a filter SQLite keeps only the best offset + limit as it goes.
    return this.#run(() =>
      scoring(q, this.#max, prefix, () => {
        if (!test) {
          const ranked = this.#s.ranked.all({ ...args, limit, offset }) as Ranked[];
          return takePage(ranked, item, score, null, 0, limit);
        }
        return takePage(
          this.#s.ranked.iterate({ ...args, limit: -1, offset: 0 }) as Iterable<Ranked>,
          item,
          score,
          test,
          offset,
          limit,
        );
      }),
    );
  }

  async listNamespaces(options?: ListNamespacesOptions): Promise<string[][]> {
    this.#open();
    const q = namespacesQuery(options);
    const { lo, hi } = prefixRange(q.prefix);
    const live = this.#run(
      () => this.#s.namespaces.all({ lo, hi: hi ?? TOP, now: this.#now() }) as string[],
    );
    return namespacesPage(live, q);
  }

  batch(operations: readonly MemoryOperation[]): Promise<MemoryOperationResult[]> {
    return runBatch(this, operations);
  }

  async deleteNamespace(namespacePrefix: Namespace): Promise<number> {
    this.#open();
    const prefix = checkNamespace(namespacePrefix, false, "deleteNamespace");
    const { lo, hi } = prefixRange(prefix);
    return this.#run(() => this.#s.deleteRange(lo, hi as string));
  }

  async purgeExpired(): Promise<number> {
    this.#open();
    const now = this.#now();
    return this.#run(() => this.#s.purge(now));
  }

  async close(): Promise<void> {
    if (this.#db && this.#own) this.#db.close();
    this.#db = null;
  }

  async #listed(
    namespacePrefix: Namespace,
    options: ListOptions | undefined,
    op: string,
  ): Promise<SearchItem[]> {
    this.#open();
    const prefix = checkNamespace(namespacePrefix, true, op);
    const { limit, offset } = pageOf(options, op);
    const test = compileFilter(options?.filter, op);
    const { lo, hi } = prefixRange(prefix);
    const args = { lo, hi: hi ?? TOP, now: this.#now() };
    return this.#run(() => {
      if (!test) {
        return (this.#s.list.all({ ...args, limit, offset }) as Row[]).map((r) => ({
          ...rowItem(r),
          score: null,
        }));
      }
      return takePage(
        this.#s.list.iterate({ ...args, limit: -1, offset: 0 }) as Iterable<Row>,
        rowItem,
        () => null,
        test,
        offset,
        limit,
      );
    });
  }

  #open(): void {
    if (!this.#db?.open) throw closedStore(NAME);
  }

  #run<T>(f: () => T): T {
    this.#open();
    try {
      return f();
    } catch (e) {
      if (e instanceof MemoryStoreError) throw e;
      throw new MemoryStoreError(`${NAME}: ${(e as Error).message}`, { cause: e });
    }
  }
}

function rowItem(r: Row): MemoryItem {
  return toItem(r.ns, r.key, r.value, r.created_at, r.updated_at, r.expires_at);
}

function setUp(db: Database.Database, p: string, dims: number | null): void {
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

function prepare(db: Database.Database, p: string) {
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
    put: db.transaction((row: Record<string, unknown> & { blob: Uint8Array | null }) => {
      upsert.run(row);
      if (row.blob) putVector.run(row);
      else deleteVector.run(row.ns, row.key);
    }),
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
