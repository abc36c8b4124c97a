/**
 * Forks fork their children: a branch of a parent has its own view of a subgraph's child
 * thread as of the fork's event; the main branch's child is untouched.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { GraphExecutionError } from "../errors/index.js";
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
  it('a "fresh" child that had not paused as of the fork gets a new child thread on the branch', async () => {
    const store = new MemoryStateStore();
    const g = () => parentOf(store, "fresh");
    await g().invoke({ notes: ["start"] }, { threadId: "t" });
    // The subgraph's task saved its child thread id before the child ran: fork there.
    const saved = (await g().history("t")).find((e) => e.type === "task_cache");
    expect(saved?.data).toEqual({
      cache: { childThread: expect.any(String), childBranch: "main" },
    });
    const mainChild = (saved!.data as { cache: { childThread: string } }).cache.childThread;
    await g().fork("t", { eventId: saved!.id, branchId: "b" });

    const asked = await g().invoke(null, { threadId: "t", branchId: "b" });
    expect(asked.status).toBe("interrupted");
    expect(asked.interrupts.map((i) => i.key)).toEqual(["0:0/a"]);
    // The branch's child: a new thread, on its "main" (a new thread has no branch "b").
    const view = (await g().getState("t", { branchId: "b", subgraphs: true })).subgraphs?.["0:0"];
    expect(view?.threadId).toMatch(/^t:sub:[0-9a-f]{12}$/);
    expect(view?.threadId).not.toBe(mainChild);
    expect(view?.branchId).toBe("main");
    expect(view?.snapshot.state).toEqual({ notes: ["start"] });
    expect(view?.snapshot.interrupts).toEqual([
      { key: "a", value: "which?", node: "ask", taskId: "0:0" },
    ]);
    const done = await g().invoke(null, {
      threadId: "t",
      branchId: "b",
      resume: { "0:0/a": "branch" },
    });
    expect(done.status).toBe("completed");
    expect(done.state.notes).toEqual(["start", "answer branch"]);

    // The branch's child is a thread of its own; main's child still waits for its answer.
    const threads = (await store.listThreads()).map((t) => t.threadId).sort();
    expect(threads).toHaveLength(3);
    expect(threads).toContain(mainChild);
    expect((await g().getState("t")).interrupts.map((i) => i.key)).toEqual(["0:0/a"]);
    const main = await g().invoke(null, { threadId: "t", resume: { "0:0/a": "main" } });
    expect(main.state.notes).toEqual(["start", "answer main"]);
  });

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

  it('refuses to start a "stable" child on a fork where it was not paused; the branch and main are left as they were', async () => {
    const store = new MemoryStateStore();
    const g = () => parentOf(store, "stable");
    await g().invoke({ notes: ["start"] }, { threadId: "t" });
    // Fork before the subgraph's task ran: its child was not paused there.
    const started = (await g().history("t")).find((e) => e.type === "run_started");
    await g().fork("t", { eventId: started!.id, branchId: "b" });
    const before = await g().history("t", { branchId: "b" });
    const e = await expectError(
      () => g().invoke(null, { threadId: "t", branchId: "b" }),
      GraphExecutionError,
      'subgraph "sub": a "stable" child cannot start on the forked parent branch "b": it was not paused as of the fork, and its thread "t:sub" holds the main branch\'s calls, not its state as of the fork; fork at an event where the child is paused, or use childThread "fresh"',
    );
    expect([e.graph, e.node, e.step]).toEqual(["parent", "sub", 0]);
    // The failed step stored only its run's start and end: no task result, no child branch.
    const after = await g().history("t", { branchId: "b" });
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((x) => x.type)).toEqual(["run_started", "run_failed"]);
    expect(await store.getBranch("t:sub", "b")).toBe(null);
    // Main's child still waits for its answer, and takes it.
    const main = await g().invoke(null, { threadId: "t", resume: { "0:0/a": "main" } });
    expect(main.state.notes).toEqual(["start", "answer main"]);
  });

  it("shows the child states of a position with getState(threadId, { subgraphs: true })", async () => {
    const store = new MemoryStateStore();
    const g = () => parentOf(store, "fresh");
    await g().invoke({ notes: ["start"] }, { threadId: "t" });
    const at = (await g().getState("t")).lastEventId as string;
    await g().fork("t", { eventId: at, branchId: "b" });
    const s = await g().getState("t", { subgraphs: true });
    const child = s.subgraphs?.["0:0"];
    expect(child?.node).toBe("sub");
    expect(child?.threadId).toMatch(/^t:sub:[0-9a-f]{12}$/);
    expect(child?.branchId).toBe("main");
    expect(child?.snapshot.state).toEqual({ notes: ["start"] });
    expect(child?.snapshot.interrupts).toEqual([
      { key: "a", value: "which?", node: "ask", taskId: "0:0" },
    ]);
    expect(child?.snapshot.subgraphs).toEqual({});
    await g().invoke(null, { threadId: "t", resume: { "0:0/a": "main" } });
    expect((await g().getState("t", { subgraphs: true })).subgraphs).toEqual({});
    // The branch sees its child as of the fork: still paused.
    const b = await g().getState("t", { branchId: "b", subgraphs: true });
    expect(b.subgraphs?.["0:0"]?.threadId).toBe(child?.threadId);
    expect(b.subgraphs?.["0:0"]?.snapshot.status).toBe("interrupted");
    expect(b.subgraphs?.["0:0"]?.snapshot.interrupts.map((i) => i.key)).toEqual(["a"]);
    expect(await g().getState("t")).not.toHaveProperty("subgraphs");
    await expect(g().getState("t", { subgraphs: "yes" as unknown as boolean })).rejects.toThrow(
      new TypeError('Graph "parent": subgraphs must be a boolean, got string'),
    );
  });
});
