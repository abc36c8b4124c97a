/**
 * `getState` keeps what it folded in the graph's position cache (issue 20, item 6): a second
 * read of the same branch in the same process asks the store for the branch only, and gives
 * what the first (cold) read gave; the cache is checked against the branch's last seq, so a
 * read after another process's write folds that write.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { defineState, reducer } from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END, when } from "./routing.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-getstate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const State = defineState({
  count: z.number().default(0),
  limit: z.number().default(0),
  log: reducer(z.array(z.number()).default([]), (a: number[], b: number[]) => [...a, ...b]),
});
type S = typeof State.State;

function loop(store: StateStore): Graph<typeof State> {
  const step = node((s: S) => ({ count: s.count + 1, log: [s.count + 1] }), { name: "step" });
  return new Graph(State, { name: "loop", stateStore: store }).flow(
    START.to(step),
    step.to(when((s: S) => s.count < s.limit, step, { otherwise: END })),
  );
}

/** The store, recording the names of the methods called on it. */
function recorded(store: StateStore): { store: StateStore; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(store, {
    get(t, k, r) {
      const v = Reflect.get(t, k, r);
      if (typeof v !== "function") return v;
      return (...a: unknown[]) => {
        calls.push(String(k));
        return (v as (...x: unknown[]) => unknown).apply(t, a);
      };
    },
  });
  return { store: proxy, calls };
}

describe("getState and the position cache", () => {
  it("a second read in the same process reads the branch only, and equals the cold read", async () => {
    const path = join(dir, "warm.db");
    const writer = new SqliteStateStore({ path });
    await loop(writer).invoke({ limit: 5 }, { threadId: "t" });
    await writer.close();

    const raw = new SqliteStateStore({ path });
    const { store, calls } = recorded(raw);
    const reader = loop(store);
    const cold = await reader.getState("t");
    expect(calls).toEqual(["getBranch", "loadSnapshot", "read"]);
    const warm = await reader.getState("t");
    expect(calls).toEqual(["getBranch", "loadSnapshot", "read", "getBranch"]);
    expect(warm).toEqual(cold);
    expect(JSON.stringify(warm)).toBe(JSON.stringify(cold));
    expect(warm.state).toEqual({ count: 5, limit: 5, log: [1, 2, 3, 4, 5] });
    // Each read is the caller's own copy: changing one changes neither the cache nor the next.
    warm.state.log.push(99);
    expect((await reader.getState("t")).state.log).toEqual([1, 2, 3, 4, 5]);
    await raw.close();
  });

  it("a read after another process's write sees the new state", async () => {
    const path = join(dir, "other.db");
    const mine = new SqliteStateStore({ path });
    const { store, calls } = recorded(mine);
    const reader = loop(store);
    await reader.invoke({ limit: 3 }, { threadId: "t" });
    const before = await reader.getState("t");
    expect(before.state).toEqual({ count: 3, limit: 3, log: [1, 2, 3] });

    // Another process (its own store handle and graph) continues the thread.
    const theirs = new SqliteStateStore({ path });
    await loop(theirs).invoke({ limit: 6 }, { threadId: "t" });
    const expected = await loop(new SqliteStateStore({ path })).getState("t");
    await theirs.close();

    calls.length = 0;
    const after = await reader.getState("t");
    expect(after.state).toEqual({ count: 6, limit: 6, log: [1, 2, 3, 4, 5, 6] });
    expect(after).toEqual(expected);
    // The cached position was not the branch's last seq: the read folded the store's events.
    expect(calls).toContain("read");
    expect(after.lastEventId).not.toBe(before.lastEventId);
    // And the next read in this process is from the cache again.
    calls.length = 0;
    expect(await reader.getState("t")).toEqual(expected);
    expect(calls).toEqual(["getBranch"]);
    await mine.close();
  });
});
