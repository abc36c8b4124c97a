import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Graph } from "../graph/graph.js";
import { node, START } from "../graph/node.js";
import { END, when } from "../graph/routing.js";
import type { JsonValue } from "../json/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StoredEvent } from "../stores/types.js";
import { historyLines } from "./history-format.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  ok: z.boolean().default(false),
});
type S = typeof State.State;

describe("historyLines", () => {
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
    const lines = historyLines((await g.history("t")).filter((e) => e.type === "state_updated"));
    expect(lines).toEqual([
      't/main/4  state_updated  step 1    update {"ok":true}, next unchanged',
      't/main/5  state_updated  step 1 a  update {"log":["again"]}, next: b',
      "t/main/6  state_updated  step 2 b  no update, next: (none)",
    ]);
  });

  it("summarizes a run stopped by another (onBusy) and a rolled_back event", () => {
    const at = (seq: number, type: StoredEvent["type"], step: number, data: JsonValue) =>
      ({
        id: `t/main/${seq}`,
        threadId: "t",
        branchId: "main",
        seq,
        createdAt: 0,
        type,
        runId: "r",
        step,
        taskId: null,
        node: null,
        data,
      }) satisfies StoredEvent;
    expect(
      historyLines([
        at(3, "run_finished", 1, { status: "interrupted", interrupts: [], stoppedBy: "run-b" }),
        at(4, "rolled_back", 0, { runs: ["run-a"], toEventId: null, position: {} }),
        at(5, "rolled_back", 2, { runs: ["run-a", "run-c"], toEventId: "t/main/2", position: {} }),
      ]),
    ).toEqual([
      "t/main/3  run_finished  step 1  stopped: run run-b asked for the thread",
      "t/main/4  rolled_back   step 0  rolled back run(s) run-a to the start",
      "t/main/5  rolled_back   step 2  rolled back run(s) run-a, run-c to t/main/2",
    ]);
    // A stopped run last in the history: what it left goes on with a plain resume.
    expect(
      historyLines([
        at(3, "run_finished", 1, { status: "interrupted", interrupts: [], stoppedBy: "run-b" }),
      ]),
    ).toEqual([
      "t/main/3  run_finished  step 1  stopped: run run-b asked for the thread",
      "",
      "stopped: continue it with: nodestep resume t --graph <module>#<export>",
    ]);
    // A rollback last (the run that did it was refused): its position says what is pending.
    const paused = { step: 1, interrupts: [{ key: "1:0#c1", value: "ok?" }] };
    expect(
      historyLines([
        at(3, "run_finished", 2, { status: "completed" }),
        at(4, "rolled_back", 1, { runs: ["run-a"], toEventId: "t/main/2", position: paused }),
      ]),
    ).toEqual([
      "t/main/3  run_finished  step 2  completed",
      "t/main/4  rolled_back   step 1  rolled back run(s) run-a to t/main/2",
      "",
      "paused: answer with: nodestep resume t --graph <module>#<export> --answer '1:0#c1=<answer>'",
    ]);
    // Nothing pending where it went back to: no hint, as before.
    expect(
      historyLines([
        at(3, "run_finished", 1, { status: "interrupted", interrupts: [{ key: "k" }] }),
        at(4, "rolled_back", 0, { runs: ["run-a"], toEventId: null, position: { step: 0 } }),
      ]).at(-1),
    ).toBe("t/main/4  rolled_back   step 0  rolled back run(s) run-a to the start");
  });
});
