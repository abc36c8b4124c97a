/**
 * A node with a cache policy that interrupts: a result that read an answer depends on the
 * answer, not on the input alone, so it is not stored under the input's key (another thread
 * with the same input is asked again), and a task resumed with answers is not served a result
 * cached by its input (its answer decides). Results that asked nothing are cached as before.
 * Warm (one graph object, one store instance) and cold (a new graph object over a new store
 * instance for every call), with the cache in memory and in the store.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { JsonValue } from "../json/index.js";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore, memoryStoreView } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { MemoryNodeCache, type NodeCache, nodeCachePrefix, StoreNodeCache } from "./policies.js";
import { END } from "./routing.js";

const S = defineState({ x: z.string().default(""), out: z.string().default("") });
type St = typeof S.State;

/** A cache that records the keys it was asked to keep. */
class Watched implements NodeCache {
  readonly sets: string[] = [];
  constructor(readonly inner: () => NodeCache) {}
  get(key: string) {
    return this.inner().get(key);
  }
  set(key: string, value: JsonValue, ttlMs: number | null, owner?: string) {
    this.sets.push(key);
    return this.inner().set(key, value, ttlMs, owner);
  }
}

function setup(mode: "warm" | "cold", where: "memory" | "store") {
  const store = new MemoryStateStore();
  const memory = new MemoryNodeCache();
  const at = (s: StateStore) => (where === "memory" ? memory : new StoreNodeCache(s));
  let current: StateStore = store;
  const cache = new Watched(() => at(current));
  const runs: string[] = [];
  // Asks only while `flag.ask` is on: whether it asks is not a function of its input.
  const flag = { ask: true };
  const decide = node(
    (s: St, ctx) => {
      runs.push(s.x);
      const answer = flag.ask ? String(ctx.interrupt(`ok ${s.x}?`, { key: "ok" })) : "none";
      return { out: `${s.x}:${answer}` };
    },
    { name: "decide", cache: {} },
  );
  const build = (s: StateStore) =>
    new Graph(S, { name: "g", stateStore: s, nodeCache: cache }).flow(
      START.to(decide),
      decide.to(END),
    );
  const warm = build(store);
  const g = () => {
    if (mode === "warm") return warm;
    current = memoryStoreView(store)!;
    return build(current);
  };
  return { g, runs, flag, cache };
}

describe("a cached node that interrupts", () => {
  for (const mode of ["warm", "cold"] as const) {
    for (const where of ["memory", "store"] as const) {
      it(`a result that read an answer is not cached: the same input on another thread asks again (${mode}, ${where} cache)`, async () => {
        const { g, runs, cache } = setup(mode, where);
        const asked = await g().invoke({ x: "a" }, { threadId: "t1" });
        expect([asked.status, asked.interrupts]).toEqual([
          "interrupted",
          [{ key: "ok", value: "ok a?", node: "decide", taskId: "0:0" }],
        ]);
        const yes = await g().invoke(null, { threadId: "t1", resume: { ok: "yes" } });
        expect([yes.status, yes.state]).toEqual(["completed", { x: "a", out: "a:yes" }]);
        const again = await g().invoke({ x: "a" }, { threadId: "t2" });
        expect([again.status, again.interrupts.map((i) => i.value)]).toEqual([
          "interrupted",
          ["ok a?"],
        ]);
        const no = await g().invoke(null, { threadId: "t2", resume: { ok: "no" } });
        expect(no.state).toEqual({ x: "a", out: "a:no" });
        expect(runs).toEqual(["a", "a", "a", "a"]);
        expect(cache.sets).toEqual([]);
      });

      it(`a task resumed with an answer is not served a result cached by its input (${mode}, ${where} cache)`, async () => {
        const { g, runs, flag, cache } = setup(mode, where);
        expect((await g().invoke({ x: "b" }, { threadId: "t1" })).status).toBe("interrupted");
        // Another thread, same input, while the node asks nothing: cached by its input.
        flag.ask = false;
        expect((await g().invoke({ x: "b" }, { threadId: "t2" })).state.out).toBe("b:none");
        expect(cache.sets).toHaveLength(1);
        expect(cache.sets[0]!.startsWith(nodeCachePrefix("g", "decide"))).toBe(true);
        // The same input on a third thread is served from the cache ...
        const updates: unknown[] = [];
        for await (const e of g().stream({ x: "b" }, { threadId: "t3", modes: ["updates"] }))
          updates.push([e.data, (e as { cached?: boolean }).cached]);
        expect(updates).toEqual([[{ out: "b:none" }, true]]);
        expect(runs).toEqual(["b", "b"]);
        // ... but t1's task, resumed with its answer, runs and takes it.
        flag.ask = true;
        const done = await g().invoke(null, { threadId: "t1", resume: { ok: "yes" } });
        expect(done.state).toEqual({ x: "b", out: "b:yes" });
        expect(runs).toEqual(["b", "b", "b"]);
        expect(cache.sets).toHaveLength(1);
      });
    }
  }
});
