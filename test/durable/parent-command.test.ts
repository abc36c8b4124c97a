/**
 * `Command.PARENT` across a pause, on every store: the child asks, the thread is continued by
 * new graph objects on a reopened store, and the child's answer routes the parent.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { Command, END, Graph, node, START, subgraph } from "../../src/graph/index.js";
import { defineState, reducer } from "../../src/state/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { describeStores } from "./stores.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  owner: z.string().default(""),
});
type S = typeof State.State;

function makeParent(store: StateStore, childThread: "fresh" | "stable"): Graph<typeof State> {
  const triage = node(
    (_s: S, ctx) => {
      const who = String(ctx.interrupt("who takes it?", { key: "who" }));
      return new Command({ graph: Command.PARENT, update: { owner: who }, goto: who });
    },
    { name: "triage" },
  );
  const never = node(() => ({ log: ["never"] }), { name: "never" });
  const desk = new Graph(State, { name: "desk" }).flow(
    START.to(triage),
    triage.to(never),
    never.to(END),
  );
  const sub = subgraph("desk", desk, { share: ["log"], childThread });
  const mark = (name: string) => node((s: S) => ({ log: [`${name}:${s.owner}`] }), { name });
  const [billing, support] = [mark("billing"), mark("support")];
  return new Graph(State, { name: "front", stateStore: store }).flow(
    START.to(sub),
    sub.to(support),
    support.to(END),
    billing.to(END),
  );
}

describeStores("Command.PARENT across a pause", (fx) => {
  for (const childThread of ["fresh", "stable"] as const) {
    it(`a new graph on a reopened store routes the parent with the child's answer (${childThread})`, async () => {
      const store = await fx.open();
      const first = await makeParent(store, childThread).invoke({}, { threadId: "t" });
      expect([first.status, first.interrupts.map((i) => i.key)]).toEqual([
        "interrupted",
        ["0:0/who"],
      ]);
      const reopened = await fx.reopen(store);
      const done = await makeParent(reopened, childThread).invoke(null, {
        threadId: "t",
        resume: { "0:0/who": "billing" },
      });
      expect(done.state).toEqual({ log: ["billing:billing"], owner: "billing" });
      const again = await makeParent(await fx.reopen(store), childThread).getState("t");
      expect([again.status, again.next, again.state]).toEqual(["completed", [], done.state]);
    });
  }

  it("a fork from before the answer can route the parent elsewhere", async () => {
    const store = await fx.open();
    const g = makeParent(store, "fresh");
    const first = await g.invoke({}, { threadId: "t" });
    expect(first.status).toBe("interrupted");
    const paused = (await g.getState("t")).lastEventId!;
    await g.invoke(null, { threadId: "t", resume: { "0:0/who": "billing" } });
    await g.fork("t", { eventId: paused, branchId: "b" });
    const other = await makeParent(await fx.reopen(store), "fresh").invoke(null, {
      threadId: "t",
      branchId: "b",
      resume: { "0:0/who": "support" },
    });
    expect(other.state).toEqual({ log: ["support:support"], owner: "support" });
    expect((await makeParent(store, "fresh").getState("t")).state.owner).toBe("billing");
  });
});
