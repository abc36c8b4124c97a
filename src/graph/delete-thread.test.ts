/** Issue 13, item 9: `graph.deleteThread`. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { GraphConfigError, ThreadBusyError, ValueError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";

const State = defineState({
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
});

describe("graph.deleteThread", () => {
  it("deletes the thread and what the graph kept of it; the id then starts a new thread", async () => {
    const store = new MemoryStateStore();
    const inc = node(() => ({ count: 1 }), { name: "inc" });
    const g = new Graph(State, { stateStore: store }).flow(START.to(inc), inc.to(END));
    await g.invoke({}, { threadId: "t1" });
    await g.invoke({}, { threadId: "t1" });
    await g.invoke({}, { threadId: "t1:child" });
    await g.invoke({}, { threadId: "t2" });
    expect((await g.getState("t1")).state.count).toBe(2);
    expect(await g.deleteThread("t1", { children: true })).toEqual(["t1", "t1:child"]);
    const gone = await g.getState("t1");
    expect([gone.state, gone.status, gone.lastEventId]).toEqual([{ count: 0 }, null, null]);
    expect(await g.history("t1")).toEqual([]);
    const again = await g.invoke({}, { threadId: "t1" });
    expect(again.state.count).toBe(1);
    expect((await g.getState("t2")).state.count).toBe(1);
    expect(await g.deleteThread("t1")).toEqual(["t1"]);
    expect(await g.deleteThread("t1")).toEqual([]);
  });

  it("refuses a running thread, a graph without a store and an unknown option", async () => {
    const store = new MemoryStateStore();
    let release!: () => void;
    let running!: Promise<unknown>;
    let graph!: Graph<typeof State>;
    const started = new Promise<void>((entered) => {
      const wait = node(
        () =>
          new Promise<{ count: number }>((r) => {
            release = () => r({ count: 1 });
            entered();
          }),
        { name: "wait" },
      );
      const g = new Graph(State, { stateStore: store }).flow(START.to(wait), wait.to(END));
      running = g.invoke({}, { threadId: "busy" });
      graph = g;
    });
    await started;
    await expectError(
      () => graph.deleteThread("busy"),
      ThreadBusyError,
      'Thread "busy" (branch "main") is running; it cannot be deleted until the run ends (or its lease expires)',
    );
    release();
    await running;
    expect(await graph.deleteThread("busy")).toEqual(["busy"]);
    await expectError(
      () => graph.deleteThread("busy", { child: true } as never),
      ValueError,
      'Graph "graph": unknown deleteThread option "child"; the option is "children"',
    );
    await expectError(
      () => {
        const n = node(() => ({}), { name: "n" });
        return new Graph(State).flow(START.to(n), n.to(END)).deleteThread("x");
      },
      GraphConfigError,
      'Graph "graph" has no stateStore; deleteThread needs one',
    );
  });
});
