/**
 * The contract suite every `MemoryStore` must pass, written for vitest. The in-memory, SQLite
 * and PostgreSQL stores run it; a user-written store runs it the same way:
 *
 * ```ts
 * import { describeMemoryStoreContract } from "nodestep/testing";
 * describeMemoryStoreContract("MyStore", async (options) => new MyStore(options));
 * ```
 *
 * @module
 */
import { afterEach, describe, expect, it } from "vitest";
import { MemoryStoreError } from "../../errors/index.js";
import type { IndexConfig, MemoryStore } from "../types.js";
import { operationsContract } from "./contract-operations.js";
import { searchContract } from "./contract-search.js";

/** What the suite asks a store to be made with. */
export interface MemoryStoreContractStoreOptions {
  /** Semantic search settings, when the test needs them. */
  index?: IndexConfig;
  /** The clock the store must use for times and TTLs (ms since the epoch). */
  now: () => number;
}

/** Extra abilities of a store under test. */
export interface MemoryStoreContractOptions {
  /**
   * Open a new store object on the same storage as `store` (a new connection), with the given
   * options, to check that items (and their vectors) are read back cold. Leave out for a store
   * whose data lives in one object (in memory).
   */
  reopen?: (store: MemoryStore, options: MemoryStoreContractStoreOptions) => Promise<MemoryStore>;
}

/**
 * Register the `MemoryStore` contract tests (vitest `describe`/`it`) for one store.
 *
 * Each test gets a new, empty store from `makeStore(options)`; the suite closes every store it
 * made and then calls `cleanup` (to delete a file or drop a schema).
 *
 * @param name - shown in the test names.
 * @param makeStore - a new empty store with the given options.
 * @param cleanup - called after each test with the first (closed) store.
 * @param options - see {@link MemoryStoreContractOptions}.
 */
export function describeMemoryStoreContract(
  name: string,
  makeStore: (options: MemoryStoreContractStoreOptions) => Promise<MemoryStore>,
  cleanup?: (store: MemoryStore) => Promise<void>,
  options: MemoryStoreContractOptions = {},
): void {
  describe(`${name} (MemoryStore contract)`, () => {
    let opened: MemoryStore[] = [];
    let now = 1_000_000;
    const clock = () => now;

    async function make(index?: IndexConfig): Promise<MemoryStore> {
      now = 1_000_000;
      const s = await makeStore(index ? { index, now: clock } : { now: clock });
      opened.push(s);
      return s;
    }
    async function reopen(s: MemoryStore, index?: IndexConfig): Promise<MemoryStore | null> {
      if (!options.reopen) return null;
      const r = await options.reopen(s, index ? { index, now: clock } : { now: clock });
      opened.push(r);
      return r;
    }
    afterEach(async () => {
      const all = opened;
      opened = [];
      for (const s of all.slice(1).reverse()) await s.close();
      if (all[0]) {
        await all[0].close();
        await cleanup?.(all[0]);
      }
    });

    it("puts and gets an item with its times; a second put keeps createdAt", async () => {
      const store = await make();
      await store.put(["users", "u1"], "tea", { text: "likes green tea", n: 1 });
      expect(await store.get(["users", "u1"], "tea")).toEqual({
        namespace: ["users", "u1"],
        key: "tea",
        value: { text: "likes green tea", n: 1 },
        createdAt: 1_000_000,
        updatedAt: 1_000_000,
        expiresAt: null,
      });
      now = 1_000_500;
      await store.put(["users", "u1"], "tea", { text: "likes black tea" });
      const item = await store.get(["users", "u1"], "tea");
      expect(item).toEqual({
        namespace: ["users", "u1"],
        key: "tea",
        value: { text: "likes black tea" },
        createdAt: 1_000_000,
        updatedAt: 1_000_500,
        expiresAt: null,
      });
      (item!.value as { text: string }).text = "changed";
      expect((await store.get(["users", "u1"], "tea"))!.value).toEqual({ text: "likes black tea" });
      expect(await store.get(["users", "u1"], "coffee")).toBeNull();
      expect(await store.get(["users"], "tea")).toBeNull();
    });

    it("deletes an item and says whether there was one", async () => {
      const store = await make();
      await store.put(["a"], "k", { v: 1 });
      expect(await store.delete(["a"], "k")).toBe(true);
      expect(await store.delete(["a"], "k")).toBe(false);
      expect(await store.get(["a"], "k")).toBeNull();
    });

    it("refuses bad namespaces, keys and values with MemoryStoreError, writing nothing", async () => {
      const store = await make();
      const cases: [() => Promise<unknown>, string][] = [
        [() => store.put([], "k", {}), "put: a namespace has 1 to 16 labels, got 0"],
        [
          () => store.put(["a", ""], "k", {}),
          'put: namespace label 1 must be a non-empty string of at most 256 characters without U+0000 or U+001F, got ""',
        ],
        [
          () => store.put(["a\u001fb"], "k", {}),
          'put: namespace label 0 must be a non-empty string of at most 256 characters without U+0000 or U+001F, got "a\\u001fb"',
        ],
        [
          () => store.put("users" as unknown as string[], "k", {}),
          'put: the namespace must be an array of strings such as ["users", "u-42"], got string',
        ],
        [
          () => store.put(["a"], "", {}),
          "put: the key must be a non-empty string of at most 1024 characters, got 0 characters",
        ],
        [
          () => store.put(["a"], "k", [1] as unknown as Record<string, never>),
          'put: the value of item "k" of namespace ["a"] must be a JSON object, got an array',
        ],
        [
          () => store.put(["a"], "k", { when: new Date(0) } as unknown as Record<string, never>),
          'put: the value of item "k" of namespace ["a"] is not JSON at value.when: a Date instance is not plain JSON data',
        ],
        [
          () => store.put(["a"], "k", { big: "x".repeat(1_048_576) }),
          'put: the value of item "k" of namespace ["a"] is 1048586 bytes as JSON, more than the limit of 1048576',
        ],
        [
          () => store.put(["a"], "k", {}, { ttlMs: 0 }),
          'put: ttlMs of item "k" of namespace ["a"] must be a positive whole number of ms or null, got 0',
        ],
        [
          () => store.put(["a"], "k", {}, { index: ["text"] }),
          'put: item "k" of namespace ["a"] asks for index fields, but the store has no semantic search; give the store { index: { embeddings, dimensions } }',
        ],
        [
          () => store.list(["a"], { limit: 0 }),
          "list: limit must be a whole number from 1 to 1000, got 0",
        ],
        [
          () => store.list(["a"], { offset: -1 }),
          "list: offset must be a whole number >= 0, got -1",
        ],
        [
          () => store.list(["a"], { filter: { n: { $in: [1] } } }),
          'list: filter field "n" has unknown operator $in; use $eq, $ne, $gt, $gte, $lt or $lte',
        ],
        [
          () => store.search(["a"], { query: "tea" }),
          "search: a query needs a store with semantic search: give the store { index: { embeddings, dimensions } }",
        ],
        [() => store.deleteNamespace([]), "deleteNamespace: a namespace has 1 to 16 labels, got 0"],
      ];
      for (const [call, message] of cases) {
        const error = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(MemoryStoreError);
        expect((error as Error).message).toBe(message);
      }
      expect(await store.list([])).toEqual([]);
    });

    it("lists under a prefix in namespace then key order, with limit, offset and filters", async () => {
      const store = await make();
      await store.put(["u", "b"], "2", { kind: "fact", n: 2, tags: ["x"] });
      await store.put(["u", "a"], "9", { kind: "fact", n: 9, profile: { city: "Oslo" } });
      await store.put(["u", "a"], "1", { kind: "pref", n: 1 });
      await store.put(["u", "ab"], "5", { kind: "fact", n: 5 });
      await store.put(["v"], "1", { kind: "fact", n: 0 });
      const keys = (items: { namespace: string[]; key: string }[]) =>
        items.map((i) => `${i.namespace.join("/")}:${i.key}`);
      expect(keys(await store.list(["u"]))).toEqual(["u/a:1", "u/a:9", "u/ab:5", "u/b:2"]);
      expect(keys(await store.list(["u", "a"]))).toEqual(["u/a:1", "u/a:9"]);
      expect(keys(await store.list([]))).toEqual(["u/a:1", "u/a:9", "u/ab:5", "u/b:2", "v:1"]);
      expect(keys(await store.list(["u"], { limit: 2, offset: 1 }))).toEqual(["u/a:9", "u/ab:5"]);
      expect(keys(await store.list(["u"], { filter: { kind: "fact" } }))).toEqual([
        "u/a:9",
        "u/ab:5",
        "u/b:2",
      ]);
      expect(keys(await store.list(["u"], { filter: { n: { $gte: 2, $lt: 9 } } }))).toEqual([
        "u/ab:5",
        "u/b:2",
      ]);
      expect(keys(await store.list(["u"], { filter: { kind: { $ne: "fact" } } }))).toEqual([
        "u/a:1",
      ]);
      expect(keys(await store.list([], { filter: { "profile.city": "Oslo" } }))).toEqual(["u/a:9"]);
      expect(keys(await store.list([], { filter: { tags: ["x"] } }))).toEqual(["u/b:2"]);
      expect(
        keys(await store.list(["u"], { filter: { kind: "fact" }, offset: 1, limit: 1 })),
      ).toEqual(["u/ab:5"]);
      const listed = await store.search(["v"]);
      expect(listed).toEqual([
        {
          namespace: ["v"],
          key: "1",
          value: { kind: "fact", n: 0 },
          createdAt: 1_000_000,
          updatedAt: 1_000_000,
          expiresAt: null,
          score: null,
        },
      ]);
    });

    it("expires items after ttlMs for every read, and purges them", async () => {
      const store = await make();
      await store.put(["s"], "short", { v: 1 }, { ttlMs: 100 });
      await store.put(["s"], "long", { v: 2 }, { ttlMs: 1_000 });
      await store.put(["s"], "forever", { v: 3 });
      expect((await store.get(["s"], "short"))!.expiresAt).toBe(1_000_100);
      now = 1_000_099;
      expect((await store.list(["s"])).map((i) => i.key)).toEqual(["forever", "long", "short"]);
      now = 1_000_100;
      expect(await store.get(["s"], "short")).toBeNull();
      expect((await store.list(["s"])).map((i) => i.key)).toEqual(["forever", "long"]);
      expect((await store.search(["s"])).map((i) => i.key)).toEqual(["forever", "long"]);
      expect(await store.delete(["s"], "short")).toBe(false);
      await store.put(["s"], "long", { v: 4 });
      expect(await store.get(["s"], "long")).toMatchObject({
        expiresAt: null,
        createdAt: 1_000_000,
      });
      now = 2_000_000;
      await store.put(["s"], "again", { v: 5 }, { ttlMs: 10 });
      now = 2_000_010;
      expect(await store.purgeExpired()).toBe(1);
      expect((await store.list(["s"])).map((i) => i.key)).toEqual(["forever", "long"]);
      await store.put(["s"], "again", { v: 6 });
      expect(await store.get(["s"], "again")).toMatchObject({ createdAt: 2_000_010 });
    });

    it("deletes everything under a namespace prefix and nothing else", async () => {
      const store = await make();
      await store.put(["org", "o1", "u1"], "a", { v: 1 });
      await store.put(["org", "o1", "u2"], "b", { v: 2 });
      await store.put(["org", "o1"], "c", { v: 3 });
      await store.put(["org", "o10"], "d", { v: 4 });
      expect(await store.deleteNamespace(["org", "o1"])).toBe(3);
      expect((await store.list([])).map((i) => i.key)).toEqual(["d"]);
      expect(await store.deleteNamespace(["nothing"])).toBe(0);
    });

    searchContract({ make, reopen });

    it("reads items back cold from a new store object", async () => {
      const store = await make();
      await store.put(["c"], "k", { v: [1, "two", { three: null }] }, { ttlMs: 500 });
      const cold = await reopen(store);
      if (!cold) return;
      expect(await cold.get(["c"], "k")).toEqual({
        namespace: ["c"],
        key: "k",
        value: { v: [1, "two", { three: null }] },
        createdAt: 1_000_000,
        updatedAt: 1_000_000,
        expiresAt: 1_000_500,
      });
      await cold.put(["c"], "k2", { v: 2 });
      expect((await store.list(["c"])).map((i) => i.key)).toEqual(["k", "k2"]);
    });

    operationsContract({
      make: () => make(),
      reopen: (s) => reopen(s),
      setNow: (ms) => {
        now = ms;
      },
    });

    it("throws MemoryStoreError after close", async () => {
      const store = await make();
      await store.close();
      const error = await store.get(["a"], "k").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MemoryStoreError);
      expect((error as Error).message).toMatch(/ is closed$/);
    });
  });
}
