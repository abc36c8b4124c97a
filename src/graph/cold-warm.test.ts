/**
 * Cold equals warm: a thread resumed by the graph that ran it (its position cache warm), by a
 * new graph object (cold), or after more than the cache's 256 threads (evicted) goes the same way.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { coldMode } from "./cold-mode.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";
import { subgraph } from "./subgraph.js";

const S = defineState({ notes: z.array(z.string()).default([]) });
type St = typeof S.State;

/** A parent whose child asks twice, in two supersteps in a row. */
function parentOf(store: MemoryStateStore, childThread: "fresh" | "stable") {
  const ask1 = node((_s: St, ctx) => ({ notes: [ctx.interrupt("first?", { key: "a" })] }), {
    name: "ask1",
  });
  const ask2 = node(
    (s: St, ctx) => ({ notes: [...s.notes, ctx.interrupt("second?", { key: "b" })] }),
    { name: "ask2" },
  );
  const child = new Graph(S, { name: "child" }).flow(START.to(ask1), ask1.to(ask2), ask2.to(END));
  const sub = subgraph("sub", child, { share: ["notes"], childThread });
  return new Graph(S, { name: "parent", stateStore: store }).flow(START.to(sub), sub.to(END));
}

type Mode = "warm" | "cold" | "evicted";

/** The graph for the next call: the same one, a new one, or the same after 257 other threads. */
async function caller(
  mode: Mode,
  warm: Graph<typeof S>,
  make: () => Graph<typeof S>,
): Promise<Graph<typeof S>> {
  if (mode === "cold") return make();
  if (mode === "evicted") {
    for (let i = 0; i < 257; i++)
      await warm.invoke({}, { threadId: `other-${i}-${Math.random()}` });
  }
  return warm;
}

describe("cold equals warm", () => {
  for (const childThread of ["fresh", "stable"] as const) {
    for (const mode of ["warm", "cold", "evicted"] as const) {
      // With the cold test mode on the cache is never read: evicting it changes nothing, and
      // its 514 runs are each a new graph over a reopened store there.
      it.skipIf(mode === "evicted" && coldMode.on)(
        `resumes a subgraph whose child pauses twice in a row, ${mode} (${childThread} child)`,
        async () => {
          const store = new MemoryStateStore();
          const make = () => parentOf(store, childThread);
          const warm = make();
          const first = await (await caller(mode, warm, make)).invoke({}, { threadId: "t" });
          expect(first.interrupts.map((i) => i.key)).toEqual(["0:0/a"]);
          const second = await (await caller(mode, warm, make)).invoke(null, {
            threadId: "t",
            resume: { "0:0/a": "A" },
          });
          expect(second.status).toBe("interrupted");
          expect(second.interrupts.map((i) => i.key)).toEqual(["0:0/b"]);
          const done = await (await caller(mode, warm, make)).invoke(null, {
            threadId: "t",
            resume: { "0:0/b": "B" },
          });
          expect(done.status).toBe("completed");
          expect(done.state.notes).toEqual(["A", "B"]);
          expect((await make().getState("t")).state.notes).toEqual(["A", "B"]);
        },
      );
    }
  }

  for (const mode of ["warm", "cold"] as const) {
    it(`keeps an answer to its superstep: a later node asking under the same key is asked, ${mode}`, async () => {
      const store = new MemoryStateStore();
      const seen: unknown[] = [];
      const make = () => {
        const one = node(
          (_s: St, ctx) => {
            seen.push(ctx.interrupt("one?", { key: "k" }));
            return {};
          },
          { name: "one" },
        );
        const two = node(
          (_s: St, ctx) => {
            seen.push(ctx.interrupt("two?", { key: "k" }));
            return {};
          },
          { name: "two" },
        );
        return new Graph(S, { stateStore: store }).flow(START.to(one), one.to(two), two.to(END));
      };
      const warm = make();
      const g = () => (mode === "warm" ? warm : make());
      await g().invoke({}, { threadId: "t" });
      const r = await g().invoke(null, { threadId: "t", resume: { k: "first" } });
      expect(r.status).toBe("interrupted");
      expect(r.interrupts).toEqual([{ key: "k", value: "two?", node: "two", taskId: "1:0" }]);
      const done = await g().invoke(null, { threadId: "t", resume: { k: "second" } });
      expect(done.status).toBe("completed");
      expect(seen).toEqual(["first", "second"]);
    });
  }
});
