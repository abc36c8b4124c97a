/**
 * Issue 13, item 4, one level further: a fork of a fork (a branch created from a branch) of a
 * parent with a `"stable"` subgraph child. Each branch has its own view of the child as of its
 * fork's event; a child paused there pauses again on the branch and takes the branch's answer;
 * the branches it was forked from keep their children. On every store, warm (one graph object,
 * one store instance) and cold (a new graph object over a new store instance for every call).
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { END, Graph, node, START, subgraph } from "../../src/graph/index.js";
import { defineState, reducer } from "../../src/state/index.js";
import { memoryStoreView } from "../../src/stores/memory-state-store.js";
import type { StateStore } from "../../src/stores/types.js";
import { describeStores, type StoreFixture } from "./stores.js";

const Child = defineState({ calls: z.number().default(0) });
const Log = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
const Notes = defineState({ notes: z.array(z.string()).default([]) });

/** A parent whose stable child counts its calls: the count is the child's own state. */
function counting(store: StateStore): Graph<typeof Log> {
  const count = node((c: typeof Child.State) => ({ calls: c.calls + 1 }), { name: "count" });
  const child = new Graph(Child, { name: "child" }).flow(START.to(count), count.to(END));
  const sub = subgraph<typeof Log.State, typeof Child.State>("sub", child, {
    stateIn: () => ({}),
    stateOut: (c) => ({ log: [`call ${c.calls}`] }),
    childThread: "stable",
  });
  return new Graph(Log, { name: "parent", stateStore: store }).flow(START.to(sub), sub.to(END));
}

/** A parent whose stable child asks once per call and notes the answer. */
function asking(store: StateStore): Graph<typeof Notes> {
  const ask = node(
    (s: typeof Notes.State, ctx) => ({
      notes: [...s.notes, `answer ${ctx.interrupt("which?", { key: "a" })}`],
    }),
    { name: "ask" },
  );
  const child = new Graph(Notes, { name: "child" }).flow(START.to(ask), ask.to(END));
  const sub = subgraph("sub", child, { share: ["notes"], childThread: "stable" });
  return new Graph(Notes, { name: "parent", stateStore: store }).flow(START.to(sub), sub.to(END));
}

/** The child's count on a thread's branch, read through a graph of its own. */
async function calls(store: StateStore, threadId: string, branchId: string): Promise<number> {
  const count = node((c: typeof Child.State) => ({ calls: c.calls + 1 }), { name: "count" });
  const g = new Graph(Child, { name: "child", stateStore: store }).flow(
    START.to(count),
    count.to(END),
  );
  return (await g.getState(threadId, { branchId })).state.calls;
}

type Mode = "warm" | "cold";

/** `g()` gives the graph of a call: the same one (warm) or a new one over a new store instance (cold). */
async function setup<G>(fx: StoreFixture, mode: Mode, build: (s: StateStore) => G) {
  const store = await fx.open();
  const warm = build(store);
  const g = async (): Promise<G> => {
    if (mode === "warm") return warm;
    return build(fx.kind === "memory" ? memoryStoreView(store)! : await fx.reopen(store));
  };
  return { store, g };
}

const runStarts = async (g: Graph<typeof Log>, branchId: string) =>
  (await g.history("t", { branchId })).filter((e) => e.type === "run_started");

/** The seq of the last event of the first run written on a branch of a thread (not one it inherits). */
async function endOfFirstRun(store: StateStore, threadId: string, branchId: string) {
  const events = (await store.read(threadId, branchId)).filter((e) => e.branchId === branchId);
  return events.filter((e) => e.runId === events[0]!.runId).at(-1)!.seq;
}

describeStores("a fork of a fork forks the stable child", (fx) => {
  for (const mode of ["warm", "cold"] as const) {
    it(`from a branch whose child is a thread of its own (${mode})`, async () => {
      const { store, g } = await setup(fx, mode, counting);
      expect((await (await g()).invoke({}, { threadId: "t" })).state.log).toEqual(["call 1"]);
      // b forks before main's first call: its child is the thread "t:sub@b".
      const mainStart = (await runStarts(await g(), "main"))[0]!.id;
      await (await g()).fork("t", { eventId: mainStart, branchId: "b" });
      expect((await (await g()).invoke(null, { threadId: "t", branchId: "b" })).state.log).toEqual([
        "call 1",
      ]);
      expect((await (await g()).invoke({}, { threadId: "t", branchId: "b" })).state.log).toEqual([
        "call 1",
        "call 2",
      ]);
      // c forks from b's second run's start: b's child had counted 1 there.
      const bStarts = await runStarts(await g(), "b");
      expect(bStarts.map((e) => e.branchId)).toEqual(["main", "b", "b"]);
      await (await g()).fork("t", { eventId: bStarts[2]!.id, branchId: "c" });
      expect((await (await g()).invoke(null, { threadId: "t", branchId: "c" })).state.log).toEqual([
        "call 1",
        "call 2",
      ]);
      expect((await (await g()).invoke({}, { threadId: "t", branchId: "c" })).state.log).toEqual([
        "call 1",
        "call 2",
        "call 3",
      ]);
      // c's child is the branch "c" of b's child thread, forked after that thread's first call.
      expect((await store.getBranch("t:sub@b", "c"))?.parent).toEqual({
        branchId: "main",
        seq: await endOfFirstRun(store, "t:sub@b", "main"),
      });
      expect(await store.getBranch("t:sub", "c")).toBe(null);
      expect(await store.getBranch("t:sub@c", "main")).toBe(null);
      expect(await calls(store, "t:sub@b", "c")).toBe(3);
      // b and main keep their children: b counts on from 2, main's child counted once.
      expect(await calls(store, "t:sub@b", "main")).toBe(2);
      expect((await (await g()).invoke({}, { threadId: "t", branchId: "b" })).state.log).toEqual([
        "call 1",
        "call 2",
        "call 3",
      ]);
      expect(await calls(store, "t:sub@b", "main")).toBe(3);
      expect(await calls(store, "t:sub", "main")).toBe(1);
      expect((await (await g()).getState("t")).state.log).toEqual(["call 1"]);
      expect((await (await g()).deleteThread("t", { children: true })).sort()).toEqual([
        "t",
        "t:sub",
        "t:sub@b",
      ]);
    });

    it(`from a branch whose child is a branch of the stable thread (${mode})`, async () => {
      const { store, g } = await setup(fx, mode, counting);
      await (await g()).invoke({}, { threadId: "t" });
      await (await g()).invoke({}, { threadId: "t" });
      // b forks at main's second run's start: its child is "t:sub"'s branch "b", after call 1.
      await (await g()).fork("t", {
        eventId: (await runStarts(await g(), "main"))[1]!.id,
        branchId: "b",
      });
      expect((await (await g()).invoke(null, { threadId: "t", branchId: "b" })).state.log).toEqual([
        "call 1",
        "call 2",
      ]);
      expect((await (await g()).invoke({}, { threadId: "t", branchId: "b" })).state.log).toEqual([
        "call 1",
        "call 2",
        "call 3",
      ]);
      const bStarts = await runStarts(await g(), "b");
      expect(bStarts.map((e) => e.branchId)).toEqual(["main", "main", "b", "b"]);
      await (await g()).fork("t", { eventId: bStarts[3]!.id, branchId: "c" });
      // main and b call on before c runs: c's child is as of c's fork all the same.
      await (await g()).invoke({}, { threadId: "t" });
      await (await g()).invoke({}, { threadId: "t", branchId: "b" });
      expect((await (await g()).invoke(null, { threadId: "t", branchId: "c" })).state.log).toEqual([
        "call 1",
        "call 2",
        "call 3",
      ]);
      expect((await (await g()).invoke({}, { threadId: "t", branchId: "c" })).state.log).toEqual([
        "call 1",
        "call 2",
        "call 3",
        "call 4",
      ]);
      expect((await store.getBranch("t:sub", "c"))?.parent).toEqual({
        branchId: "b",
        seq: await endOfFirstRun(store, "t:sub", "b"),
      });
      expect(
        [
          await calls(store, "t:sub", "main"),
          await calls(store, "t:sub", "b"),
          await calls(store, "t:sub", "c"),
        ],
        "main, b and c each counted their own calls",
      ).toEqual([3, 4, 4]);
      expect((await (await g()).getState("t")).state.log).toEqual(["call 1", "call 2", "call 3"]);
      expect((await (await g()).getState("t", { branchId: "b" })).state.log).toEqual([
        "call 1",
        "call 2",
        "call 3",
        "call 4",
      ]);
    });

    it(`from a branch that never ran its child: the child as of that branch's fork (${mode})`, async () => {
      const { store, g } = await setup(fx, mode, counting);
      await (await g()).invoke({}, { threadId: "t" });
      await (await g()).invoke({}, { threadId: "t" });
      await (await g()).fork("t", {
        eventId: (await runStarts(await g(), "main"))[1]!.id,
        branchId: "b",
      });
      // b only edits its state (its next task stays next): an event of b's own to fork from.
      await (await g()).updateState("t", { log: ["edit"] }, { branchId: "b" });
      const edited = (await (await g()).getState("t", { branchId: "b" })).lastEventId!;
      expect(edited).toMatch(/^t\/b\/\d+$/);
      await (await g()).fork("t", { eventId: edited, branchId: "c" });
      await (await g()).invoke({}, { threadId: "t" });
      expect((await (await g()).invoke(null, { threadId: "t", branchId: "c" })).state.log).toEqual([
        "call 1",
        "edit",
        "call 2",
      ]);
      // c's child: "t:sub"'s branch "c", from where main's child was at b's fork (after call 1).
      expect((await store.getBranch("t:sub", "c"))?.parent).toEqual({
        branchId: "main",
        seq: await endOfFirstRun(store, "t:sub", "main"),
      });
      expect(await store.getBranch("t:sub", "b")).toBe(null);
      expect((await (await g()).invoke(null, { threadId: "t", branchId: "b" })).state.log).toEqual([
        "call 1",
        "edit",
        "call 2",
      ]);
      expect([
        await calls(store, "t:sub", "main"),
        await calls(store, "t:sub", "b"),
        await calls(store, "t:sub", "c"),
      ]).toEqual([3, 2, 2]);
    });

    for (const bOwn of [true, false]) {
      it(`a child paused as of the fork of a fork pauses again and takes that branch's answer (${bOwn ? "b's own child thread" : "a branch of the stable thread"}, ${mode})`, async () => {
        const { store, g } = await setup(fx, mode, asking);
        const first = await (await g()).invoke({ notes: ["start"] }, { threadId: "t" });
        expect(first.interrupts.map((i) => i.key)).toEqual(["0:0/a"]);
        const at = bOwn
          ? (await (await g()).history("t")).find((e) => e.type === "run_started")!.id
          : (await (await g()).getState("t")).lastEventId!;
        await (await g()).fork("t", { eventId: at, branchId: "b" });
        // b runs and its child pauses, on b: c forks there.
        const onB = await (await g()).invoke(null, { threadId: "t", branchId: "b" });
        expect([onB.status, onB.interrupts.map((i) => i.key)]).toEqual(["interrupted", ["0:0/a"]]);
        const bPaused = (await (await g()).getState("t", { branchId: "b" })).lastEventId!;
        expect(bPaused).toMatch(/^t\/b\/\d+$/);
        await (await g()).fork("t", { eventId: bPaused, branchId: "c" });
        const bThread = bOwn ? "t:sub@b" : "t:sub";
        const bBranch = bOwn ? "main" : "b";

        // Before c runs, it sees its child as of its fork: b's child, paused.
        const seen = await (await g()).getState("t", { branchId: "c", subgraphs: true });
        expect(seen.subgraphs?.["0:0"]?.node).toBe("sub");
        expect([seen.subgraphs?.["0:0"]?.threadId, seen.subgraphs?.["0:0"]?.branchId]).toEqual([
          bThread,
          bBranch,
        ]);
        expect(seen.subgraphs?.["0:0"]?.snapshot.state).toEqual({ notes: ["start"] });
        expect(seen.subgraphs?.["0:0"]?.snapshot.interrupts).toEqual([
          { key: "a", value: "which?", node: "ask", taskId: "0:0" },
        ]);

        // b takes its answer first; c still waits, then takes its own.
        const bDone = await (await g()).invoke(null, {
          threadId: "t",
          branchId: "b",
          resume: { "0:0/a": "b" },
        });
        expect(bDone.state.notes).toEqual(["start", "answer b"]);
        const again = await (await g()).invoke(null, { threadId: "t", branchId: "c" });
        expect([again.status, again.interrupts.map((i) => i.key)]).toEqual([
          "interrupted",
          ["0:0/a"],
        ]);
        const mine = await (await g()).getState("t", { branchId: "c", subgraphs: true });
        expect([mine.subgraphs?.["0:0"]?.threadId, mine.subgraphs?.["0:0"]?.branchId]).toEqual([
          bThread,
          "c",
        ]);
        expect(mine.subgraphs?.["0:0"]?.snapshot.status).toBe("interrupted");
        expect(mine.subgraphs?.["0:0"]?.snapshot.state).toEqual({ notes: ["start"] });
        const cDone = await (await g()).invoke(null, {
          threadId: "t",
          branchId: "c",
          resume: { "0:0/a": "c" },
        });
        expect([cDone.status, cDone.state.notes]).toEqual(["completed", ["start", "answer c"]]);
        expect((await store.getBranch(bThread, "c"))?.parent?.branchId).toBe(bBranch);

        // main's child still waits for main's answer.
        expect((await (await g()).getState("t")).interrupts.map((i) => i.key)).toEqual(["0:0/a"]);
        const mainDone = await (await g()).invoke(null, {
          threadId: "t",
          resume: { "0:0/a": "main" },
        });
        expect(mainDone.state.notes).toEqual(["start", "answer main"]);
        const done = await (await g()).getState("t", { branchId: "c", subgraphs: true });
        expect([done.status, done.state.notes, done.subgraphs]).toEqual([
          "completed",
          ["start", "answer c"],
          {},
        ]);
        expect((await (await g()).getState("t", { branchId: "b" })).state.notes).toEqual([
          "start",
          "answer b",
        ]);
      });
    }
  }
});
