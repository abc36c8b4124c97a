/**
 * The "tasks", "checkpoints" and "debug" stream modes: exact event sequences for a small
 * graph on a thread, a parallel superstep, a subgraph (names "<name>/<node>"), an interrupt
 * with a cold resume (a new graph on a reopened SQLite file), failures, onError and the cache.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { ValueError } from "../errors/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";
import type { StreamMode } from "./context.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END, Send } from "./routing.js";
import type { CheckpointData, DebugEventData, TaskEventData } from "./stream-modes.js";
import { subgraph } from "./subgraph.js";
import type { StreamEvent, StreamEventOf } from "./types.js";

const Text = defineState({ text: z.string().default(""), words: z.number().default(0) });
type T = typeof Text.State;

const Log = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type L = typeof Log.State;

const dir = mkdtempSync(join(tmpdir(), "nodestep-modes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect<E>(events: AsyncIterable<E>): Promise<E[]> {
  const out: E[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** shout → count → END */
function textGraph(store: StateStore | null = null) {
  const shout = node((s: T) => ({ text: s.text.toUpperCase() }), { name: "shout" });
  const count = node((s: T) => ({ words: s.text.split(" ").length }), { name: "count" });
  return new Graph(Text, { stateStore: store }).flow(
    START.to(shout),
    shout.to(count),
    count.to(END),
  );
}

const result = (update: Record<string, unknown> | null, more: Partial<TaskEventData> = {}) => ({
  kind: "result",
  update,
  routes: null,
  interrupts: [],
  error: null,
  cached: false,
  ...more,
});

describe('stream mode "tasks" and "checkpoints"', () => {
  it("a small graph on a thread: each task's start and result, each commit with its stored event", async () => {
    const g = textGraph(new MemoryStateStore());
    const events = await collect(
      g.stream({ text: "hi there" }, { threadId: "t", modes: ["tasks", "checkpoints"] }),
    );
    expect(events).toEqual([
      {
        mode: "tasks",
        node: "shout",
        step: 0,
        taskId: "0:0",
        data: { kind: "start", input: { text: "hi there", words: 0 }, payload: null },
      },
      { mode: "tasks", node: "shout", step: 0, taskId: "0:0", data: result({ text: "HI THERE" }) },
      {
        mode: "checkpoints",
        node: null,
        step: 0,
        taskId: null,
        data: {
          threadId: "t",
          branchId: "main",
          eventId: "t/main/2",
          values: { text: "HI THERE", words: 0 },
          next: ["count"],
          tasks: [{ id: "1:0", name: "count", payload: null }],
        },
      },
      {
        mode: "tasks",
        node: "count",
        step: 1,
        taskId: "1:0",
        data: { kind: "start", input: { text: "HI THERE", words: 0 }, payload: null },
      },
      { mode: "tasks", node: "count", step: 1, taskId: "1:0", data: result({ words: 2 }) },
      {
        mode: "checkpoints",
        node: null,
        step: 1,
        taskId: null,
        data: {
          threadId: "t",
          branchId: "main",
          eventId: "t/main/3",
          values: { text: "HI THERE", words: 2 },
          next: [],
          tasks: [],
        },
      },
    ]);
    // Each checkpoint's eventId is its step_committed, and the state as of it is its values.
    const commits = (await g.history("t")).filter((e) => e.type === "step_committed");
    expect(commits.map((e) => e.id)).toEqual(["t/main/2", "t/main/3"]);
    const asOf = await g.getState("t", { eventId: "t/main/2" });
    expect([asOf.state, asOf.next]).toEqual([{ text: "HI THERE", words: 0 }, ["count"]]);
  });

  it("types each mode's data", async () => {
    const g = textGraph();
    for await (const e of g.stream({ text: "a" }, { modes: ["tasks", "checkpoints", "debug"] })) {
      if (e.mode === "tasks") expectTypeOf(e.data).toEqualTypeOf<TaskEventData>();
      if (e.mode === "checkpoints") {
        expectTypeOf(e.data).toEqualTypeOf<CheckpointData<T>>();
        expectTypeOf(e.data.values.words).toEqualTypeOf<number>();
      }
      if (e.mode === "debug") expectTypeOf(e.data).toEqualTypeOf<DebugEventData<T>>();
    }
    expectTypeOf<
      Extract<StreamEventOf<T>, { mode: "tasks" }>["data"]
    >().toEqualTypeOf<TaskEventData>();
  });

  it("a parallel superstep: every start, results in the order the tasks finish, one commit in task order", async () => {
    const fan = node(() => ({ log: ["fan"] }), { name: "fan" });
    const slow = node(
      async () => {
        await new Promise((r) => setTimeout(r, 30));
        return { log: ["slow"] };
      },
      { name: "slow" },
    );
    const fast = node(async () => ({ log: ["fast"] }), { name: "fast" });
    const g = new Graph(Log).flow(START.to(fan), fan.to([slow, fast]), slow.to(END), fast.to(END));
    const events = await collect(g.stream({}, { modes: ["tasks", "checkpoints"] }));
    expect(
      events.map((e) => [
        e.mode,
        e.node,
        e.taskId,
        e.mode === "tasks" ? e.data.kind : (e.data as CheckpointData<L>).values.log.join(","),
      ]),
    ).toEqual([
      ["tasks", "fan", "0:0", "start"],
      ["tasks", "fan", "0:0", "result"],
      ["checkpoints", null, null, "fan"],
      ["tasks", "slow", "1:0", "start"],
      ["tasks", "fast", "1:1", "start"],
      ["tasks", "fast", "1:1", "result"],
      ["tasks", "slow", "1:0", "result"],
      ["checkpoints", null, null, "fan,slow,fast"],
    ]);
    expect(events[2]?.data).toEqual({
      threadId: null,
      branchId: "main",
      eventId: null,
      values: { log: ["fan"] },
      next: ["slow", "fast"],
      tasks: [
        { id: "1:0", name: "slow", payload: null },
        { id: "1:1", name: "fast", payload: null },
      ],
    });
    expect(events[5]?.data).toEqual(result({ log: ["fast"] }));
  });

  it("a subgraph's events are named <name>/<node> in every mode, its commits carry the child's thread", async () => {
    const x = node(() => ({ log: ["x"] }), { name: "x" });
    const y = node(() => ({ log: ["y"] }), { name: "y" });
    const child = new Graph(Log, { name: "child" }).flow(START.to(x), x.to(y), y.to(END));
    const sub = subgraph("sub", child, {
      stateIn: () => ({}),
      stateOut: (c: L) => ({ log: c.log }),
      childThread: "stable",
    });
    const g = new Graph(Log, { name: "parent", stateStore: new MemoryStateStore() }).flow(
      START.to(sub),
      sub.to(END),
    );
    const events = await collect(
      g.stream({ log: ["in"] }, { threadId: "p", modes: ["tasks", "checkpoints", "updates"] }),
    );
    expect(events.map((e) => [e.mode, e.node, e.step, e.taskId])).toEqual([
      ["tasks", "sub", 0, "0:0"],
      ["tasks", "sub/x", 0, "0:0/0:0"],
      ["tasks", "sub/x", 0, "0:0/0:0"],
      ["updates", "sub/x", 0, "0:0/0:0"],
      ["checkpoints", "sub", 0, "0:0"],
      ["tasks", "sub/y", 0, "0:0/1:0"],
      ["tasks", "sub/y", 0, "0:0/1:0"],
      ["updates", "sub/y", 0, "0:0/1:0"],
      ["checkpoints", "sub", 0, "0:0"],
      ["tasks", "sub", 0, "0:0"],
      ["updates", "sub", 0, "0:0"],
      ["checkpoints", null, 0, null],
    ]);
    expect(events[1]?.data).toEqual({ kind: "start", input: { log: [] }, payload: null });
    expect(events[4]?.data).toEqual({
      threadId: "p:sub",
      branchId: "main",
      eventId: "p:sub/main/2",
      values: { log: ["x"] },
      next: ["y"],
      tasks: [{ id: "1:0", name: "y", payload: null }],
    });
    expect(events[9]?.data).toEqual(result({ log: ["x", "y"] }));
    expect(events[11]?.data).toEqual({
      threadId: "p",
      branchId: "main",
      // run_started, the stable call's task_cache (where its child was before it), step_committed
      eventId: "p/main/3",
      values: { log: ["in", "x", "y"] },
      next: [],
      tasks: [],
    });
    // The child's commit is the child thread's stored event.
    const childCommits = (await child.getState("p:sub", { stateStore: g.stateStore! })).lastEventId;
    expect(childCommits).toBe("p:sub/main/4");
  });

  it("an interrupt: the paused task's result has its interrupts, then the pause's checkpoint; a cold resume goes on from the stored events", async () => {
    const file = join(dir, "interrupt.db");
    const make = (store: StateStore) => {
      const a = node(() => ({ log: ["a"] }), { name: "a" });
      const ask = node((_s: L, ctx) => ({ log: [ctx.interrupt<string>("go?", { key: "go" })] }), {
        name: "ask",
      });
      const after = node(() => ({ log: ["after"] }), { name: "after" });
      return new Graph(Log, { stateStore: store }).flow(
        START.to([a, ask]),
        a.to(END),
        ask.to(after),
        after.to(END),
      );
    };
    const modes: StreamMode[] = ["tasks", "checkpoints"];
    const first = new SqliteStateStore({ path: file });
    const paused = await collect(make(first).stream({}, { threadId: "t", modes }));
    await first.close();
    expect(paused).toEqual([
      {
        mode: "tasks",
        node: "a",
        step: 0,
        taskId: "0:0",
        data: { kind: "start", input: { log: [] }, payload: null },
      },
      { mode: "tasks", node: "a", step: 0, taskId: "0:0", data: result({ log: ["a"] }) },
      {
        mode: "tasks",
        node: "ask",
        step: 0,
        taskId: "0:1",
        data: { kind: "start", input: { log: [] }, payload: null },
      },
      {
        mode: "tasks",
        node: "ask",
        step: 0,
        taskId: "0:1",
        data: result(null, { interrupts: [{ key: "go", value: "go?" }] }),
      },
      {
        mode: "checkpoints",
        node: null,
        step: 0,
        taskId: null,
        data: {
          threadId: "t",
          branchId: "main",
          eventId: "t/main/4",
          values: { log: [] },
          next: ["a", "ask"],
          tasks: [
            { id: "0:0", name: "a", payload: null, interrupts: [] },
            { id: "0:1", name: "ask", payload: null, interrupts: [{ key: "go", value: "go?" }] },
          ],
        },
      },
    ]);

    // A new process: a new graph object on a new handle of the file.
    const second = new SqliteStateStore({ path: file });
    const g = make(second);
    // The pause's eventId is the stored end of the paused run: getState there shows the pause.
    const atPause = await g.getState("t", { eventId: "t/main/4" });
    expect([atPause.step, atPause.next, atPause.interrupts, atPause.state]).toEqual([
      0,
      ["a", "ask"],
      [{ key: "go", value: "go?", node: "ask", taskId: "0:1" }],
      { log: [] },
    ]);
    expect((await g.history("t")).at(-1)).toMatchObject({ id: "t/main/4", type: "run_finished" });
    const resumed = await collect(g.stream(null, { threadId: "t", resume: { go: "yes" }, modes }));
    const commits = (await g.history("t")).filter((e) => e.type === "step_committed");
    await second.close();
    // "a" finished before the pause: it does not run again, so it has no events.
    expect(resumed).toEqual([
      {
        mode: "tasks",
        node: "ask",
        step: 0,
        taskId: "0:1",
        data: { kind: "start", input: { log: [] }, payload: null },
      },
      { mode: "tasks", node: "ask", step: 0, taskId: "0:1", data: result({ log: ["yes"] }) },
      {
        mode: "checkpoints",
        node: null,
        step: 0,
        taskId: null,
        data: {
          threadId: "t",
          branchId: "main",
          eventId: commits[0]!.id,
          values: { log: ["a", "yes"] },
          next: ["after"],
          tasks: [{ id: "1:0", name: "after", payload: null }],
        },
      },
      {
        mode: "tasks",
        node: "after",
        step: 1,
        taskId: "1:0",
        data: { kind: "start", input: { log: ["a", "yes"] }, payload: null },
      },
      { mode: "tasks", node: "after", step: 1, taskId: "1:0", data: result({ log: ["after"] }) },
      {
        mode: "checkpoints",
        node: null,
        step: 1,
        taskId: null,
        data: {
          threadId: "t",
          branchId: "main",
          eventId: commits[1]!.id,
          values: { log: ["a", "yes", "after"] },
          next: [],
          tasks: [],
        },
      },
    ]);
    expect(commits.map((e) => e.step)).toEqual([0, 1]);
  });

  it("a failed task: its result has the error, then the stream throws it; onError's result keeps the error it handled", async () => {
    const boom = node(
      () => {
        throw new RangeError("boom");
      },
      { name: "boom" },
    );
    const failing = new Graph(Log).flow(START.to(boom), boom.to(END));
    const seen: StreamEvent[] = [];
    await expectError(
      async () => {
        for await (const e of failing.stream({}, { modes: ["tasks"] })) seen.push(e);
      },
      RangeError,
      "boom",
    );
    expect(seen.map((e) => e.data)).toEqual([
      { kind: "start", input: { log: [] }, payload: null },
      result(null, { error: { name: "RangeError", message: "boom" } }),
    ]);

    // In a parallel superstep, the first failure is the one reported.
    const slow = node(
      async () => {
        await new Promise((r) => setTimeout(r, 20));
        return { log: ["slow"] };
      },
      { name: "slow" },
    );
    const both = new Graph(Log).flow(START.to([slow, boom]), slow.to(END), boom.to(END));
    const seen2: StreamEvent[] = [];
    await expectError(
      async () => {
        for await (const e of both.stream({}, { modes: ["tasks"] })) seen2.push(e);
      },
      RangeError,
      "boom",
    );
    expect(seen2.map((e) => [e.node, (e.data as TaskEventData).kind])).toEqual([
      ["slow", "start"],
      ["boom", "start"],
      ["boom", "result"],
    ]);

    const handled = node(
      () => {
        throw new Error("flaky");
      },
      { name: "handled", onError: (e) => ({ log: [`handled ${e.message}`] }) },
    );
    const g = new Graph(Log).flow(START.to(handled), handled.to(END));
    const events = await collect(g.stream({}, { modes: ["tasks"] }));
    expect(events[1]?.data).toEqual(
      result({ log: ["handled flaky"] }, { error: { name: "Error", message: "flaky" } }),
    );
  });

  it("a result from the node cache says so; a Send's payload is in the start event", async () => {
    let calls = 0;
    const cachedNode = node(
      () => {
        calls++;
        return { log: ["computed"] };
      },
      { name: "cachedNode", cache: {} },
    );
    const g = new Graph(Log).flow(START.to(cachedNode), cachedNode.to(END));
    await g.invoke({});
    const events = await collect(g.stream({}, { modes: ["tasks"] }));
    expect(calls).toBe(1);
    expect(events[1]?.data).toEqual(result({ log: ["computed"] }, { cached: true }));

    const item = node((s: L) => ({ log: [`got ${s.log.join(",")}`] }), { name: "item" });
    const fan = node(() => [new Send("item", { log: ["one"] })], { name: "fan", goto: [item] });
    const sends = new Graph(Log).flow(START.to(fan), item.to(END));
    const sent = await collect(sends.stream({}, { modes: ["tasks"] }));
    expect(sent.map((e) => [e.node, e.taskId, e.data])).toEqual([
      ["fan", "0:0", { kind: "start", input: { log: [] }, payload: null }],
      ["fan", "0:0", result({}, { routes: [{ name: "item", payload: { log: ["one"] } }] })],
      ["item", "1:0", { kind: "start", input: { log: ["one"] }, payload: { log: ["one"] } }],
      ["item", "1:0", result({ log: ["got one"] })],
    ]);
  });

  it("with maxConcurrency, a task starts (and says so) when a slot frees", async () => {
    const wait = (name: string, ms: number) =>
      node(
        async () => {
          await new Promise((r) => setTimeout(r, ms));
          return { log: [name] };
        },
        { name },
      );
    const [a, b, c] = [wait("a", 200), wait("b", 5), wait("c", 1)];
    const g = new Graph(Log).flow(START.to([a, b, c]), a.to(END), b.to(END), c.to(END));
    const events = await collect(g.stream({}, { modes: ["tasks"], maxConcurrency: 2 }));
    expect(events.map((e) => `${(e.data as TaskEventData).kind} ${e.node}`)).toEqual([
      "start a",
      "start b",
      // b's slot starts c before b's result is sent.
      "start c",
      "result b",
      "result c",
      "result a",
    ]);
  });

  it("a subgraph's cached results keep cached: true in its updates events", async () => {
    const x = node(() => ({ log: ["x"] }), { name: "x", cache: {} });
    const child = new Graph(Log, { name: "child" }).flow(START.to(x), x.to(END));
    const sub = subgraph("sub", child, {
      stateIn: () => ({}),
      stateOut: (c: L) => ({ log: c.log }),
      childThread: "fresh",
    });
    const g = new Graph(Log).flow(START.to(sub), sub.to(END));
    await g.invoke({});
    const events = await collect(g.stream({}, { modes: ["updates"] }));
    expect(events).toEqual([
      {
        mode: "updates",
        node: "sub/x",
        step: 0,
        taskId: "0:0/0:0",
        data: { log: ["x"] },
        cached: true,
      },
      { mode: "updates", node: "sub", step: 0, taskId: "0:0", data: { log: ["x"] } },
    ]);
  });

  it("unknown modes are refused with the list of modes", () => {
    expect(() => textGraph().stream({}, { modes: ["everything" as StreamMode] })).toThrow(
      new ValueError(
        'Unknown stream mode "everything"; use "values", "updates", "custom", "tokens", "messages", "tasks", "checkpoints" or "debug"',
      ),
    );
  });
});

describe('stream mode "debug"', () => {
  it("wraps task starts, results and commits with their type, step and time; a subgraph's keep the child's step", async () => {
    const x = node(() => ({ log: ["x"] }), { name: "x" });
    const y = node(() => ({ log: ["y"] }), { name: "y" });
    const child = new Graph(Log, { name: "child" }).flow(START.to(x), x.to(y), y.to(END));
    const sub = subgraph("sub", child, {
      stateIn: () => ({}),
      stateOut: (c: L) => ({ log: c.log }),
      childThread: "fresh",
    });
    const g = new Graph(Log).flow(START.to(sub), sub.to(END));
    const before = Date.now();
    const events = await collect(g.stream({}, { modes: ["debug"] }));
    const after = Date.now();
    expect(
      events.map((e) => {
        const d = e.data as DebugEventData;
        return [e.mode, e.node, e.step, e.taskId, d.type, d.step];
      }),
    ).toEqual([
      ["debug", "sub", 0, "0:0", "task", 0],
      ["debug", "sub/x", 0, "0:0/0:0", "task", 0],
      ["debug", "sub/x", 0, "0:0/0:0", "task_result", 0],
      ["debug", "sub", 0, "0:0", "checkpoint", 0],
      ["debug", "sub/y", 0, "0:0/1:0", "task", 1],
      ["debug", "sub/y", 0, "0:0/1:0", "task_result", 1],
      ["debug", "sub", 0, "0:0", "checkpoint", 1],
      ["debug", "sub", 0, "0:0", "task_result", 0],
      ["debug", null, 0, null, "checkpoint", 0],
    ]);
    for (const e of events) {
      const t = Date.parse((e.data as DebugEventData).timestamp);
      expect((e.data as DebugEventData).timestamp).toMatch(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
      );
      expect(t >= before && t <= after).toBe(true);
    }
    const { timestamp: _t, ...last } = events[8]!.data as DebugEventData;
    expect(last).toEqual({
      type: "checkpoint",
      step: 0,
      payload: {
        threadId: null,
        branchId: "main",
        eventId: null,
        values: { log: ["x", "y"] },
        next: [],
        tasks: [],
      },
    });
    const { timestamp: _u, ...start } = events[1]!.data as DebugEventData;
    expect(start).toEqual({
      type: "task",
      step: 0,
      payload: { kind: "start", input: { log: [] }, payload: null },
    });
  });

  it("is the tasks and checkpoints events, each wrapped, in the same order", async () => {
    const g = textGraph();
    const both = await collect(g.stream({ text: "a b" }, { modes: ["tasks", "checkpoints"] }));
    const debug = await collect(g.stream({ text: "a b" }, { modes: ["debug"] }));
    expect(
      debug.map((e) => [e.node, e.step, e.taskId, (e.data as DebugEventData).payload]),
    ).toEqual(both.map((e) => [e.node, e.step, e.taskId, e.data]));
  });
});
