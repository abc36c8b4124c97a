/**
 * `SqliteMemoryStore`: the {@link MemoryStore} in a SQLite file (better-sqlite3), with exact
 * semantic search.
 *
 * @module
 */
import Database from "better-sqlite3";
import { MemoryStoreError } from "../../errors/index.js";
import type { JsonObject } from "../../json/index.js";
import { runBatch } from "../../memory/batch.js";
import { compileFilter } from "../../memory/filter.js";
import {
  type CheckedIndex,
  checkIndex,
  checkKey,
  checkNamespace,
  clockOf,
  closedStore,
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
import { keptTimes, namespacesPage, namespacesQuery } from "../../memory/operations.js";
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
import { chunkedSearch, chunkedSearchWorks, prepareChunks } from "./sqlite-memory-scan.js";
import { prepare, type Ranked, registerScore, scoring, setUp, TOP } from "./sqlite-memory-sql.js";

import { SQLITE_MEMORY_SCHEMA_VERSION } from "./sqlite-versions.js";

export { SQLITE_MEMORY_SCHEMA_VERSION };

const NAME = "SqliteMemoryStore";

/**
 * An open better-sqlite3 `Database`, as {@link SqliteMemoryStoreOptions.database} takes it:
 * typed structurally (the few members that tell one), so a project needs no
 * `@types/better-sqlite3` to type-check against nodestep/sqlite.
 */
export interface SqliteDatabase {
  /** better-sqlite3's `prepare(sql)`. */
  prepare(source: string): unknown;
  /** better-sqlite3's `exec(sql)`. */
  exec(source: string): unknown;
  /** Whether the database is open. */
  readonly open: boolean;
}

/** Options of {@link SqliteMemoryStore}. */
export interface SqliteMemoryStoreOptions {
  /** The database file (created when missing), which may be the state store's; `":memory:"` for a private one. Give `path` or `database`. */
  path?: string;
  /**
   * An open better-sqlite3 database (`new Database(file)`) to use instead of `path`; the store
   * does not close it. Typed by the members the store checks, so nodestep/sqlite's types need
   * no `@types/better-sqlite3`; anything else is refused at construction.
   */
  database?: SqliteDatabase;
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

/**
 * A {@link MemoryStore} in a SQLite file, through better-sqlite3 (LangGraph: `SqliteStore`).
 *
 * Its tables (`<tablePrefix>items`, `<tablePrefix>vectors`, `<tablePrefix>meta`) can live in
 * the state store's file: give both the same `path`. Values are JSON text; vectors are float32
 * blobs (4 bytes a dimension) normalized to length 1, in their own compact table (written in
 * the item's transaction), so a query reads no values. A query scores every indexed vector
 * under the prefix in one pass (without a filter, read in chunks of about 1 MiB and scored in
 * this process; with one, inside SQLite by the SQL function `nodestep_memory_score`) and keeps
 * the best `offset + limit` (exact search, no approximate index), so its time grows with
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
  /** The chunk statement of a search without a filter, or `null` when chunks cannot be read. */
  readonly #chunks: Database.Statement | null;

  constructor(options: SqliteMemoryStoreOptions) {
    const prefix = tablePrefixOf(options?.tablePrefix, NAME);
    this.#index = checkIndex(options.index, MAX_DIMENSIONS, NAME);
    this.#max = maxSearchItemsOf(options.maxSearchItems, NAME);
    this.#now = clockOf(options.now, NAME);
    if (options.database) {
      const d = options.database;
      if (typeof d.prepare !== "function" || typeof d.exec !== "function" || d.open !== true) {
        throw new MemoryStoreError(`${NAME}: { database } must be an open better-sqlite3 Database`);
      }
      this.#db = d as Database.Database;
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
      this.#chunks = chunkedSearchWorks(this.#db) ? prepareChunks(this.#db, prefix) : null;
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
    // Without a filter: the vectors read in chunks and scored here (sqlite-memory-scan.ts),
    // unless one is not of the index's dimensions. Else one pass over them, scored in SQL by
    // nodestep_memory_score; without a filter SQLite keeps only the best offset + limit.
    const db = this.#db as Database.Database;
    const chunks = this.#chunks;
    const best =
      test || !chunks
        ? null
        : this.#run(() => chunkedSearch(db, chunks, q, args, offset + limit, this.#max, prefix));
    if (best) return takePage(best.slice(offset), item, (r) => r.score, null, 0, limit);
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
