/**
 * A limit (docs/subgraphs.md, docs/stores.md "A run's durability"): a `"stable"` child's thread
 * is written by the child's own run (in `"sync"` mode) before the parent commits the superstep
 * that called it. When that parent commit is lost (an append that fails, a kill; in `"exit"`
 * mode the whole parent run), the child keeps the run: the parent's next call of the node runs
 * the child again on top of it, so the child has counted the lost call too. These tests pin
 * that down, so a change of it is seen.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { type Durability, END, Graph, node, START, subgraph } from "../../src/graph/index.js";
import { defineState, reducer } from "../../src/state/index.js";
import { MemoryStateStore } from "../../src/stores/index.js";
import type { NewEvent, StateStore } from "../../src/stores/types.js";

const Child = defineState({ calls: z.number().default(0) });
const Log = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

/** `sub` (a stable child counting its calls) → `after`. */
function counting(store: StateStore) {
  const count = node((c: typeof Child.State) => ({ calls: c.calls + 1 }), { name: "count" });
  const child = new Graph(Child, { name: "child" }).flow(START.to(count), count.to(END));
  const sub = subgraph<typeof Log.State, typeof Child.State>("sub", child, {
    stateIn: () => ({}),
    stateOut: (c) => ({ log: [`call ${c.calls}`] }),
    childThread: "stable",
  });
  const after = node(() => ({ log: ["after"] }), { name: "after" });
  return new Graph(Log, { name: "parent", stateStore: store }).flow(
    START.to(sub),
    sub.to(after),
    after.to(END),
  );
}

/** A view of `inner` whose appends to thread "t" with an event of `type` fail while `on.fail`. */
function failingOn(inner: MemoryStateStore, type: string, on: { fail: boolean }) {
  return new Proxy(inner, {
    get(t, k, r) {
      if (k === "append")
        return async (tid: string, bid: string, ev: NewEvent[], seq: number) => {
          if (on.fail && tid === "t" && ev.some((e) => e.type === type)) throw new Error("lost");
          return t.append(tid, bid, ev, seq);
        };
      const v = Reflect.get(t, k, r);
      return typeof v === "function" ? v.bind(t) : v;
    },
  }) as StateStore;
}

const childRuns = async (store: StateStore) =>
  (await store.read("t:sub", "main")).filter((e) => e.type === "run_started").length;

for (const mode of ["sync", "async"] as const satisfies Durability[]) {
  it(`${mode}: the parent's commit of the call is lost; continuing calls the child again (it counts 3)`, async () => {
    const inner = new MemoryStateStore();
    await counting(inner).invoke({}, { threadId: "t" });
    const on = { fail: true };
    await expect(
      counting(failingOn(inner, "step_committed", on)).invoke(
        {},
        { threadId: "t", durability: mode },
      ),
    ).rejects.toThrow(/^lost$/);
    on.fail = false;
    expect(await childRuns(inner)).toBe(2);
    const r = await counting(inner).invoke(null, { threadId: "t" });
    expect(r.state.log).toEqual(["call 1", "after", "call 3", "after"]);
    expect(await childRuns(inner)).toBe(3);
  });
}

it('"exit": the parent run is lost whole, the child keeps its run: the next call counts 3', async () => {
  const inner = new MemoryStateStore();
  await counting(inner).invoke({}, { threadId: "t" });
  const on = { fail: true };
  await expect(
    counting(failingOn(inner, "run_finished", on)).invoke(
      {},
      { threadId: "t", durability: "exit" },
    ),
  ).rejects.toThrow(/^lost$/);
  on.fail = false;
  // The parent is as before the run; the child is not.
  expect((await counting(inner).getState("t")).state.log).toEqual(["call 1", "after"]);
  expect(await childRuns(inner)).toBe(2);
  const r = await counting(inner).invoke({}, { threadId: "t" });
  expect(r.state.log).toEqual(["call 1", "after", "call 3", "after"]);
});
