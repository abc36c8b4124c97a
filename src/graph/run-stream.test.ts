import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";
import { isInterruptEvent } from "./run-stream.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

describe("isInterruptEvent", () => {
  it("finds the event a paused run's updates stream ends with, and only that one", async () => {
    const ask = node(
      (_s, ctx) => ({
        log: [`answer ${ctx.interrupt<string>({ q: "which?" }, { key: "which" })}`],
      }),
      { name: "ask" },
    );
    // A node whose own update looks like the interrupt event is not it (its node is not null).
    const lookalike = node(() => ({ log: ["x"] }), { name: "lookalike" });
    const g = new Graph(State, { stateStore: new MemoryStateStore() }).flow(
      START.to(lookalike),
      lookalike.to(ask),
      ask.to(END),
    );
    const events = [];
    for await (const e of g.stream({ log: [] }, { threadId: "t", modes: ["updates", "values"] })) {
      events.push(e);
    }
    const found = events.filter(isInterruptEvent);
    expect(found).toEqual([
      {
        mode: "updates",
        node: null,
        step: -1,
        taskId: null,
        data: {
          __interrupt__: [{ key: "which", value: { q: "which?" }, node: "ask", taskId: "1:0" }],
        },
      },
    ]);
    expect(found[0]!.data.__interrupt__.map((i) => i.key)).toEqual(["which"]);
    expect(events.filter((e) => !isInterruptEvent(e)).map((e) => [e.mode, e.node])).toEqual([
      ["updates", "lookalike"],
      ["values", null],
    ]);
    expect(isInterruptEvent({ mode: "updates", node: null, data: { __interrupt__: "no" } })).toBe(
      false,
    );
    expect(isInterruptEvent({ mode: "custom", node: null, data: { __interrupt__: [] } })).toBe(
      false,
    );
  });

  it("at a static breakpoint: no interrupts, the breakpoint under __breakpoint__", async () => {
    const a = node(() => ({ log: ["a"] }), { name: "a" });
    const b = node(() => ({ log: ["b"] }), { name: "b" });
    const g = new Graph(State, {
      stateStore: new MemoryStateStore(),
      interruptBefore: ["b"],
    }).flow(START.to(a), a.to(b), b.to(END));
    const last = [];
    for await (const e of g.stream({ log: [] }, { threadId: "t", modes: ["updates"] })) {
      if (isInterruptEvent(e)) last.push(e.data);
    }
    expect(last).toEqual([
      { __interrupt__: [], __breakpoint__: { when: "before", step: 1, nodes: ["b"] } },
    ]);
  });
});
