/**
 * Forks fork their children: a branch of a parent has its own view of a subgraph's child
 * thread as of the fork's event; the main branch's child is untouched.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineState, reducer } from "../state/define-state.js";
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

  describe('a "stable" child not paused at the fork runs on the branch as of the fork', () => {
    const Child = defineState({ calls: z.number().default(0) });
    const Log = defineState({
      log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
    });
    // Each call of the stable child counts its calls: the count is the child's own state.
    function counting(store: MemoryStateStore) {
      const count = node((c: typeof Child.State) => ({ calls: c.calls + 1 }), { name: "count" });
      const child = new Graph(Child, { name: "child" }).flow(START.to(count), count.to(END));
      const sub = subgraph<typeof Log.State, typeof Child.State>("sub", child, {
        stateIn: () => ({}),
        stateOut: (c) => ({ log: [`call ${c.calls}`] }),
        childThread: "stable",
      });
      return new Graph(Log, { name: "parent", stateStore: store }).flow(START.to(sub), sub.to(END));
    }
    const runStarts = async (g: Graph<typeof Log>, branchId = "main") =>
      (await g.history("t", { branchId })).filter((e) => e.type === "run_started");

    it("a fork after some calls: the branch's child continues from its state then", async () => {
      const store = new MemoryStateStore();
      const g = () => counting(store);
      await g().invoke({}, { threadId: "t" });
      await g().invoke({}, { threadId: "t" });
      // Fork at the second run's start (its call had not run yet); main calls once more first.
      await g().fork("t", { eventId: (await runStarts(g()))[1]!.id, branchId: "b" });
      expect((await g().invoke({}, { threadId: "t" })).state.log).toEqual([
        "call 1",
        "call 2",
        "call 3",
      ]);
      const branch = await g().invoke(null, { threadId: "t", branchId: "b" });
      expect(branch.state.log).toEqual(["call 1", "call 2"]);
      expect((await g().invoke({}, { threadId: "t", branchId: "b" })).state.log).toEqual([
        "call 1",
        "call 2",
        "call 3",
      ]);
      // The branch's child is the stable thread's branch "b", forked after its first call.
      const childMain = await store.read("t:sub", "main");
      const firstRun = childMain.filter((x) => x.runId === childMain[0]!.runId);
      expect((await store.getBranch("t:sub", "b"))?.parent).toEqual({
        branchId: "main",
        seq: firstRun.at(-1)!.seq,
      });
      expect((await g().getState("t")).state.log).toEqual(["call 1", "call 2", "call 3"]);
      expect(
        (await child(store, "t:sub", "main")).calls,
        "main's child counted its own calls only",
      ).toBe(3);
      expect((await child(store, "t:sub", "b")).calls).toBe(3);
    });

    it("a fork before the first call: the branch's child is a thread of its own, found again by later calls", async () => {
      const store = new MemoryStateStore();
      const g = () => counting(store);
      await g().invoke({}, { threadId: "t" });
      await g().invoke({}, { threadId: "t" });
      await g().fork("t", { eventId: (await runStarts(g()))[0]!.id, branchId: "b" });
      expect((await g().invoke(null, { threadId: "t", branchId: "b" })).state.log).toEqual([
        "call 1",
      ]);
      expect((await g().invoke({}, { threadId: "t", branchId: "b" })).state.log).toEqual([
        "call 1",
        "call 2",
      ]);
      expect(await store.getBranch("t:sub", "b")).toBe(null);
      expect((await child(store, "t:sub@b", "main")).calls).toBe(2);
      expect((await child(store, "t:sub", "main")).calls).toBe(2);
      // Deleting the parent with its children deletes the branch's child thread too.
      expect((await g().deleteThread("t", { children: true })).sort()).toEqual([
        "t",
        "t:sub",
        "t:sub@b",
      ]);
    });

    it("a fork of a fork before its call: the child as of that fork, the branches it came from untouched", async () => {
      const store = new MemoryStateStore();
      const g = () => counting(store);
      await g().invoke({}, { threadId: "t" });
      await g().fork("t", { eventId: (await runStarts(g()))[0]!.id, branchId: "b" });
      await g().invoke(null, { threadId: "t", branchId: "b" });
      // c forks from b's own run start (b's call had not run there; b's child had no event).
      await g().fork("t", { eventId: (await runStarts(g(), "b"))[1]!.id, branchId: "c" });
      expect((await g().invoke(null, { threadId: "t", branchId: "c" })).state.log).toEqual([
        "call 1",
      ]);
      expect((await g().invoke({}, { threadId: "t", branchId: "c" })).state.log).toEqual([
        "call 1",
        "call 2",
      ]);
      // c's child is a thread of its own; b's and main's children counted once each.
      expect((await child(store, "t:sub@c", "main")).calls).toBe(2);
      expect((await child(store, "t:sub@b", "main")).calls).toBe(1);
      expect((await child(store, "t:sub", "main")).calls).toBe(1);
      expect((await g().getState("t")).state.log).toEqual(["call 1"]);
      expect((await g().getState("t", { branchId: "b" })).state.log).toEqual(["call 1"]);
    });

    async function child(store: MemoryStateStore, threadId: string, branchId: string) {
      const count = node((c: typeof Child.State) => ({ calls: c.calls + 1 }), { name: "count" });
      const g = new Graph(Child, { name: "child", stateStore: store }).flow(
        START.to(count),
        count.to(END),
      );
      return (await g.getState(threadId, { branchId })).state;
    }
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
