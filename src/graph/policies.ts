/**
 * Node policies: retrying a failed node, and caching a node's result by its input.
 *
 * @module
 */
import {
  ConcurrentWriteError,
  ContextNotProvidedError,
  GraphConfigError,
  GraphExecutionError,
  ModelProviderError,
  RunCancelledError,
  StateStoreError,
  StateUpdateError,
  ValueError,
} from "../errors/index.js";
import type { JsonValue } from "../json/index.js";
import { nodeCrypto } from "../lazy.js";
import type { StateDefinition } from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import type { CompiledFlow } from "./compile.js";
import type { Graph } from "./graph.js";

/**
 * How a node is retried when it fails.
 *
 * The delay before attempt n+1 is `min(initialIntervalMs * backoffFactor^(n-1), maxIntervalMs)`,
 * times a random factor in [0.5, 1.5) with `jitter`. A retried attempt's update, routes and
 * `ctx.cache` changes are discarded; an interrupt is never retried; a cancelled run is not.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included; default 3. */
  maxAttempts?: number;
  /** Delay before the second attempt, in ms; default 500. */
  initialIntervalMs?: number;
  /** Factor the delay grows by per attempt; default 2. */
  backoffFactor?: number;
  /** Upper bound of a delay, in ms; default 128,000. */
  maxIntervalMs?: number;
  /** Randomize delays by ±50%; default true. */
  jitter?: boolean;
  /**
   * Which errors to retry: a predicate, or a list of error classes. Default: every error but
   * nodestep's own configuration, state, store and routing errors, a cancelled run, a
   * `ModelProviderError` that says a retry cannot help, and `TypeError`/`ReferenceError`/`SyntaxError`
   * (bugs do not heal by waiting).
   */
  retryOn?: ((error: unknown) => boolean) | ReadonlyArray<abstract new (...args: never[]) => Error>;
}

/**
 * A node's result cache: a key from the node's input, and a time to live. A task that pauses,
 * or that read an interrupt answer, stores nothing (its result is not its input's alone), and
 * a task resumed with answers is not served from the cache (docs/node-policies.md).
 */
export interface CachePolicy {
  /** The key of an input state; default a SHA-256 of its JSON (keys sorted). */
  key?: (state: Record<string, unknown>) => string;
  /** How long an entry lives, in ms; default for ever. */
  ttlMs?: number;
}

/**
 * Where node results are cached. `MemoryNodeCache` here; `StoreNodeCache` keeps them in a state store.
 *
 * A cache may keep the values it is given, and return them, as they are: the engine passes
 * `set` a copy that nothing else holds, and copies what `get` returns before the run uses it,
 * so a hit gives exactly what the node returned when it ran, whatever the run, its nodes or
 * the caller later do to their objects.
 */
export interface NodeCache {
  /** The entry for `key`, or `null` when absent or expired. */
  get(key: string): Promise<JsonValue | null>;
  /**
   * Keep `value` under `key` for `ttlMs` ms (`null`: for ever). `owner` is the thread whose
   * run computed it (absent for a run without a thread), for {@link NodeCache.forgetThread}.
   */
  set(key: string, value: JsonValue, ttlMs: number | null, owner?: string): Promise<void>;
  /**
   * Drop every entry a run on thread `threadId` wrote (`graph.deleteThread` calls it for each
   * thread it deletes, so a deleted thread's results do not outlive it in the cache; another
   * thread that would have hit one of them computes it again). Optional: a cache without it
   * keeps its entries until they expire or are cleared.
   */
  forgetThread?(threadId: string): Promise<void>;
  /**
   * Drop every entry whose key starts with `prefix` (`graph.clearCache` passes
   * {@link nodeCachePrefix} of a node, or of a graph with `node` left out). Optional: a
   * cache without it cannot be cleared (`graph.clearCache` then throws `GraphConfigError`).
   */
  clear?(prefix: string): Promise<void>;
}

/**
 * How the cache keys of a graph's node begin: `"<graph>/<node>/"`, each name URI-encoded (so
 * a `/` in a name cannot make one node's keys look like another's); `node` left out: the
 * prefix of all the graph's keys, `"<graph>/"`.
 */
export function nodeCachePrefix(graph: string, node?: string): string {
  const g = `${encodeURIComponent(graph)}/`;
  return node === undefined ? g : `${g}${encodeURIComponent(node)}/`;
}

/** A {@link NodeCache} in this process's memory (at most `maxEntries`, oldest dropped first; default 10,000). */
export class MemoryNodeCache implements NodeCache {
  readonly #entries = new Map<
    string,
    { value: JsonValue; expiresAt: number | null; owner: string | undefined }
  >();
  readonly #max: number;
  constructor(options: { maxEntries?: number } = {}) {
    this.#max = options.maxEntries ?? 10_000;
  }
  async get(key: string): Promise<JsonValue | null> {
    const e = this.#entries.get(key);
    if (!e) return null;
    if (e.expiresAt !== null && Date.now() >= e.expiresAt) {
      this.#entries.delete(key);
      return null;
    }
    return e.value;
  }
  async clear(prefix: string): Promise<void> {
    for (const key of [...this.#entries.keys()])
      if (key.startsWith(prefix)) this.#entries.delete(key);
  }
  async forgetThread(threadId: string): Promise<void> {
    for (const [key, e] of [...this.#entries]) if (e.owner === threadId) this.#entries.delete(key);
  }
  async set(key: string, value: JsonValue, ttlMs: number | null, owner?: string): Promise<void> {
    this.#entries.delete(key);
    this.#entries.set(key, {
      value,
      expiresAt: ttlMs === null ? null : Date.now() + ttlMs,
      owner,
    });
    if (this.#entries.size > this.#max)
      this.#entries.delete(this.#entries.keys().next().value as string);
  }
}

/** The prefix of the thread that lists the entries a thread's runs wrote: `__nodecache_owner__:<thread>`. */
const OWNER_INDEX = "__nodecache_owner__:";
/** How often an owner index append is tried again when another task appended first. */
const INDEX_ATTEMPTS = 50;

/**
 * A {@link NodeCache} kept in a state store, so that every process sharing the store shares
 * the cache: each key is a thread `"__nodecache__:<graph>/<node>/<sha256 of key>"` whose last
 * event holds the entry. `clear` lists the store's threads to find a prefix's. An entry
 * written by a run on a thread is also listed in that thread's index thread
 * `"__nodecache_owner__:<thread>"`, which `forgetThread` (called by `graph.deleteThread`)
 * reads to delete them.
 */
export class StoreNodeCache implements NodeCache {
  constructor(readonly store: StateStore) {}
  // "__nodecache__:<graph>/<node>/<sha256 of the key>": the key's prefix kept readable, so that
  // clear(prefix) finds a node's entries.
  #thread(key: string): string {
    const [graph, node] = key.split("/", 2);
    return `__nodecache__:${graph}/${node}/${nodeCrypto().createHash("sha256").update(key).digest("hex")}`;
  }
  async clear(prefix: string): Promise<void> {
    const start = `__nodecache__:${prefix}`;
    for (const t of await this.store.listThreads()) {
      if (t.threadId.startsWith(start)) await this.store.deleteThread(t.threadId);
    }
  }
  async get(key: string): Promise<JsonValue | null> {
    const threadId = this.#thread(key);
    const branch = await this.store.getBranch(threadId, "main");
    if (!branch || branch.lastSeq === 0) return null;
    const [last] = await this.store.read(threadId, "main", { afterSeq: branch.lastSeq - 1 });
    const data = last?.data as { value: JsonValue; expiresAt: number | null } | undefined;
    if (!data || (data.expiresAt !== null && Date.now() >= data.expiresAt)) return null;
    return data.value;
  }
  async set(key: string, value: JsonValue, ttlMs: number | null, owner?: string): Promise<void> {
    const threadId = this.#thread(key);
    const expiresAt = ttlMs === null ? null : Date.now() + ttlMs;
    // The owner's index first: an entry is never stored without the record that deletes it.
    if (owner !== undefined) await this.#index(`${OWNER_INDEX}${owner}`, threadId);
    await this.#appendLast(threadId, { value, expiresAt });
  }
  // Tasks of one superstep append to their thread's index at once: try again after a conflict.
  async #index(index: string, entry: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const branch = await this.store.getBranch(index, "main");
      try {
        await this.store.append(
          index,
          "main",
          [
            {
              type: "task_finished",
              runId: "node-cache",
              step: null,
              taskId: null,
              node: null,
              data: { entry },
            },
          ],
          branch?.lastSeq ?? 0,
        );
        return;
      } catch (e) {
        if (!(e instanceof ConcurrentWriteError) || attempt >= INDEX_ATTEMPTS) throw e;
      }
    }
  }
  /** Delete the entries runs on `threadId` wrote, and their index (see {@link NodeCache.forgetThread}). */
  async forgetThread(threadId: string): Promise<void> {
    const index = `${OWNER_INDEX}${threadId}`;
    if (!(await this.store.getBranch(index, "main"))) return;
    const entries = new Set<string>();
    for (const e of await this.store.read(index, "main")) {
      const entry = (e.data as { entry?: unknown } | null)?.entry;
      if (typeof entry === "string") entries.add(entry);
    }
    for (const entry of entries) await this.store.deleteThread(entry);
    await this.store.deleteThread(index);
  }
  async #appendLast(
    threadId: string,
    data: { value: JsonValue; expiresAt: number | null },
  ): Promise<void> {
    const branch = await this.store.getBranch(threadId, "main");
    try {
      await this.store.append(
        threadId,
        "main",
        [
          {
            type: "task_finished",
            runId: "node-cache",
            step: null,
            taskId: null,
            node: null,
            data,
          },
        ],
        branch?.lastSeq ?? 0,
      );
    } catch (e) {
      if (!(e instanceof StateStoreError)) throw e;
      // Another process wrote the same entry at the same time: its value serves as well.
    }
  }
}

const NOT_RETRIED: ReadonlyArray<abstract new (...args: never[]) => Error> = [
  GraphConfigError,
  GraphExecutionError,
  StateUpdateError,
  StateStoreError,
  RunCancelledError,
  ContextNotProvidedError,
  ValueError,
  TypeError,
  ReferenceError,
  SyntaxError,
];

/** Whether the default policy retries `error`. */
export function retryableByDefault(error: unknown): boolean {
  if (error instanceof ModelProviderError) return error.retryable;
  return !NOT_RETRIED.some((c) => error instanceof c);
}

/** Check a retry policy and fill its defaults. @throws ValueError for out-of-range numbers. */
export function resolveRetry(
  policy: RetryPolicy,
  where: string,
): Required<Omit<RetryPolicy, "retryOn">> & { retryOn: (e: unknown) => boolean } {
  const maxAttempts = policy.maxAttempts ?? 3;
  const initialIntervalMs = policy.initialIntervalMs ?? 500;
  const backoffFactor = policy.backoffFactor ?? 2;
  const maxIntervalMs = policy.maxIntervalMs ?? 128_000;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new ValueError(
      `${where}: retry.maxAttempts must be a positive integer, got ${maxAttempts}`,
    );
  for (const [k, v] of [
    ["initialIntervalMs", initialIntervalMs],
    ["maxIntervalMs", maxIntervalMs],
    ["backoffFactor", backoffFactor],
  ] as const) {
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0)
      throw new ValueError(`${where}: retry.${k} must be a non-negative number, got ${v}`);
  }
  const r = policy.retryOn;
  const retryOn =
    r === undefined
      ? retryableByDefault
      : typeof r === "function"
        ? (r as (e: unknown) => boolean)
        : (e: unknown) => r.some((c) => e instanceof c);
  return {
    maxAttempts,
    initialIntervalMs,
    backoffFactor,
    maxIntervalMs,
    jitter: policy.jitter ?? true,
    retryOn,
  };
}

/** Delay before attempt `attempt + 1` (attempt counted from 1), in ms. */
export function retryDelayMs(p: ReturnType<typeof resolveRetry>, attempt: number): number {
  const base = Math.min(p.initialIntervalMs * p.backoffFactor ** (attempt - 1), p.maxIntervalMs);
  return p.jitter ? base * (0.5 + Math.random()) : base;
}

/** A SHA-256 of `value`'s JSON with object keys sorted. */
export function stableHash(value: unknown): string {
  return nodeCrypto().createHash("sha256").update(stableJson(value)).digest("hex");
}

function stableJson(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(",")}}`;
}

/** The graph's node cache; a `MemoryNodeCache` is made (and kept on the graph) on first need. */
export function resolveNodeCache(
  graph: Graph<StateDefinition | null>,
  flow: CompiledFlow,
): NodeCache | null {
  if (graph.nodeCache) return graph.nodeCache;
  for (const n of flow.nodes.values()) {
    if (n.node.cache) {
      graph.nodeCache = new MemoryNodeCache();
      return graph.nodeCache;
    }
  }
  return null;
}
