/**
 * Issue 13, item 9: the node cache entries a thread's runs wrote are deleted with the thread
 * (`NodeCache.forgetThread`), in a `StoreNodeCache` (read cold: a new store handle and a new
 * cache over the same SQLite file) and a `MemoryNodeCache`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { MemoryNodeCache, type NodeCache, StoreNodeCache } from "./policies.js";
import { END } from "./routing.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-cache-delete-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const State = defineState({
  q: z.number().default(0),
  a: z.string().default(""),
  b: z.string().default(""),
});
type S = typeof State.State;

function build(store: StateStore, nodeCache: NodeCache, calls: string[]) {
  const a = node(
    (s: S) => {
      calls.push(`a${s.q}`);
      return { a: `a${s.q}` };
    },
    { name: "a", cache: {} },
  );
  const b = node(
    (s: S) => {
      calls.push(`b${s.q}`);
      return { b: `b${s.q}` };
    },
    { name: "b", cache: {} },
  );
  // a and b run in one superstep: their index appends race, and both must land.
  return new Graph(State, { name: "g", stateStore: store, nodeCache }).flow(
    START.to([a, b]),
    a.to(END),
    b.to(END),
  );
}

const cacheThreads = async (store: StateStore) =>
  (await store.listThreads())
    .map((t) => t.threadId)
    .filter((id) => id.startsWith("__nodecache"))
    .map((id) => id.replace(/\/[0-9a-f]{64}$/, "/<hash>"))
    .sort();

describe("deleteThread drops the node cache entries its runs wrote", () => {
  it("StoreNodeCache on SQLite: the entries and their index go, other threads' stay; cold", async () => {
    const file = join(dir, "cache.db");
    const first = new SqliteStateStore({ path: file });
    const calls: string[] = [];
    const g = build(first, new StoreNodeCache(first), calls);
    await g.invoke({ q: 1 }, { threadId: "t1" });
    await g.invoke({ q: 2 }, { threadId: "t2" });
    expect(calls).toEqual(["a1", "b1", "a2", "b2"]);
    expect(await cacheThreads(first)).toEqual([
      "__nodecache__:g/a/<hash>",
      "__nodecache__:g/a/<hash>",
      "__nodecache__:g/b/<hash>",
      "__nodecache__:g/b/<hash>",
      "__nodecache_owner__:t1",
      "__nodecache_owner__:t2",
    ]);
    expect((await first.read("__nodecache_owner__:t1", "main")).length).toBe(2);
    await first.close();

    // A new process: a new store handle, cache and graph over the same file.
    const second = new SqliteStateStore({ path: file });
    const g2 = build(second, new StoreNodeCache(second), calls);
    expect(await g2.deleteThread("t1")).toEqual(["t1"]);
    expect(await cacheThreads(second)).toEqual([
      "__nodecache__:g/a/<hash>",
      "__nodecache__:g/b/<hash>",
      "__nodecache_owner__:t2",
    ]);
    calls.length = 0;
    expect((await g2.invoke({ q: 1 }, { threadId: "t3" })).state).toEqual({
      q: 1,
      a: "a1",
      b: "b1",
    });
    expect((await g2.invoke({ q: 2 }, { threadId: "t4" })).state).toEqual({
      q: 2,
      a: "a2",
      b: "b2",
    });
    // q = 1 was t1's: computed again; q = 2 is still t2's entry.
    expect(calls).toEqual(["a1", "b1"]);
    await second.close();
  });

  it("forgetThread of a thread that wrote nothing does nothing", async () => {
    const store = new MemoryStateStore();
    const cache = new StoreNodeCache(store);
    await cache.set("g/a/k", 1, null, "t1");
    await cache.forgetThread("nobody");
    expect(await cache.get("g/a/k")).toBe(1);
    await cache.forgetThread("t1");
    expect(await cache.get("g/a/k")).toBe(null);
    expect(await store.listThreads()).toEqual([]);
  });

  it("MemoryNodeCache: the deleted thread's entries go", async () => {
    const store = new MemoryStateStore();
    const calls: string[] = [];
    const g = build(store, new MemoryNodeCache(), calls);
    await g.invoke({ q: 1 }, { threadId: "t1" });
    await g.invoke({ q: 2 }, { threadId: "t2" });
    await g.deleteThread("t1");
    await g.invoke({ q: 1 }, { threadId: "t3" });
    await g.invoke({ q: 2 }, { threadId: "t4" });
    expect(calls).toEqual(["a1", "b1", "a2", "b2", "a1", "b1"]);
  });
});
