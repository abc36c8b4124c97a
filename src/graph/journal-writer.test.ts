import { describe, expect, it } from "vitest";
import { ConcurrentWriteError } from "../errors/index.js";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/index.js";
import { zod } from "../zod-runtime.js";
import { END, Graph, node, START } from "./index.js";

const z = zod();

describe("JournalWriter on a MemoryStateStore (the append made at once)", () => {
  it("fails the run with the store's error when another writer appended behind its back", async () => {
    const store = new MemoryStateStore({ now: () => 5 });
    const State = defineState({ n: z.number().default(0) });
    const a = node(
      async () => {
        // A writer that ignores the lease appends first: the commit's expected seq is stale.
        await store.append(
          "t",
          "main",
          [{ type: "state_updated", runId: "other", step: 0, taskId: null, node: null, data: {} }],
          1,
        );
        return { n: 1 };
      },
      { name: "a" },
    );
    const graph = new Graph(State, { name: "g", stateStore: store }).flow(START.to(a), a.to(END));
    const err = await graph.invoke({}, { threadId: "t" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConcurrentWriteError);
    expect((err as Error).message).toBe(
      'Branch "main" of thread "t" is at seq 2, not 1: another writer appended since this one read it. Nothing was written; reload the branch and retry.',
    );
    const events = await store.read("t", "main");
    expect(events.map((e) => [e.seq, e.type, e.runId === "other"])).toEqual([
      [1, "run_started", false],
      [2, "state_updated", true],
    ]);
  });
});
