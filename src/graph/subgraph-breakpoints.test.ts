/**
 * Static breakpoints of a subgraph's child (LangGraph: a subgraph compiled with
 * interruptBefore pauses the parent run too): the parent pauses, shows the child's breakpoint
 * with the nodes named "<subgraph>/<node>", and continues past it, warm and cold.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { ValueError } from "../errors/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";
import type { BreakpointNodes } from "./breakpoints.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";
import { subgraph } from "./subgraph.js";
import type { StreamEvent } from "./types.js";

const Log = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type L = typeof Log.State;

const dir = mkdtempSync(join(tmpdir(), "nodestep-subbp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** parent: START → sub → done → END; child: x → y → END, with the child's breakpoints. */
function build(
  store: StateStore | null,
  child: { interruptBefore?: BreakpointNodes; interruptAfter?: BreakpointNodes },
  childThread: "fresh" | "stable" = "stable",
) {
  const x = node(() => ({ log: ["x"] }), { name: "x" });
  const y = node(() => ({ log: ["y"] }), { name: "y" });
  const inner = new Graph(Log, { name: "child", ...child }).flow(START.to(x), x.to(y), y.to(END));
  const sub = subgraph("sub", inner, {
    stateIn: () => ({}),
    stateOut: (c: L) => ({ log: c.log }),
    childThread,
  });
  const done = node(() => ({ log: ["done"] }), { name: "done" });
  return new Graph(Log, { name: "parent", stateStore: store }).flow(
    START.to(sub),
    sub.to(done),
    done.to(END),
  );
}

describe("breakpoints of a subgraph's child", () => {
  it("interruptBefore in the child pauses the parent, which shows the breakpoint as <name>/<node>, warm and cold", async () => {
    const store = new MemoryStateStore();
    const g = build(store, { interruptBefore: ["y"] });
    const first = await g.invoke({}, { threadId: "p" });
    expect([first.status, first.interrupts, first.breakpoint, first.state]).toEqual([
      "interrupted",
      [],
      { when: "before", step: 0, nodes: ["sub/y"] },
      { log: [] },
    ]);
    for (const reader of [g, build(store, { interruptBefore: ["y"] })]) {
      const snap = await reader.getState("p", { subgraphs: true });
      expect([snap.status, snap.next, snap.breakpoint]).toEqual([
        "interrupted",
        ["sub"],
        { when: "before", step: 0, nodes: ["sub/y"] },
      ]);
      expect(snap.subgraphs?.["0:0"]?.snapshot.breakpoint).toEqual({
        when: "before",
        step: 1,
        nodes: ["y"],
      });
    }
    const finished = (await g.history("p")).at(-1)!;
    expect([finished.type, finished.data]).toEqual([
      "run_finished",
      {
        status: "interrupted",
        interrupts: [],
        breakpoint: { when: "before", step: 0, nodes: ["sub/y"] },
      },
    ]);
    // Continuing goes past it (a new graph object: cold), and the child runs y.
    const done = await build(store, { interruptBefore: ["y"] }).invoke(null, { threadId: "p" });
    expect([done.status, done.breakpoint, done.state]).toEqual([
      "completed",
      null,
      { log: ["x", "y", "done"] },
    ]);
    expect((await g.getState("p")).breakpoint).toBeNull();
  });

  it("interruptAfter in a fresh child: a stream ends with the breakpoint, a cold continue on a reopened SQLite file finishes", async () => {
    const file = join(dir, "after.db");
    const first = new SqliteStateStore({ path: file });
    const events: StreamEvent[] = [];
    for await (const e of build(first, { interruptAfter: ["x"] }, "fresh").stream(
      {},
      { threadId: "q", modes: ["updates"] },
    ))
      events.push(e);
    await first.close();
    expect(events.map((e) => [e.node, e.data])).toEqual([
      ["sub/x", { log: ["x"] }],
      [
        null,
        {
          __interrupt__: [],
          __breakpoint__: { when: "after", step: 0, nodes: ["sub/x"] },
        },
      ],
    ]);
    const second = new SqliteStateStore({ path: file });
    const g = build(second, { interruptAfter: ["x"] }, "fresh");
    expect((await g.getState("q")).breakpoint).toEqual({
      when: "after",
      step: 0,
      nodes: ["sub/x"],
    });
    const done = await g.invoke(null, { threadId: "q" });
    await second.close();
    expect([done.status, done.state]).toEqual(["completed", { log: ["x", "y", "done"] }]);
  });

  it("a child with breakpoints needs a thread: without a state store the run is refused", async () => {
    await expectError(
      () => build(null, { interruptBefore: ["y"] }, "fresh").invoke({}),
      ValueError,
      'Graph "child": interruptBefore / interruptAfter pause a thread, and a run without a threadId has none to continue; run with a threadId (and a state store)',
    );
  });
});
