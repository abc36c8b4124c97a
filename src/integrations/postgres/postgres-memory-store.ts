/**
 * `PostgresMemoryStore`: the {@link MemoryStore} in PostgreSQL (pg), with semantic search on
 * pgvector's HNSW index.
 *
 * @module
 */
import type pg from "pg";
import { MemoryStoreError } from "../../errors/index.js";
import type { JsonObject } from "../../json/index.js";
import { type PutGroups, runBatch } from "../../memory/batch.js";
import { compileFilter } from "../../memory/filter.js";
import {
  type CheckedIndex,
  checkKey,
  checkNamespace,
  closedStore,
  embedChecked,
  encodeNamespace,
  pageOf,
  prefixRange,
  queryOf,
} from "../../memory/internal.js";
import { namespacesPage, namespacesQuery } from "../../memory/operations.js";
import type {
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
import { retryOnDeadlock } from "./postgres-deadlock-retry.js";
import { listRows } from "./postgres-memory-list.js";
import { memoryStoreSettings, type PostgresMemoryStoreOptions } from "./postgres-memory-options.js";
import {
  checkPut,
  MAX_PUT_SIZE_PER_STATEMENT,
  MAX_PUTS_PER_STATEMENT,
  type PgPut,
  writePuts,
} from "./postgres-memory-put.js";
import {
  type PostgresVectorIndex,
  setUpMemoryTables,
  type VectorSql,
} from "./postgres-memory-schema.js";
import {
  COLS,
  exactSearch,
  LIVE,
  pgvectorSearch,
  type Row,
  rowItem,
  type SearchContext,
  searchRows,
  TOP,
  wrap,
} from "./postgres-memory-search.js";
import { streamOnPool } from "./postgres-row-stream.js";

export {
  chooseVectorMode,
  PGVECTOR_MISSING_MESSAGE,
  POSTGRES_MAX_DIMENSIONS,
  POSTGRES_MEMORY_SCHEMA_VERSION,
} from "./postgres-memory-schema.js";

const NAME = "PostgresMemoryStore";

export type { PostgresMemoryStoreOptions } from "./postgres-memory-options.js";
export type { PostgresVectorIndex } from "./postgres-memory-schema.js";

/**
 * A {@link MemoryStore} in PostgreSQL (LangGraph: `PostgresStore`), for many processes sharing
 * memory. Tables `<tablePrefix>items` and `<tablePrefix>meta` live in `schema` (default the
 * state store's, `"nodestep"`). Values are JSON text.
 *
 * With `index`, vectors are normalized to length 1 and kept in one of two modes
 * (`vectorIndex`, chosen on `ready()`, then {@link PostgresMemoryStore.vectorMode}):
 * - `"pgvector"`: a `vector(dimensions)` column with an HNSW index on cosine distance; the store
 *   runs `CREATE EXTENSION IF NOT EXISTS vector`. A query orders by that index: the search is
 *   approximate (HNSW), and filters and the prefix are applied as the index is walked
 *   (`hnsw.iterative_scan = strict_order` on pgvector 0.8+).
 * - `"exact"`: float32 blobs in a `bytea` column; a query reads every indexed vector under the
 *   prefix and ranks them by cosine similarity in this process (as `SqliteMemoryStore`), so its
 *   time grows with the items under the prefix; at most `maxSearchItems`.
 * The first store with an `index` fixes the tables' mode; `"auto"` follows it.
 * Without `index` the store needs no extension.
 *
 * @throws MemoryStoreError (from any method) when the server cannot be reached, `vectorIndex`
 *   is `"pgvector"` and the server lacks it, the tables were written by another version, with
 *   other dimensions or in the other mode, or a query fails.
 * @example
 * ```ts
 * import { PostgresMemoryStore, PostgresStateStore } from "nodestep/postgres";
 * const pool = new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:5432/app" });
 * const stateStore = new PostgresStateStore({ pool });
 * const memoryStore = new PostgresMemoryStore({ pool, index: { embeddings, dimensions: 1536 } });
 * ```
 */
export class PostgresMemoryStore implements MemoryStore {
  /** The schema holding the tables. */
  readonly schema: string;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #index: CheckedIndex | null;
  readonly #now: () => number;
  readonly #t: { items: string; meta: string; prefix: string };
  #ready: Promise<void> | null = null;
  #closed = false;
  readonly #want: PostgresVectorIndex;
  readonly #max: number;
  readonly #ef: number;
  #mode: "pgvector" | "exact" | null = null;
  /** `"<schema>".vector` and the cosine operator, once the extension is found. */
  #vec: VectorSql = { type: "vector", op: "<=>", iterative: false };

  /** The vector search mode in use: `null` without an `index` or before `ready()` has resolved. */
  get vectorMode(): "pgvector" | "exact" | null {
    return this.#mode;
  }

  constructor(options: PostgresMemoryStoreOptions) {
    const o = memoryStoreSettings(options);
    this.schema = o.schema;
    this.#t = o.tables;
    this.#index = o.index;
    this.#want = o.vectorIndex;
    this.#max = o.maxSearchItems;
    this.#ef = o.efSearch;
    this.#now = o.now;
    this.#pool = o.pool as unknown as pg.Pool; // only what PostgresPool names is called on it
    this.#ownsPool = o.ownsPool;
  }

  /**
   * Create the schema, tables, extension and index when missing, or check them. Every method
   * calls it first; call it yourself to fail early.
   * @throws MemoryStoreError as the class says.
   */
  async ready(): Promise<void> {
    this.#open();
    this.#ready ??= this.#setUp().catch((e: unknown) => {
      this.#ready = null;
      throw e;
    });
    return this.#ready;
  }

  async put(
    namespace: Namespace,
    key: string,
    value: JsonObject,
    options?: PutOptions,
  ): Promise<void> {
    this.#open();
    await this.#write([checkPut(namespace, key, value, options, this.#index, this.#now)]);
  }

  async get(namespace: Namespace, key: string): Promise<MemoryItem | null> {
    this.#open();
    const ns = checkNamespace(namespace, false, "get");
    checkKey(key, ns, "get");
    await this.ready();
    const res = await this.#q<Row>(
      `SELECT ${COLS} FROM ${this.#t.items} WHERE ns = $1 AND key = $2 AND ${LIVE.replace("$NOW", "$3")}`,
      [encodeNamespace(ns), key, this.#now()],
    );
    return res.rows[0] ? rowItem(res.rows[0]) : null;
  }

  async delete(namespace: Namespace, key: string): Promise<boolean> {
    this.#open();
    const ns = checkNamespace(namespace, false, "delete");
    checkKey(key, ns, "delete");
    await this.ready();
    const res = await this.#q<{ live: boolean }>(
      `DELETE FROM ${this.#t.items} WHERE ns = $1 AND key = $2 RETURNING ${LIVE.replace("$NOW", "$3")} AS live`,
      [encodeNamespace(ns), key, this.#now()],
    );
    return res.rows[0]?.live === true;
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
    await this.ready();
    const [q] = (await embedChecked(this.#index as CheckedIndex, [query])) as [Float32Array];
    if (this.#mode === "exact") return exactSearch(this.#search(), prefix, q, limit, offset, test);
    return pgvectorSearch(this.#search(), prefix, q, limit, offset, test);
  }

  /**
   * The plan PostgreSQL makes for a query search under a prefix (`EXPLAIN` lines), to check that
   * it walks the HNSW index. `settings` are set for that transaction only (such as
   * `{ enable_seqscan: "off" }` on a small table).
   * @throws MemoryStoreError without an `index`, in `"exact"` mode, or for a setting name that
   *   is not a word.
   */
  async explainSearch(
    namespacePrefix: Namespace,
    query: string,
    settings: Record<string, string> = {},
  ): Promise<string[]> {
    this.#open();
    if (!this.#index)
      throw new MemoryStoreError(`${NAME}: explainSearch needs a store with an index`);
    const prefix = checkNamespace(namespacePrefix, true, "explainSearch");
    await this.ready();
    if (this.#mode === "exact")
      throw new MemoryStoreError(`${NAME}: explainSearch needs vectorIndex "pgvector"`);
    const [q] = (await embedChecked(this.#index, [query])) as [Float32Array];
    const rows = await searchRows(this.#search(), prefix, q, 10, settings, true);
    return rows.map((r) => (r as unknown as { "QUERY PLAN": string })["QUERY PLAN"]);
  }

  async listNamespaces(options?: ListNamespacesOptions): Promise<string[][]> {
    this.#open();
    const q = namespacesQuery(options);
    await this.ready();
    const { lo, hi } = prefixRange(q.prefix);
    const res = await this.#q<{ ns: string }>(
      `SELECT DISTINCT ns FROM ${this.#t.items} WHERE ns >= $1 AND ns < $2 AND ${LIVE.replace("$NOW", "$3")}`,
      [lo, hi ?? TOP, this.#now()],
    );
    return namespacesPage(
      res.rows.map((r) => r.ns),
      q,
    );
  }

  /**
   * The operations in order, as `MemoryStore.batch` says; consecutive puts go to PostgreSQL
   * together, as one upsert of up to 1,000 rows (a key again, or a put with `createdAt` after
   * one without or the other way round, starts the next), with their texts embedded in one
   * call. A group that fails as a whole is put again one by one, so the outcome is the one of
   * puts one after another.
   * @throws MemoryStoreError `batch: operation <i> (<op>): <message>` for the first that fails.
   */
  batch(operations: readonly MemoryOperation[]): Promise<MemoryOperationResult[]> {
    return runBatch(this, operations, this.#groups);
  }

  /** How `batch` writes its puts together. */
  readonly #groups: PutGroups<PgPut> = {
    check: (namespace, key, value, options) => {
      this.#open();
      return checkPut(namespace, key, value, options, this.#index, this.#now);
    },
    write: (group) => this.#write(group),
    maxPuts: MAX_PUTS_PER_STATEMENT,
    maxSize: MAX_PUT_SIZE_PER_STATEMENT,
  };

  /** Write checked puts in one upsert, once the store is ready. */
  async #write(group: readonly PgPut[]): Promise<void> {
    await this.ready();
    await writePuts(
      {
        items: this.#t.items,
        index: this.#index,
        mode: this.#mode,
        vec: this.#vec,
        query: async <R>(sql: string, params: unknown[]) =>
          (await this.#q(sql, params)) as unknown as { rows: R[] },
      },
      group,
    );
  }

  async deleteNamespace(namespacePrefix: Namespace): Promise<number> {
    this.#open();
    const prefix = checkNamespace(namespacePrefix, false, "deleteNamespace");
    await this.ready();
    const { lo, hi } = prefixRange(prefix);
    const res = await retryOnDeadlock(() =>
      this.#q(`DELETE FROM ${this.#t.items} WHERE ns >= $1 AND ns < $2`, [lo, hi]),
    );
    return res.rowCount ?? 0;
  }

  async purgeExpired(): Promise<number> {
    this.#open();
    await this.ready();
    const now = this.#now();
    const res = await retryOnDeadlock(() =>
      this.#q(`DELETE FROM ${this.#t.items} WHERE expires_at IS NOT NULL AND expires_at <= $1`, [
        now,
      ]),
    );
    return res.rowCount ?? 0;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#ready?.catch(() => {});
    if (this.#ownsPool) await this.#pool.end();
  }

  /** What the search functions need of this store. */
  #search(): SearchContext {
    return {
      items: this.#t.items,
      vec: this.#vec,
      efSearch: this.#ef,
      maxSearchItems: this.#max,
      now: this.#now(),
      connect: () => this.#connect(),
      query: async <R>(sql: string, params: unknown[]) =>
        (await this.#q(sql, params)) as unknown as { rows: R[]; rowCount: number | null },
      stream: (sql, params, each) =>
        streamOnPool(this.#pool, sql, params, each).catch((e: unknown) => {
          throw wrap(e, "query");
        }),
    };
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
    await this.ready();
    return listRows(this.#search(), prefix, limit, offset, test);
  }

  async #setUp(): Promise<void> {
    const client = await this.#connect();
    try {
      await client.query("BEGIN");
      const v = await setUpMemoryTables(
        client,
        { schema: this.schema, ...this.#t },
        this.#index?.dimensions ?? null,
        this.#want,
      );
      await client.query("COMMIT");
      this.#mode = v.mode;
      if (v.vec) this.#vec = v.vec;
    } catch (e) {
      await client.query("ROLLBACK").catch(() => {});
      throw wrap(e, "set up");
    } finally {
      client.release();
    }
  }

  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (e) {
      throw new MemoryStoreError(
        `Cannot connect to PostgreSQL for the memory store (schema "${this.schema}"): ${(e as Error).message}`,
        { cause: e },
      );
    }
  }

  async #q<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>(sql, params);
    } catch (e) {
      throw wrap(e, "query");
    }
  }

  #open(): void {
    if (this.#closed) throw closedStore(NAME);
  }
}
