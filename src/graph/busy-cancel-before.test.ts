/**
 * A run whose signal has fired before it took its thread's lease (the thread free, so it never
 * waited): `RunCancelledError` says it was cancelled before it took the thread, not that it
 * "waited" for it (onBusy "reject" never waits), and nothing is stored.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { RunCancelledError } from "../errors/index.js";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";

const S = defineState({ n: z.number().default(0) });

it("a run cancelled before it took a free thread says so, for every policy, and stores nothing", async () => {
  for (const onBusy of [undefined, "reject", "enqueue", "interrupt", "rollback"] as const) {
    const store = new MemoryStateStore();
    let ran = 0;
    const work = node(
      (s: { n: number }) => {
        ran++;
        return { n: s.n + 1 };
      },
      { name: "work" },
    );
    const g = new Graph(S, { name: "g", stateStore: store }).flow(START.to(work), work.to(END));
    const e = await g
      .invoke(
        { n: 1 },
        {
          threadId: "t",
          signal: AbortSignal.abort(new Error("gone")),
          ...(onBusy ? { onBusy } : {}),
          ...(onBusy && onBusy !== "reject" ? { onBusyTimeoutMs: 1000 } : {}),
        },
      )
      .then(
        () => null,
        (x: unknown) => x,
      );
    expect(e).toBeInstanceOf(RunCancelledError);
    expect((e as Error).message).toBe(
      'The run of graph "g" was cancelled before it took thread "t" (branch "main")',
    );
    expect(ran).toBe(0);
    expect(await store.read("t", "main")).toEqual([]);
    expect(await store.getBranch("t", "main")).toBe(null);
  }
});
