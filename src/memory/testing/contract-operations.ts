/**
 * The part of the `MemoryStore` contract suite beyond single items: `listNamespaces`, `batch`
 * and the kept times of an import's put. {@link describeMemoryStoreContract} registers it.
 *
 * @module
 */
import { expect, it } from "vitest";
import { MemoryStoreError } from "../../errors/index.js";
import type { MemoryStore } from "../types.js";

/** What the tests need from the suite: a new store, its clock, and a reopen on the same data. */
export interface ContractHarness {
  make(): Promise<MemoryStore>;
  reopen(store: MemoryStore): Promise<MemoryStore | null>;
  setNow(ms: number): void;
}

async function failure(call: () => Promise<unknown>): Promise<Error> {
  const error = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryStoreError);
  return error as Error;
}

/** Register the tests (inside the suite's `describe`). */
export function operationsContract(h: ContractHarness): void {
  it("lists namespaces with live items: prefix, suffix, maxDepth, limit, offset", async () => {
    const store = await h.make();
    for (const ns of [
      ["a", "b", "c"],
      ["a", "b", "d"],
      ["a", "x"],
      ["q", "bc"],
      ["z", "b", "c"],
    ]) {
      await store.put(ns, "k1", { v: 1 });
      await store.put(ns, "k2", { v: 2 });
    }
    await store.put(["a", "e"], "k", { v: 1 }, { ttlMs: 10 });
    expect(await store.listNamespaces()).toEqual([
      ["a", "b", "c"],
      ["a", "b", "d"],
      ["a", "e"],
      ["a", "x"],
      ["q", "bc"],
      ["z", "b", "c"],
    ]);
    expect(await store.listNamespaces({ prefix: ["a", "b"] })).toEqual([
      ["a", "b", "c"],
      ["a", "b", "d"],
    ]);
    expect(await store.listNamespaces({ suffix: ["c"] })).toEqual([
      ["a", "b", "c"],
      ["z", "b", "c"],
    ]);
    expect(await store.listNamespaces({ suffix: ["a", "b", "c"] })).toEqual([["a", "b", "c"]]);
    expect(await store.listNamespaces({ prefix: ["z"], suffix: ["b", "c"] })).toEqual([
      ["z", "b", "c"],
    ]);
    expect(await store.listNamespaces({ maxDepth: 2 })).toEqual([
      ["a", "b"],
      ["a", "e"],
      ["a", "x"],
      ["q", "bc"],
      ["z", "b"],
    ]);
    expect(await store.listNamespaces({ maxDepth: 1 })).toEqual([["a"], ["q"], ["z"]]);
    expect(await store.listNamespaces({ prefix: ["a"], maxDepth: 2, limit: 2, offset: 1 })).toEqual(
      [
        ["a", "e"],
        ["a", "x"],
      ],
    );
    h.setNow(1_000_010);
    expect(await store.listNamespaces({ prefix: ["a"], maxDepth: 2 })).toEqual([
      ["a", "b"],
      ["a", "x"],
    ]);
    expect((await failure(() => store.listNamespaces({ maxDepth: 0 }))).message).toBe(
      "listNamespaces: maxDepth must be a whole number from 1 to 16, got 0",
    );
    expect((await failure(() => store.listNamespaces({ limit: 1001 }))).message).toBe(
      "listNamespaces: limit must be a whole number from 1 to 1000, got 1001",
    );
    expect((await failure(() => store.listNamespaces({ suffix: ["a", ""] }))).message).toBe(
      'listNamespaces suffix: namespace label 1 must be a non-empty string of at most 256 characters without U+0000 or U+001F, got ""',
    );
  });

  it("runs a batch in order, returning each result; the first failure names its operation", async () => {
    const store = await h.make();
    const item = (namespace: string[], key: string, n: number) => ({
      namespace,
      key,
      value: { n },
      createdAt: 1_000_000,
      updatedAt: 1_000_000,
      expiresAt: null,
    });
    expect(
      await store.batch([
        { op: "put", namespace: ["b"], key: "1", value: { n: 1 } },
        { op: "put", namespace: ["b", "c"], key: "2", value: { n: 2 } },
        { op: "get", namespace: ["b"], key: "1" },
        { op: "list", namespacePrefix: ["b"] },
        { op: "search", namespacePrefix: ["b"], options: { filter: { n: 2 } } },
        { op: "listNamespaces" },
        { op: "delete", namespace: ["b"], key: "1" },
        { op: "get", namespace: ["b"], key: "1" },
      ]),
    ).toEqual([
      undefined,
      undefined,
      item(["b"], "1", 1),
      [item(["b"], "1", 1), item(["b", "c"], "2", 2)],
      [{ ...item(["b", "c"], "2", 2), score: null }],
      [["b"], ["b", "c"]],
      true,
      null,
    ]);
    const error = await failure(() =>
      store.batch([
        { op: "put", namespace: ["d"], key: "1", value: { n: 1 } },
        { op: "get", namespace: [], key: "1" },
        { op: "put", namespace: ["d"], key: "2", value: { n: 2 } },
      ]),
    );
    expect(error.message).toBe(
      "batch: operation 1 (get): get: a namespace has 1 to 16 labels, got 0",
    );
    expect((await store.list(["d"])).map((i) => i.key)).toEqual(["1"]);
    expect((await failure(() => store.batch([{ op: "upsert" } as never]))).message).toBe(
      'batch: operation 0 (upsert): unknown op "upsert"; use "get", "put", "delete", "list", "search" or "listNamespaces"',
    );
    expect(await store.batch([])).toEqual([]);
  });

  it("keeps the createdAt and updatedAt a put is given (an import's), also read back cold", async () => {
    const store = await h.make();
    await store.put(["t"], "k", { v: 1 }, { createdAt: 5, updatedAt: 7 });
    expect(await store.get(["t"], "k")).toMatchObject({ createdAt: 5, updatedAt: 7 });
    await store.put(["t"], "k", { v: 2 });
    expect(await store.get(["t"], "k")).toMatchObject({ createdAt: 5, updatedAt: 1_000_000 });
    await store.put(["t"], "k", { v: 3 }, { createdAt: 3 });
    expect(await store.get(["t"], "k")).toMatchObject({ createdAt: 3, updatedAt: 1_000_000 });
    await store.put(["t"], "new", { v: 4 }, { updatedAt: 999_999 });
    expect(await store.get(["t"], "new")).toMatchObject({
      createdAt: 1_000_000,
      updatedAt: 999_999,
    });
    const cold = await h.reopen(store);
    if (cold) {
      expect(await cold.get(["t"], "k")).toEqual({
        namespace: ["t"],
        key: "k",
        value: { v: 3 },
        createdAt: 3,
        updatedAt: 1_000_000,
        expiresAt: null,
      });
    }
    expect((await failure(() => store.put(["t"], "k", { v: 5 }, { createdAt: -1 }))).message).toBe(
      'put: createdAt of item "k" of namespace ["t"] must be a whole number of ms since the epoch, got -1',
    );
    expect(
      (await failure(() => store.put(["t"], "k", { v: 5 }, { createdAt: 10, updatedAt: 9 })))
        .message,
    ).toBe('put: updatedAt (9) of item "k" of namespace ["t"] is before its createdAt (10)');
    expect((await store.get(["t"], "k"))!.value).toEqual({ v: 3 });
  });
}
