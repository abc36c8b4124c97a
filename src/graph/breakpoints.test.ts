import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { ValueError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";
import { fromSpec, refResolver } from "./from-spec.js";
import { Graph, type GraphOptions } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

const step = (name: string) => node(() => ({ log: [name] }), { name });

function chain(store: StateStore, options: GraphOptions = {}) {
  const a = step("a");
  const b = step("b");
  const c = step("c");
  return new Graph(State, { stateStore: store, ...options }).flow(
    START.to(a),
    a.to(b),
    b.to(c),
    c.to(END),
  );
}

describe("breakpoints: interruptBefore / interruptAfter", () => {
  it("pauses before a node (graph option), shows the breakpoint, and continues past it", async () => {
    const store = new MemoryStateStore();
    const g = chain(store, { interruptBefore: ["b"] });
    const r = await g.invoke({ log: ["in"] }, { threadId: "t" });
    expect(r.status).toBe("interrupted");
    expect(r.state).toEqual({ log: ["in", "a"] });
    expect(r.interrupts).toEqual([]);
    expect(r.breakpoint).toEqual({ when: "before", step: 1, nodes: ["b"] });
    const s = await g.getState("t");
    expect(s).toMatchObject({
      state: { log: ["in", "a"] },
      step: 1,
      next: ["b"],
      interrupts: [],
      status: "interrupted",
      breakpoint: { when: "before", step: 1, nodes: ["b"] },
    });
    const last = (await g.history("t")).at(-1)!;
    expect([last.type, last.step, last.data]).toEqual([
      "run_finished",
      1,
      {
        status: "interrupted",
        interrupts: [],
        breakpoint: { when: "before", step: 1, nodes: ["b"] },
      },
    ]);
    const done = await g.invoke(null, { threadId: "t" });
    expect(done.status).toBe("completed");
    expect(done.breakpoint).toBeNull();
    expect(done.state).toEqual({ log: ["in", "a", "b", "c"] });
    expect((await g.getState("t")).breakpoint).toBeNull();
  });

  it("pauses after a node, before the next superstep; a run option replaces the graph's", async () => {
    const store = new MemoryStateStore();
    const g = chain(store, { interruptBefore: ["c"] });
    const r = await g.invoke({}, { threadId: "t", interruptBefore: [], interruptAfter: ["a"] });
    expect(r.breakpoint).toEqual({ when: "after", step: 1, nodes: ["a"] });
    expect(r.state).toEqual({ log: ["a"] });
    expect((await g.getState("t")).next).toEqual(["b"]);
    // Continuing under the graph's own breakpoints: past "after a", then paused before c.
    const r2 = await g.invoke(null, { threadId: "t" });
    expect(r2.breakpoint).toEqual({ when: "before", step: 2, nodes: ["c"] });
    expect(r2.state).toEqual({ log: ["a", "b"] });
    const r3 = await g.invoke(null, { threadId: "t" });
    expect([r3.status, r3.state.log]).toEqual(["completed", ["a", "b", "c"]]);
  });

  it('"*" pauses at every superstep; a pause after the last one does not happen', async () => {
    const store = new MemoryStateStore();
    const g = chain(store, { interruptAfter: "*" });
    const seen: unknown[] = [];
    let r = await g.invoke({}, { threadId: "t" });
    while (r.status === "interrupted") {
      seen.push(r.breakpoint);
      r = await g.invoke(null, { threadId: "t" });
    }
    expect(seen).toEqual([
      { when: "after", step: 1, nodes: ["a"] },
      { when: "after", step: 2, nodes: ["b"] },
    ]);
    expect(r.state).toEqual({ log: ["a", "b", "c"] });
  });

  it("a pause before a node and a pause after the node before it are one pause", async () => {
    const g = chain(new MemoryStateStore(), { interruptAfter: ["a"], interruptBefore: ["b"] });
    const r = await g.invoke({}, { threadId: "t" });
    expect(r.breakpoint).toEqual({ when: "after", step: 1, nodes: ["a"] });
    const r2 = await g.invoke(null, { threadId: "t" });
    expect([r2.status, r2.state.log]).toEqual(["completed", ["a", "b", "c"]]);
  });

  it("names each matching node of a fan-out once, in task order", async () => {
    const a = step("a");
    const b = step("b");
    const c = step("c");
    const g = new Graph(State, { stateStore: new MemoryStateStore(), interruptBefore: "*" }).flow(
      START.to([b, a, c]),
      a.to(END),
      b.to(END),
      c.to(END),
    );
    const r = await g.invoke({}, { threadId: "t" });
    expect(r.breakpoint).toEqual({ when: "before", step: 0, nodes: ["b", "a", "c"] });
    expect(r.state).toEqual({ log: [] });
    expect((await g.invoke(null, { threadId: "t" })).state).toEqual({ log: ["b", "a", "c"] });
  });

  it("new input on a paused thread starts over and meets the breakpoint again", async () => {
    const g = chain(new MemoryStateStore(), { interruptBefore: ["b"] });
    await g.invoke({}, { threadId: "t" });
    const r = await g.invoke({ log: ["again"] }, { threadId: "t" });
    expect(r.breakpoint).toEqual({ when: "before", step: 2, nodes: ["b"] });
    expect(r.state).toEqual({ log: ["a", "again", "a"] });
  });

  it("streams the pause as the last updates event", async () => {
    const g = chain(new MemoryStateStore(), { interruptBefore: ["b"] });
    const events = [];
    for await (const e of g.stream({}, { threadId: "t" })) events.push(e);
    expect(events).toEqual([
      { mode: "updates", node: "a", step: 0, taskId: "0:0", data: { log: ["a"] } },
      {
        mode: "updates",
        node: null,
        step: -1,
        taskId: null,
        data: { __interrupt__: [], __breakpoint__: { when: "before", step: 1, nodes: ["b"] } },
      },
    ]);
  });

  it("refuses unknown node names, bad lists and a run without a thread", async () => {
    const store = new MemoryStateStore();
    await expectError(
      () => chain(store, { interruptBefore: ["nope"] }).invoke({}, { threadId: "t" }),
      ValueError,
      'Graph "graph": interruptBefore names node "nope", which is not in the flow; known nodes: a, b, c',
    );
    await expectError(
      () => chain(store).invoke({}, { threadId: "t", interruptAfter: ["a", "zz"] }),
      ValueError,
      'Graph "graph": interruptAfter names node "zz", which is not in the flow; known nodes: a, b, c',
    );
    await expectError(
      () => chain(store, { interruptBefore: "b" as unknown as string[] }),
      TypeError,
      'Graph "graph": interruptBefore must be "*" or a list of node names, got string',
    );
    await expectError(
      () => chain(store).invoke({}, { interruptAfter: [1 as unknown as string] }),
      TypeError,
      'Graph "graph": interruptAfter must be "*" or a list of node names, got a list with a non-string item',
    );
    await expectError(
      () => chain(store, { interruptBefore: ["b"] }).invoke({}),
      ValueError,
      'Graph "graph": interruptBefore / interruptAfter pause a thread, and a run without a threadId has none to continue; run with a threadId (and a state store)',
    );
    expect(await store.listThreads()).toEqual([]);
  });

  it("specs and diagrams show the graph's breakpoints; fromSpec keeps them", async () => {
    const a = node(() => ({ log: ["a"] }), { name: "a", ref: "./m.js#a" });
    const b = node(() => ({ log: ["b"] }), { name: "b", ref: "./m.js#b" });
    const g = new Graph(State, { interruptBefore: ["b"], interruptAfter: "*" }).flow(
      START.to(a),
      a.to(b),
      b.to(END),
    );
    const spec = g.toSpec();
    expect([spec.interruptBefore, spec.interruptAfter]).toEqual([["b"], "*"]);
    expect(g.toMermaid()).toBe(
      [
        "flowchart TD",
        "  __start__([START])",
        '  n0["a (pause after)"]',
        '  n1["b (pause before, after)"]',
        "  __end__([END])",
        "  __start__ --> n0",
        "  n0 --> n1",
        "  n1 --> __end__",
      ].join("\n"),
    );
    const back = await fromSpec(JSON.parse(JSON.stringify(spec)), {
      state: State,
      resolve: refResolver({ "./m.js": { a, b } }),
    });
    expect([back.interruptBefore, back.interruptAfter]).toEqual([["b"], "*"]);
    expect(back.toSpec()).toEqual(spec);
    expect("interruptBefore" in new Graph(State).flow(START.to(a), a.to(END)).toSpec()).toBe(false);
  });
});
