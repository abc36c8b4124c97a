/**
 * The options of `PostgresMemoryStore`, and their checks: what a store is made of once its
 * options are known to be good.
 *
 * @module
 */
import pg from "pg";
import { MemoryStoreError } from "../../errors/index.js";
import {
  type CheckedIndex,
  checkIndex,
  clockOf,
  maxSearchItemsOf,
  tablePrefixOf,
} from "../../memory/internal.js";
import type { IndexConfig } from "../../memory/types.js";
import type { PostgresPool } from "./pool.js";
import { POSTGRES_MAX_DIMENSIONS, type PostgresVectorIndex } from "./postgres-memory-schema.js";

const NAME = "PostgresMemoryStore";

/** Options of {@link PostgresMemoryStore}. */
export interface PostgresMemoryStoreOptions {
  /** `postgres://user:password@host:port/database`; used to make a pool when `pool` is not given. */
  connectionString?: string;
  /** A pg `Pool` to use instead (the state store's, for one; see {@link PostgresPool}); the store does not end it on `close()`. */
  pool?: PostgresPool;
  /** Schema of the tables, created when missing; default `"nodestep"`, the state store's (the tables do not collide). */
  schema?: string;
  /** Prefix of the tables `<prefix>items` and `<prefix>meta`; default `"memory_"`. */
  tablePrefix?: string;
  /** Semantic search: the embeddings, their dimensions (1 to 2,000) and the default fields. */
  index?: IndexConfig;
  /** Vector search mode (see {@link PostgresVectorIndex}); default `"auto"`. `"pgvector"` throws on `ready()` when the server lacks it. */
  vectorIndex?: PostgresVectorIndex;
  /** Most indexed items one query compares in `"exact"` mode; default 200,000. */
  maxSearchItems?: number;
  /**
   * pgvector's `hnsw.ef_search` for a query (1 to 1,000; default 40, pgvector's): how many
   * candidates the HNSW walk keeps; higher finds the true nearest more often, slower. A query
   * uses at least its `offset + limit` (at most 1,000).
   */
  efSearch?: number;
  /** The clock, in ms since the epoch (times and TTLs); default `Date.now`. */
  now?: () => number;
}

/** A store's checked options: its tables, index, search settings, clock and pool. */
export interface MemoryStoreSettings {
  schema: string;
  /** The quoted tables and their prefix. */
  tables: { items: string; meta: string; prefix: string };
  index: CheckedIndex | null;
  vectorIndex: PostgresVectorIndex;
  maxSearchItems: number;
  efSearch: number;
  now: () => number;
  /** The pool (a pg `Pool`; typed as {@link PostgresPool} so that the types need no pg). */
  pool: PostgresPool;
  /** Whether the store made the pool (and ends it on `close()`). */
  ownsPool: boolean;
}

/**
 * Check the options of a `PostgresMemoryStore`, in the order the errors are reported, and
 * make its pool when it is given a connection string.
 * @throws MemoryStoreError for the first option that is not valid, or when neither a
 *   `connectionString` nor a `pool` is given.
 */
export function memoryStoreSettings(options: PostgresMemoryStoreOptions): MemoryStoreSettings {
  const schema = options?.schema ?? "nodestep";
  if (typeof schema !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new MemoryStoreError(
      `${NAME}: invalid schema name ${JSON.stringify(schema)}: use letters, digits and _, not starting with a digit, at most 63 characters`,
    );
  }
  const prefix = tablePrefixOf(options.tablePrefix, NAME);
  const tables = {
    items: `"${schema}"."${prefix}items"`,
    meta: `"${schema}"."${prefix}meta"`,
    prefix,
  };
  const index = checkIndex(options.index, POSTGRES_MAX_DIMENSIONS, NAME);
  const want = options.vectorIndex ?? "auto";
  if (want !== "auto" && want !== "pgvector" && want !== "exact") {
    throw new MemoryStoreError(
      `${NAME}: vectorIndex must be "auto", "pgvector" or "exact", got ${JSON.stringify(want)}`,
    );
  }
  const maxSearchItems = maxSearchItemsOf(options.maxSearchItems, NAME);
  const ef = options.efSearch ?? 40;
  if (!Number.isInteger(ef) || ef < 1 || ef > 1000) {
    throw new MemoryStoreError(
      `${NAME}: efSearch must be a whole number from 1 to 1000, got ${String(ef)}`,
    );
  }
  const now = clockOf(options.now, NAME);
  let pool: PostgresPool;
  let ownsPool: boolean;
  if (options.pool) {
    pool = options.pool;
    ownsPool = false;
  } else if (typeof options.connectionString === "string" && options.connectionString !== "") {
    const made = new pg.Pool({ connectionString: options.connectionString });
    made.on("error", () => {});
    pool = made as unknown as PostgresPool;
    ownsPool = true;
  } else {
    throw new MemoryStoreError(`${NAME} needs a connectionString or a pool`);
  }
  return {
    schema,
    tables,
    index,
    vectorIndex: want,
    maxSearchItems,
    efSearch: ef,
    now,
    pool,
    ownsPool,
  };
}
