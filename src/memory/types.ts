/**
 * The `MemoryStore` contract: long-term memory shared across threads, as namespaced JSON
 * items with optional semantic search. LangGraph calls it `BaseStore` (`store` in a graph).
 *
 * @module
 */
import type { JsonObject } from "../json/index.js";

/**
 * Where an item lives: a path of labels, such as `["users", "u-42", "memories"]`. Each label is
 * a non-empty string of at most 256 characters without the control characters U+0000 and
 * U+001F; a namespace of an item has 1 to 16 labels. A prefix (for `list`, `search`) has 0 to 16.
 */
export type Namespace = readonly string[];

/** One stored item. Times are ms since the epoch. */
export interface MemoryItem {
  /** The item's namespace. */
  namespace: string[];
  /** The item's key within its namespace. */
  key: string;
  /** The stored JSON object (a copy: changing it changes nothing stored). */
  value: JsonObject;
  /** When the item was first put, in ms since the epoch; kept by later puts of the same key. */
  createdAt: number;
  /** When the item was last put, in ms since the epoch. */
  updatedAt: number;
  /** When the item expires (ms since the epoch), or `null` for never. */
  expiresAt: number | null;
}

/** An item found by `search`: `score` is the cosine similarity to the query (-1 to 1), or `null` without a query. */
export interface SearchItem extends MemoryItem {
  score: number | null;
}

/** Options of {@link MemoryStore.put}. */
export interface PutOptions {
  /** Time to live in ms (a positive integer): the item is gone for reads after it; `null` or left out: never expires. */
  ttlMs?: number | null;
  /**
   * What to embed for semantic search: `false` not to index this item, a list of field paths
   * (`"text"`, `"profile.bio"`, `"$"` for the whole value) to use instead of the store's
   * `index.fields`. Left out: the store's `index.fields`. Ignored (must be left out or `false`)
   * on a store without `index`.
   */
  index?: false | readonly string[];
  /**
   * The item's `createdAt` to keep (ms since the epoch, a whole number >= 0), as an import
   * restores it; left out: the existing item's, or now for a new one.
   */
  createdAt?: number;
  /** The item's `updatedAt` to keep (ms since the epoch, >= `createdAt`); left out: now. */
  updatedAt?: number;
}

/**
 * A filter on an item's value: each entry is a field path (`"kind"`, `"profile.city"`) and
 * either a JSON value the field must equal (deeply), or an object of operators
 * `{ $eq, $ne, $gt, $gte, $lt, $lte }` (all must hold; the order ones compare numbers with
 * numbers and strings with strings, and fail otherwise). A missing field equals nothing.
 */
export type MemoryFilter = Readonly<Record<string, unknown>>;

/** Options of {@link MemoryStore.list}. */
export interface ListOptions {
  /** Only items whose value matches; see {@link MemoryFilter}. */
  filter?: MemoryFilter;
  /** Most items returned, 1 to 1,000; default 10. */
  limit?: number;
  /** Items skipped first (a whole number); default 0. */
  offset?: number;
}

/** Options of {@link MemoryStore.search}. */
export interface SearchOptions extends ListOptions {
  /** Text to search for by meaning (needs a store with `index`); without it `search` lists like `list` with `score: null`. */
  query?: string;
}

/** Options of {@link MemoryStore.listNamespaces} (LangGraph: `listNamespaces`). */
export interface ListNamespacesOptions {
  /** Only namespaces starting with these labels (whole labels); default all. */
  prefix?: Namespace;
  /** Only namespaces ending with these labels (whole labels); default all. */
  suffix?: Namespace;
  /** Cut each namespace to its first `maxDepth` labels (1 to 16), then drop repeats; default no cut. */
  maxDepth?: number;
  /** Most namespaces returned, 1 to 1,000; default 100 (as LangGraph). */
  limit?: number;
  /** Namespaces skipped first (a whole number); default 0. */
  offset?: number;
}

/**
 * One operation of {@link MemoryStore.batch}: the method named by `op`, with its arguments.
 * LangGraph's `batch` takes `GetOperation`, `PutOperation`, `SearchOperation` and
 * `ListNamespacesOperation`; here each names its method.
 */
export type MemoryOperation =
  | { op: "get"; namespace: Namespace; key: string }
  | { op: "put"; namespace: Namespace; key: string; value: JsonObject; options?: PutOptions }
  | { op: "delete"; namespace: Namespace; key: string }
  | { op: "list"; namespacePrefix: Namespace; options?: ListOptions }
  | { op: "search"; namespacePrefix: Namespace; options?: SearchOptions }
  | { op: "listNamespaces"; options?: ListNamespacesOptions };

/**
 * The result of one {@link MemoryOperation}, in order: what its method returns (`undefined`
 * for `put`).
 */
export type MemoryOperationResult =
  | MemoryItem
  | null
  | undefined
  | boolean
  | MemoryItem[]
  | SearchItem[]
  | string[][];

/**
 * Turns texts into vectors for semantic search. Integrations: `OpenAIEmbeddings`
 * (`nodestep/openai`), `OllamaEmbeddings` (`nodestep/ollama`), `aiSdkEmbeddings` (any AI SDK
 * embedding model), `HashEmbeddings` (`nodestep/testing`, deterministic, for tests).
 */
export interface Embeddings {
  /**
   * One vector per text, in order, each of the store's `dimensions` finite numbers.
   * @param texts - 1 or more texts.
   * @param options.signal - cancels the call.
   */
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

/** Semantic search settings of a store. */
export interface IndexConfig {
  /** What turns texts into vectors. */
  embeddings: Embeddings;
  /** Length of every vector: 1 to 4,096 (in memory, SQLite), 1 to 2,000 (PostgreSQL, pgvector's index limit). */
  dimensions: number;
  /** Field paths embedded by default (see {@link PutOptions.index}); default `["$"]`, the whole value as JSON. */
  fields?: readonly string[];
}

/**
 * Long-term memory: JSON objects under namespaces, shared by every thread and run that is
 * given the store (LangGraph: `BaseStore`). Implementations: `InMemoryStore` (`nodestep`),
 * `SqliteMemoryStore` (`nodestep/sqlite`), `PostgresMemoryStore` (`nodestep/postgres`); each
 * passes `describeMemoryStoreContract` (`nodestep/testing`).
 *
 * Reads never return expired items; `list` and `search` without a query order items by
 * namespace, then key (code-unit order); `search` with a query by score, highest first, then
 * namespace and key. Items that are not indexed are not found by a query.
 *
 * Every method throws `MemoryStoreError` for bad arguments (saying which and why), a passed
 * limit, a database error, or a closed store; nothing is written when `put` throws.
 */
export interface MemoryStore {
  /**
   * Create or replace an item. Replacing keeps `createdAt`, sets `updatedAt`, and embeds the
   * value again only when the text to embed changed.
   * @param value - a JSON object of at most 1 MiB as JSON text (UTF-8).
   */
  put(namespace: Namespace, key: string, value: JsonObject, options?: PutOptions): Promise<void>;
  /** The item, or `null` when there is none (or it expired). */
  get(namespace: Namespace, key: string): Promise<MemoryItem | null>;
  /** Delete an item; `true` when there was one (expired ones count as none). */
  delete(namespace: Namespace, key: string): Promise<boolean>;
  /** Items under a namespace prefix (`[]`: all), filtered, ordered by namespace then key. */
  list(namespacePrefix: Namespace, options?: ListOptions): Promise<MemoryItem[]>;
  /** Items under a prefix most similar to `query`, or listed like `list` without one. */
  search(namespacePrefix: Namespace, options?: SearchOptions): Promise<SearchItem[]>;
  /**
   * The namespaces that hold live items, in namespace order (LangGraph: `listNamespaces`), as
   * label lists, filtered by `prefix` and `suffix`, cut to `maxDepth`, then paged.
   */
  listNamespaces(options?: ListNamespacesOptions): Promise<string[][]>;
  /**
   * Run operations one after another, in order, and return their results in order (LangGraph:
   * `batch`). Not a transaction: the first failing operation throws a `MemoryStoreError`
   * naming its index, and the ones before it stay done.
   */
  batch(operations: readonly MemoryOperation[]): Promise<MemoryOperationResult[]>;
  /** Delete every item under a non-empty namespace prefix; returns how many there were (expired ones included). */
  deleteNamespace(namespacePrefix: Namespace): Promise<number>;
  /** Delete the expired items now (reads skip them anyway); returns how many. */
  purgeExpired(): Promise<number>;
  /** Release the store's resources; later calls throw `MemoryStoreError`. */
  close(): Promise<void>;
}
