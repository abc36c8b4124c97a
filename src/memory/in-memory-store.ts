/**
 * `InMemoryStore`: the {@link MemoryStore} in this process's memory, with exact semantic search.
 *
 * @module
 */
import { MemoryStoreError } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";
import { runBatch } from "./batch.js";
import { compileFilter } from "./filter.js";
import {
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
  textHash,
  textToEmbed,
  toItem,
} from "./internal.js";
import { keptTimes, namespacesPage, namespacesQuery } from "./operations.js";
import { TopK, takePage } from "./ranking.js";
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
} from "./types.js";

/** Options of {@link InMemoryStore}. */
export interface InMemoryStoreOptions {
  /** Semantic search: the embeddings, their dimensions (1 to 4,096) and the default fields. */
  index?: IndexConfig;
  /** Most indexed items one query compares (exact search); default 200,000. More under the prefix throws `MemoryStoreError`. */
  maxSearchItems?: number;
  /** The clock, in ms since the epoch (for TTLs and times); default `Date.now`. */
  now?: () => number;
}

interface Entry {
  value: string;
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
  hash: string | null;
  vector: Float32Array | null;
}

const NAME = "InMemoryStore";

/**
 * A {@link MemoryStore} in memory (LangGraph: `InMemoryStore`): for tests, scripts and one
 * process. Nothing survives the process. Values are kept as JSON text, so what `get` returns
 * is always a fresh copy. A query compares the query's vector with every indexed item under
 * the prefix (exact, no approximate index): vectors are `Float32Array`s normalized to length
 * 1, 4 bytes a dimension; at most `maxSearchItems` items a query.
 *
 * @throws MemoryStoreError from the constructor for a bad `index`, `maxSearchItems` or `now`.
 * @example
 * ```ts
 * import { InMemoryStore } from "nodestep";
 * const store = new InMemoryStore();
 * await store.put(["users", "u-42"], "tea", { text: "likes green tea" });
 * (await store.get(["users", "u-42"], "tea"))?.value; // { text: "likes green tea" }
 * ```
 */
export class InMemoryStore implements MemoryStore {
  readonly #spaces = new Map<string, Map<string, Entry>>();
  readonly #index: CheckedIndex | null;
  readonly #max: number;
  readonly #now: () => number;
  #closed = false;

  constructor(options: InMemoryStoreOptions = {}) {
    this.#index = checkIndex(options.index, MAX_DIMENSIONS, NAME);
    this.#max = maxSearchItemsOf(options.maxSearchItems, NAME);
    this.#now = clockOf(options.now, NAME);
  }

  /** Whether the store has semantic search. */
  get indexed(): boolean {
    return this.#index !== null;
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
    const kept = keptTimes(options, ns, key);
    const text = textToEmbed(value, options, this.#index, ns, key);
    const enc = encodeNamespace(ns);
    const old = this.#live(this.#spaces.get(enc)?.get(key), now);
    let hash: string | null = null;
    let vector: Float32Array | null = null;
    if (text !== null && this.#index) {
      hash = textHash(text);
      if (old?.hash === hash && old.vector) vector = old.vector;
      else [vector] = (await embedChecked(this.#index, [text])) as [Float32Array];
      this.#open();
    }
    let space = this.#spaces.get(enc);
    if (!space) {
      space = new Map();
      this.#spaces.set(enc, space);
    }
    const current = this.#live(space.get(key), now);
    space.set(key, {
      value: json,
      createdAt: kept.createdAt ?? current?.createdAt ?? now,
      updatedAt: kept.updatedAt ?? now,
      expiresAt,
      hash,
      vector,
    });
  }

  async get(namespace: Namespace, key: string): Promise<MemoryItem | null> {
    this.#open();
    const ns = checkNamespace(namespace, false, "get");
    checkKey(key, ns, "get");
    const enc = encodeNamespace(ns);
    const e = this.#live(this.#spaces.get(enc)?.get(key), this.#now());
    return e ? toItem(enc, key, e.value, e.createdAt, e.updatedAt, e.expiresAt) : null;
  }

  async delete(namespace: Namespace, key: string): Promise<boolean> {
    this.#open();
    const ns = checkNamespace(namespace, false, "delete");
    checkKey(key, ns, "delete");
    const enc = encodeNamespace(ns);
    const space = this.#spaces.get(enc);
    const live = this.#live(space?.get(key), this.#now()) !== null;
    if (space?.delete(key) && space.size === 0) this.#spaces.delete(enc);
    return live;
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
    const index = this.#index as CheckedIndex;
    const [q] = (await embedChecked(index, [query])) as [Float32Array];
    this.#open();
    const now = this.#now();
    // One pass, keeping the best offset + limit that pass the filter; a value is parsed (and
    // filtered) only when its score would enter.
    const top = new TopK<Scored>(offset + limit);
    let compared = 0;
    for (const [ns, space] of this.#under(prefix)) {
      for (const [key, e] of space) {
        if (!e.vector || !this.#live(e, now)) continue;
        if (++compared > this.#max) throw tooMany(this.#max, prefix);
        const score = dot(q, e.vector);
        if (!top.admits(score, ns, key)) continue;
        const item = toItem(ns, key, e.value, e.createdAt, e.updatedAt, e.expiresAt);
        if (test && !test(item.value)) continue;
        top.push({ ns, key, score, item });
      }
    }
    return takePage(
      top.sorted(),
      (s) => s.item,
      (s) => s.score,
      null,
      offset,
      limit,
    );
  }

  async listNamespaces(options?: ListNamespacesOptions): Promise<string[][]> {
    this.#open();
    const q = namespacesQuery(options);
    const now = this.#now();
    const live: string[] = [];
    for (const [ns, space] of this.#under(q.prefix)) {
      for (const e of space.values()) {
        if (this.#live(e, now)) {
          live.push(ns);
          break;
        }
      }
    }
    return namespacesPage(live, q);
  }

  batch(operations: readonly MemoryOperation[]): Promise<MemoryOperationResult[]> {
    return runBatch(this, operations);
  }

  async deleteNamespace(namespacePrefix: Namespace): Promise<number> {
    this.#open();
    const prefix = checkNamespace(namespacePrefix, false, "deleteNamespace");
    let n = 0;
    for (const [ns, space] of this.#under(prefix)) {
      n += space.size;
      this.#spaces.delete(ns);
    }
    return n;
  }

  async purgeExpired(): Promise<number> {
    this.#open();
    const now = this.#now();
    let n = 0;
    for (const [ns, space] of this.#spaces) {
      for (const [key, e] of space) {
        if (!this.#live(e, now)) {
          space.delete(key);
          n++;
        }
      }
      if (space.size === 0) this.#spaces.delete(ns);
    }
    return n;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#spaces.clear();
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
    const now = this.#now();
    const spaces = [...this.#under(prefix)].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const self = this;
    function* live(): Iterable<MemoryItem> {
      for (const [ns, space] of spaces) {
        const keys = [...space.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        for (const key of keys) {
          const e = self.#live(space.get(key), now);
          if (e) yield toItem(ns, key, e.value, e.createdAt, e.updatedAt, e.expiresAt);
        }
      }
    }
    return takePage(
      live(),
      (i) => i,
      () => null,
      test,
      offset,
      limit,
    );
  }

  *#under(prefix: readonly string[]): Iterable<[string, Map<string, Entry>]> {
    const { lo, hi } = prefixRange(prefix);
    for (const entry of this.#spaces) {
      if (hi === null || (entry[0] >= lo && entry[0] < hi)) yield entry;
    }
  }

  #live(e: Entry | undefined, now: number): Entry | null {
    if (!e) return null;
    return e.expiresAt !== null && e.expiresAt <= now ? null : e;
  }

  #open(): void {
    if (this.#closed) throw closedStore(NAME);
  }
}

interface Scored {
  ns: string;
  key: string;
  score: number;
  item: MemoryItem;
}

/** The error of a query over more indexed items than a brute-force store compares. */
export function tooMany(max: number, prefix: readonly string[]): MemoryStoreError {
  return new MemoryStoreError(
    `search: more than ${max} indexed items under namespace prefix ${JSON.stringify(prefix)} (maxSearchItems); search a narrower prefix, raise maxSearchItems, or use PostgresMemoryStore (pgvector index)`,
    { namespace: [...prefix] },
  );
}
