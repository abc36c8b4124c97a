import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Graph } from "../graph/graph.js";
import { node, START } from "../graph/node.js";
import { END, when } from "../graph/routing.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { historyLine } from "./format.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  ok: z.boolean().default(false),
});
type S = typeof State.State;

describe("historyLine", () => {
  it("summarizes state_updated events: the update, and the next nodes or that next is unchanged", async () => {
    const a = node((s: S) => ({ log: [`a:${s.ok}`] }), { name: "a" });
    const b = node(() => ({ log: ["b"] }), { name: "b" });
    const c = node(() => ({ log: ["c"] }), { name: "c" });
    const g = new Graph(State, { stateStore: new MemoryStateStore(), interruptAfter: ["a"] }).flow(
      START.to(a),
      a.to(when((s: S) => s.ok, b, { otherwise: c })),
      b.to(END),
      c.to(END),
    );
    await g.invoke({}, { threadId: "t" });
    await g.updateState("t", { ok: true });
    await g.updateState("t", { log: ["again"] }, { asNode: "a" });
    await g.updateState("t", {}, { asNode: "b" });
    const lines = (await g.history("t")).filter((e) => e.type === "state_updated").map(historyLine);
    expect(lines).toEqual([
      't/main/4  state_updated step 1  update {"ok":true}, next unchanged',
      't/main/5  state_updated a step 1  update {"log":["again"]}, next: b',
      "t/main/6  state_updated b step 2  no update, next: (none)",
    ]);
  });
});
