/**
 * A misspelled option of a run or a thread read is refused, as `new Graph` and `updateState`
 * refuse theirs (run-options.ts): `{ treadId }` would otherwise run without a thread and store
 * nothing, and `getState(t, { eventID })` would answer the thread's state now instead of the
 * past one asked for.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineState } from "../state/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { END, Graph, node, START } from "./index.js";

function counter() {
  const State = defineState({ n: z.number().default(0) });
  const inc = node((s: typeof State.State) => ({ n: s.n + 1 }), { name: "inc" });
  const store = new MemoryStateStore();
  const graph = new Graph(State, { stateStore: store, name: "g" }).flow(START.to(inc), inc.to(END));
  return { graph, store };
}

const RUN_KEYS =
  "threadId, branchId, context, signal, resume, maxSteps, rootRunId, runId, stateStore, memoryStore, onEvent, modes, interruptBefore, interruptAfter, maxConcurrency, onBusy, onBusyTimeoutMs, durability";

describe("unknown options", () => {
  it("invoke and stream refuse an unknown run option before anything runs", async () => {
    const { graph, store } = counter();
    await expect(graph.invoke({ n: 1 }, { treadId: "t1" } as never)).rejects.toThrow(
      new TypeError(`Graph "g": unknown run option "treadId"; the options are ${RUN_KEYS}`),
    );
    expect(() => graph.stream({ n: 1 }, { threadId: "t1", mode: ["values"] } as never)).toThrow(
      new TypeError(`Graph "g": unknown run option "mode"; the options are ${RUN_KEYS}`),
    );
    expect(await store.listThreads()).toEqual([]);
  });

  it("getState, history and fork refuse an unknown option; the thread is as it was", async () => {
    const { graph } = counter();
    await graph.invoke({ n: 1 }, { threadId: "t1" });
    await graph.invoke({ n: 1 }, { threadId: "t1" });
    const events = await graph.history("t1");
    await expect(graph.getState("t1", { eventID: events[0]!.id } as never)).rejects.toThrow(
      new TypeError(
        'Graph "g": unknown getState option "eventID"; the options are branchId, eventId, subgraphs',
      ),
    );
    await expect(graph.history("t1", { limit: 1 } as never)).rejects.toThrow(
      new TypeError('Graph "g": unknown history option "limit"; the options are branchId'),
    );
    await expect(
      graph.fork("t1", { eventId: events[0]!.id, branch: "b" } as never),
    ).rejects.toThrow(
      new TypeError('Graph "g": unknown fork option "branch"; the options are eventId, branchId'),
    );
    expect(await graph.history("t1")).toEqual(events);
    expect(await graph.stateStore!.listBranches("t1")).toEqual([
      { threadId: "t1", branchId: "main", parent: null, lastSeq: events.length },
    ]);
  });
});
