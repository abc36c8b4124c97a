/**
 * Forks fork their children: a branch of a parent has its own view of a subgraph's child
 * thread as of the fork's event; the main branch's child is untouched.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";
import { subgraph } from "./subgraph.js";

const S = defineState({ notes: z.array(z.string()).default([]) });
type St = typeof S.State;

function parentOf(store: MemoryStateStore, childThread: "fresh" | "stable") {
  const ask = node(
    (s: St, ctx) => ({ notes: [...s.notes, `answer ${ctx.interrupt("which?", { key: "a" })}`] }),
    { name: "ask" },
  );
  const child = new Graph(S, { name: "child" }).flow(START.to(ask), ask.to(END));
  const sub = subgraph("sub", child, { share: ["notes"], childThread });
  return new Graph(S, { name: "parent", stateStore: store }).flow(START.to(sub), sub.to(END));
}

describe("forks fork their children", () => {
  for (const childThread of ["fresh", "stable"] as const) {
    it(`a child paused at the fork pauses again on the branch and takes the branch's answer (${childThread})`, async () => {
      const store = new MemoryStateStore();
      const g = () => parentOf(store, childThread);
      const paused = await g().invoke({ notes: ["start"] }, { threadId: "t" });
      expect(paused.interrupts.map((i) => i.key)).toEqual(["0:0/a"]);
      const at = (await g().getState("t")).lastEventId as string;
      const { branchId } = await g().fork("t", { eventId: at, branchId: "b" });
      expect(branchId).toBe("b");

      const main = await g().invoke(null, { threadId: "t", resume: { "0:0/a": "main" } });
      expect(main.status).toBe("completed");
      expect(main.state.notes).toEqual(["start", "answer main"]);

      // The branch still waits, after main consumed its answer.
      const again = await g().invoke(null, { threadId: "t", branchId: "b" });
      expect(again.status).toBe("interrupted");
      expect(again.interrupts.map((i) => i.key)).toEqual(["0:0/a"]);
      const branch = await g().invoke(null, {
        threadId: "t",
        branchId: "b",
        resume: { "0:0/a": "branch" },
      });
      expect(branch.status).toBe("completed");
      expect(branch.state.notes).toEqual(["start", "answer branch"]);

      expect((await g().getState("t")).state.notes).toEqual(["start", "answer main"]);
      expect((await g().getState("t", { branchId: "b" })).state.notes).toEqual([
        "start",
        "answer branch",
      ]);
    });
  }
});
