/**
 * Joins and deferred nodes across pauses, on every store: what a join has heard and which
 * deferred tasks wait are read back from the log alone, so a new graph object on a reopened
 * store continues exactly as the graph that paused would have, on a fork too, and after
 * `updateState` as one of the join's sources.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { Graph, join, node, START } from "../../src/graph/index.js";
import { END } from "../../src/graph/routing.js";
import { defineState, reducer } from "../../src/state/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { describeStores } from "./stores.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type S = typeof State.State;

/** a and b in parallel; a leads to ask (which pauses); join(ask, b) leads to c; b also to the deferred d. */
function makeGraph(store: StateStore): Graph<typeof State> {
  const mark = (name: string, defer = false) =>
    node((_s: S, ctx) => ({ log: [`${name}@${ctx.step}`] }), { name, defer });
  const [a, b, c] = [mark("a"), mark("b"), mark("c")];
  const d = mark("d", true);
  const ask = node(
    (_s: S, ctx) => ({
      log: [`ask:${String(ctx.interrupt("go on?", { key: "ok" }))}@${ctx.step}`],
    }),
    { name: "ask" },
  );
  return new Graph(State, { stateStore: store }).flow(
    START.to([a, b]),
    a.to(ask),
    b.to(d),
    join(ask, b).to(c),
    c.to(END),
    d.to(END),
  );
}

describeStores("joins and deferred nodes across pauses", (fx) => {
  it("a new graph on a reopened store fires the join and runs the deferred node, as the warm graph does", async () => {
    const store = await fx.open();
    const first = await makeGraph(store).invoke({}, { threadId: "t" });
    expect(first.status).toBe("interrupted");
    expect(first.state.log).toEqual(["a@0", "b@0"]);
    const cold = await makeGraph(await fx.reopen(store)).invoke(null, {
      threadId: "t",
      resume: { ok: "yes" },
    });
    expect(cold.status).toBe("completed");
    expect(cold.state.log).toEqual(["a@0", "b@0", "ask:yes@1", "c@2", "d@3"]);

    // The same thread run warm from start to end, for comparison.
    const warm = makeGraph(store);
    await warm.invoke({}, { threadId: "w" });
    const w = await warm.invoke(null, { threadId: "w", resume: { ok: "yes" } });
    expect(w.state).toEqual(cold.state);
  });

  it("a fork from before the pause continues from what the log says the join heard", async () => {
    const store = await fx.open();
    const g = makeGraph(store);
    await g.invoke({}, { threadId: "t" });
    await g.invoke(null, { threadId: "t", resume: { ok: "yes" } });
    const after0 = (await g.history("t")).find((e) => e.type === "step_committed" && e.step === 0);
    expect(after0?.data).toMatchObject({
      next: ["ask"],
      joins: { "ask+b>c": ["b"] },
      deferred: ["d"],
    });
    const fork = await g.fork("t", { eventId: after0!.id, branchId: "f" });
    const reopened = await fx.reopen(store);
    const paused = await makeGraph(reopened).invoke(null, {
      threadId: "t",
      branchId: fork.branchId,
    });
    expect(paused.status).toBe("interrupted");
    const done = await makeGraph(await fx.reopen(store)).invoke(null, {
      threadId: "t",
      branchId: "f",
      resume: { ok: "no" },
    });
    expect(done.state.log).toEqual(["a@0", "b@0", "ask:no@1", "c@2", "d@3"]);
    expect((await makeGraph(reopened).getState("t")).state.log).toEqual([
      "a@0",
      "b@0",
      "ask:yes@1",
      "c@2",
      "d@3",
    ]);
  });

  it("updateState as a source of the join fires it; the deferred node still waits its turn", async () => {
    const store = await fx.open();
    await makeGraph(store).invoke({}, { threadId: "t" });
    const snap = await makeGraph(await fx.reopen(store)).updateState(
      "t",
      { log: ["ask:edited"] },
      { asNode: "ask" },
    );
    expect(snap.next).toEqual(["c"]);
    const done = await makeGraph(await fx.reopen(store)).invoke(null, { threadId: "t" });
    expect(done.state.log).toEqual(["a@0", "b@0", "ask:edited", "c@2", "d@3"]);
  });
});
