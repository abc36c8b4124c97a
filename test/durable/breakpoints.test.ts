/**
 * Static breakpoints on every store, read cold (a new graph object and a new store handle per
 * call): the pause, continuing past it, a task interrupt after it, and a fork at the pause.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { Graph, node, START } from "../../src/graph/index.js";
import { END } from "../../src/graph/routing.js";
import { defineState, reducer } from "../../src/state/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { describeStores } from "./stores.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

function build(store: StateStore) {
  const a = node(() => ({ log: ["a"] }), { name: "a" });
  const b = node(
    (_s, ctx) => ({ log: [`b:${ctx.interrupt<string>({ question: "ok?" }, { key: "ok" })}`] }),
    { name: "b" },
  );
  const c = node(() => ({ log: ["c"] }), { name: "c" });
  return new Graph(State, { stateStore: store, interruptBefore: ["b"] }).flow(
    START.to(a),
    a.to(b),
    b.to(c),
    c.to(END),
  );
}

describeStores("breakpoints", (fx) => {
  it("pause, continue past it, a task interrupt, resume: each call cold", async () => {
    const first = await fx.open();
    const cold = async () => build(await fx.reopen(first));
    const r1 = await (await cold()).invoke({ log: ["in"] }, { threadId: "t" });
    expect([r1.status, r1.breakpoint, r1.state.log]).toEqual([
      "interrupted",
      { when: "before", step: 1, nodes: ["b"] },
      ["in", "a"],
    ]);
    expect(await (await cold()).getState("t")).toMatchObject({
      step: 1,
      next: ["b"],
      breakpoint: { when: "before", step: 1, nodes: ["b"] },
    });
    // Continuing past the breakpoint, b asks its question: the breakpoint is not met again.
    const r2 = await (await cold()).invoke(null, { threadId: "t" });
    expect([r2.status, r2.breakpoint, r2.interrupts.map((i) => i.key)]).toEqual([
      "interrupted",
      null,
      ["ok"],
    ]);
    expect((await (await cold()).getState("t")).breakpoint).toBeNull();
    const r3 = await (await cold()).invoke(null, { threadId: "t", resume: { ok: "yes" } });
    expect([r3.status, r3.state.log]).toEqual(["completed", ["in", "a", "b:yes", "c"]]);
  });

  it("a fork at the pause continues on its own; the same graph object gives the same answers", async () => {
    const store = await fx.open();
    const warm = build(store);
    await warm.invoke({}, { threadId: "t" });
    const pause = (await warm.history("t")).at(-1)!;
    expect(pause.type).toBe("run_finished");
    await warm.invoke(null, { threadId: "t" });
    await warm.invoke(null, { threadId: "t", resume: { ok: "main" } });
    const branch = await warm.fork("t", { eventId: pause.id, branchId: "edit" });
    const cold = build(await fx.reopen(store));
    expect((await cold.getState("t", { branchId: branch.branchId })).breakpoint).toEqual({
      when: "before",
      step: 1,
      nodes: ["b"],
    });
    await cold.invoke(null, { threadId: "t", branchId: "edit" });
    const r = await build(await fx.reopen(store)).invoke(null, {
      threadId: "t",
      branchId: "edit",
      resume: { ok: "fork" },
    });
    expect(r.state.log).toEqual(["a", "b:fork", "c"]);
    expect((await warm.getState("t")).state.log).toEqual(["a", "b:main", "c"]);
    expect((await warm.getState("t", { branchId: "edit" })).state.log).toEqual([
      "a",
      "b:fork",
      "c",
    ]);
  });
});
