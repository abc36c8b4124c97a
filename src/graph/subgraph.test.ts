import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { HumanMessage } from "../chat/messages.js";
import { GraphConfigError, GraphExecutionError, ValueError } from "../errors/index.js";
import { defineState, messagesField, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";
import { subgraph } from "./subgraph.js";
import type { StreamEvent } from "./types.js";

const Parent = defineState({
  messages: messagesField(),
  topic: z.string().default(""),
  summary: z.string().nullable().default(null),
  total: reducer(z.number().default(0), (a: number, b: number) => a + b),
});
type P = typeof Parent.State;
const Child = defineState({
  messages: messagesField(),
  topic: z.string().default(""),
  notes: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  total: reducer(z.number().default(0), (a: number, b: number) => a + b),
});
type C = typeof Child.State;

const childGraph = () => {
  const research = node(
    (s: C) => ({
      notes: [`about ${s.topic}`],
      messages: [HumanMessage({ content: `researched ${s.topic}` })],
    }),
    {
      name: "research",
    },
  );
  return new Graph(Child, { name: "child" }).flow(START.to(research), research.to(END));
};

describe("subgraph", () => {
  it("shares fields both ways", async () => {
    const sub = subgraph("child", childGraph(), {
      share: ["messages", "topic"],
      childThread: "fresh",
    });
    const g = new Graph(Parent).flow(START.to(sub), sub.to(END));
    const { state } = await g.invoke({ topic: "tides" });
    expect(state.messages.map((m) => m.content)).toEqual(["researched tides"]);
  });

  it("maps state in and out with functions", async () => {
    const sub = subgraph<P, C>("child", childGraph(), {
      stateIn: (p) => ({ topic: p.topic.toUpperCase() }),
      stateOut: (c) => ({ summary: c.notes.join(";") }),
      childThread: "fresh",
    });
    const g = new Graph(Parent).flow(START.to(sub), sub.to(END));
    expect((await g.invoke({ topic: "moon" })).state.summary).toBe("about MOON");
  });

  it("checks its options when it is built", async () => {
    const child = childGraph();
    const msg =
      'subgraph "s": give exactly one of stateIn with stateOut (two functions), or a non-empty share list';
    await expectError(() => subgraph("s", child, { childThread: "fresh" }), TypeError, msg);
    await expectError(
      () => subgraph("s", child, { share: [], childThread: "fresh" }),
      TypeError,
      msg,
    );
    await expectError(
      () =>
        subgraph("s", child, {
          share: ["topic"],
          stateIn: () => ({}),
          stateOut: () => ({}),
          childThread: "fresh",
        }),
      TypeError,
      msg,
    );
    await expectError(
      () => subgraph("s", child, { stateIn: () => ({}), childThread: "fresh" }),
      TypeError,
      msg,
    );
    await expectError(
      () => subgraph("s", child, { share: ["topic"], childThread: "sometimes" as never }),
      ValueError,
      'subgraph "s": childThread must be "fresh" or "stable", got "sometimes"',
    );
    await expectError(
      () => subgraph("s", child, { share: ["nope"], childThread: "fresh" }),
      GraphConfigError,
      'subgraph "s": the child graph "child" does not declare shared field "nope"',
    );
    const withStore = new Graph(Child, { name: "stored", stateStore: new MemoryStateStore() }).flow(
      ...childGraph().compiled.edges,
    );
    await expectError(
      () => subgraph("s", withStore, { share: ["topic"], childThread: "fresh" }),
      GraphConfigError,
      'subgraph "s": the child graph "stored" has a state store of its own; a child runs on its parent\'s store',
    );
  });

  it("checks the parent and the thread when it runs", async () => {
    const sub = subgraph("child", childGraph(), { share: ["notes"], childThread: "fresh" });
    const g = new Graph(Parent).flow(START.to(sub), sub.to(END));
    await expectError(
      () => g.invoke({}),
      GraphConfigError,
      'subgraph "child": the parent graph "graph" does not declare shared field "notes"',
    );
    const stable = subgraph("child", childGraph(), { share: ["topic"], childThread: "stable" });
    await expectError(
      () => new Graph(Parent).flow(START.to(stable), stable.to(END)).invoke({}),
      GraphConfigError,
      'subgraph "child": childThread "stable" needs the parent to run on a thread with a state store',
    );
    const badOut = subgraph("child", childGraph(), {
      stateIn: () => ({}),
      stateOut: () => [] as never,
      childThread: "fresh",
    });
    await expectError(
      () => new Graph(Parent).flow(START.to(badOut), badOut.to(END)).invoke({}),
      TypeError,
      'subgraph "child": stateOut must return a plain object (the parent\'s update), got an array',
    );
  });

  it("refuses a shared field with a custom reducer that the child changed", async () => {
    const add = node(() => ({ total: 5 }), { name: "add" });
    const child = new Graph(Child, { name: "child" }).flow(START.to(add), add.to(END));
    const sub = subgraph("child", child, { share: ["total"], childThread: "fresh" });
    await expectError(
      () => new Graph(Parent).flow(START.to(sub), sub.to(END)).invoke({}),
      GraphExecutionError,
      'subgraph "child": shared field "total" has a custom reducer and the child changed it; share only fields without a reducer (or messages), or use stateIn/stateOut',
    );
  });

  it("runs a fresh child on a new thread per call, and a stable child on one thread that keeps its state", async () => {
    const store = new MemoryStateStore();
    const count = node((s: C) => ({ notes: [`call ${s.notes.length + 1}`] }), { name: "count" });
    const child = new Graph(Child, { name: "child" }).flow(START.to(count), count.to(END));
    const stable = subgraph<P, C>("memo", child, {
      stateIn: () => ({}),
      stateOut: (c) => ({ summary: c.notes.join(",") }),
      childThread: "stable",
    });
    const g = new Graph(Parent, { stateStore: store }).flow(START.to(stable), stable.to(END));
    await g.invoke({}, { threadId: "p" });
    expect((await g.invoke({}, { threadId: "p" })).state.summary).toBe("call 1,call 2");
    const fresh = subgraph<P, C>("memo", child, {
      stateIn: () => ({}),
      stateOut: (c) => ({ summary: c.notes.join(",") }),
      childThread: "fresh",
    });
    const g2 = new Graph(Parent, { stateStore: store }).flow(START.to(fresh), fresh.to(END));
    await g2.invoke({}, { threadId: "q" });
    expect((await g2.invoke({}, { threadId: "q" })).state.summary).toBe("call 1");
    const threads = (await store.listThreads()).map((t) => t.threadId).sort();
    expect(threads.filter((t) => t.startsWith("p"))).toEqual(["p", "p:memo"]);
    expect(
      threads.filter((t) => t.startsWith("q:memo:")).map((t) => /^q:memo:[0-9a-f]{12}$/.test(t)),
    ).toEqual([true, true]);
  });

  it("pauses the parent under <task id>/<child key> and resumes the child where it paused", async () => {
    const store = new MemoryStateStore();
    let before = 0;
    const prepare = node(
      () => {
        before++;
        return { notes: ["prepared"] };
      },
      { name: "prepare" },
    );
    const ask = node(
      (s: C, ctx) => ({ notes: [`approved=${ctx.interrupt({ q: s.topic }, { key: "ok" })}`] }),
      { name: "ask" },
    );
    const child = new Graph(Child, { name: "child" }).flow(
      START.to(prepare),
      prepare.to(ask),
      ask.to(END),
    );
    const sub = subgraph<P, C>("review", child, {
      stateIn: (p) => ({ topic: p.topic }),
      stateOut: (c) => ({ summary: c.notes.join(" ") }),
      childThread: "fresh",
    });
    const g = new Graph(Parent, { stateStore: store }).flow(START.to(sub), sub.to(END));
    const paused = await g.invoke({ topic: "refund" }, { threadId: "t" });
    expect(paused.status).toBe("interrupted");
    expect(paused.interrupts).toEqual([
      { key: "0:0/ok", value: { q: "refund" }, node: "review", taskId: "0:0" },
    ]);
    const done = await g.invoke(null, { threadId: "t", resume: { "0:0/ok": "yes" } });
    expect(done.state.summary).toBe("prepared approved=yes");
    expect(before).toBe(1);
  });

  it("passes the child's events on to the parent's stream with the child's name", async () => {
    const sub = subgraph("child", childGraph(), { share: ["topic"], childThread: "fresh" });
    const after = node(() => ({ summary: "done" }), { name: "after" });
    const g = new Graph(Parent).flow(START.to(sub), sub.to(after), after.to(END));
    const events: StreamEvent[] = [];
    for await (const e of g.stream({ topic: "x" }, { modes: ["updates"] })) events.push(e);
    expect(events.map((e) => [e.node, e.step, e.taskId])).toEqual([
      ["child/research", 0, "0:0/0:0"],
      ["child", 0, "0:0"],
      ["after", 1, "1:0"],
    ]);
  });
});
