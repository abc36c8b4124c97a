/**
 * `GraphOptions.checkInput`: called for new input on a thread with history, before the run
 * writes its start; throwing refuses the run and leaves the thread as the check saw it (as it
 * was, or rolled back by the run's `onBusy: "rollback"`, which stays). Without it, new input
 * on a paused thread starts a run from it as before (its pending interrupt dropped).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { refuseInputAfterOpenCalls } from "../agents/history.js";
import { RunCancelledError, RunStoppedError, ValueError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { NewInputCheck, NewInputOnThread } from "./graph.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { readsOnly } from "./read-only-view.js";
import { Command, END } from "./routing.js";

const S = defineState({ notes: z.array(z.string()).default([]) });
type St = typeof S.State;

/** START → ask (pauses on "ok") → END, on `store`, with `checkInput` when given. */
function asking(store: MemoryStateStore, checkInput?: NewInputCheck) {
  const ask = node(
    (s: St, ctx) => ({
      notes: [...s.notes, `ok=${String(ctx.interrupt("go on?", { key: "ok" }))}`],
    }),
    { name: "ask" },
  );
  return new Graph(S, {
    name: "asker",
    stateStore: store,
    ...(checkInput ? { checkInput } : {}),
  }).flow(START.to(ask), ask.to(END));
}

describe("GraphOptions.checkInput", () => {
  it("without it, new input on a paused thread starts a run from the input, dropping the interrupt", async () => {
    const store = new MemoryStateStore();
    const g = asking(store);
    expect((await g.invoke({ notes: ["a"] }, { threadId: "t" })).status).toBe("interrupted");
    const r = await g.invoke({ notes: ["b"] }, { threadId: "t" });
    expect([r.status, r.state.notes]).toEqual(["interrupted", ["b"]]);
    const started = (await g.history("t")).filter((e) => e.type === "run_started");
    expect(started).toHaveLength(2);
  });

  it("is given the thread, its state, the prepared input and the pending interrupts; throwing refuses the run and writes nothing", async () => {
    const store = new MemoryStateStore();
    const seen: NewInputOnThread[] = [];
    const refusal = new ValueError("not now");
    const g = asking(store, (run) => {
      seen.push(run);
      if (run.interrupts.length > 0) throw refusal;
    });
    expect((await g.invoke({ notes: ["a"] }, { threadId: "t" })).status).toBe("interrupted");
    // Not called for a new thread.
    expect(seen).toEqual([]);
    const before = await g.history("t");
    await expect(g.invoke({ notes: ["b"] }, { threadId: "t" })).rejects.toBe(refusal);
    expect(seen).toEqual([
      {
        graph: "asker",
        threadId: "t",
        branchId: "main",
        state: { notes: ["a"] },
        input: { notes: ["b"] },
        interrupts: [{ key: "ok", value: "go on?", node: "ask", taskId: "0:0" }],
        next: ["ask"],
        rolledBack: [],
        events: expect.any(Function),
      },
    ]);
    // A new graph object and store view: the same events, the same interrupt.
    const cold = asking(store);
    expect(await cold.history("t")).toEqual(before);
    expect((await cold.getState("t")).interrupts.map((i) => [i.key, i.value])).toEqual([
      ["ok", "go on?"],
    ]);
    // Not called when continuing: the answer goes through.
    const done = await g.invoke(null, { threadId: "t", resume: { ok: "yes" } });
    expect([done.status, done.state.notes]).toEqual(["completed", ["a", "ok=yes"]]);
    expect(seen).toHaveLength(1);
  });

  it("gives events(): the branch as the store holds it while the check runs", async () => {
    const store = new MemoryStateStore();
    const read: (readonly unknown[])[] = [];
    const g = asking(store, async (run) => {
      // (Read while the check runs: the run's store may be closed once the call has ended.)
      read.push(await run.events());
      throw new ValueError("not now");
    });
    await g.invoke({ notes: ["a"] }, { threadId: "t" });
    const before = await g.history("t");
    await expect(g.invoke({ notes: ["b"] }, { threadId: "t" })).rejects.toThrow(
      new ValueError("not now"),
    );
    // Nothing of the refused run: the events as they were.
    expect(read).toEqual([before]);
    expect(await g.history("t")).toEqual(before);
  });

  it("is not called for a Command; a rejected promise refuses as a throw does", async () => {
    const store = new MemoryStateStore();
    let calls = 0;
    const g = asking(store, async () => {
      calls++;
      throw new ValueError("refused later");
    });
    await g.invoke({ notes: ["a"] }, { threadId: "t" });
    const before = await g.history("t");
    await expect(g.invoke({ notes: ["b"] }, { threadId: "t" })).rejects.toThrow(
      new ValueError("refused later"),
    );
    expect(await g.history("t")).toEqual(before);
    const r = await g.invoke(new Command({ resume: { ok: "fine" } }), { threadId: "t" });
    expect([r.status, r.state.notes, calls]).toEqual(["completed", ["a", "ok=fine"], 1]);
    // A run without a thread has no thread to check.
    expect((await asking(store, g.checkInput!).invoke({ notes: ["x"] })).status).toBe(
      "interrupted",
    );
    expect(calls).toBe(1);
  });

  it("refuses a checkInput that is not a function", () => {
    expect(() => new Graph(S, { checkInput: 5 as unknown as NewInputCheck })).toThrow(
      new TypeError(
        'Graph "graph": checkInput must be a function ({ threadId, state, input, interrupts }) => void, got a number (5)',
      ),
    );
  });

  it("with onBusy rollback: the rollback is written first and stays; the check sees the rolled-back thread and is told the runs undone", async () => {
    const L = defineState({
      log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
    });
    let enter!: () => void;
    const entered = new Promise<void>((r) => {
      enter = r;
    });
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const one = node(
      async (s: typeof L.State) => {
        if (s.log.includes("a")) {
          enter();
          await released;
        }
        return { log: ["one"] };
      },
      { name: "one" },
    );
    const two = node(() => ({ log: ["two"] }), { name: "two" });
    const seen: unknown[] = [];
    const store = new MemoryStateStore();
    const g = new Graph(L, {
      name: "busy",
      stateStore: store,
      checkInput: ({ state, input, rolledBack }) => {
        seen.push([state, input, [...rolledBack]]);
        if ((input.log as string[]).includes("b")) throw new ValueError("no b");
      },
    }).flow(START.to(one), one.to(two), two.to(END));
    await g.invoke({ log: ["z"] }, { threadId: "t" });
    const first = g.invoke({ log: ["a"] }, { threadId: "t" }).catch((e: unknown) => e);
    await entered;
    const second = g
      .invoke({ log: ["b"] }, { threadId: "t", onBusy: "rollback" })
      .catch((e: unknown) => e);
    // Wait for the stop request on the first run, then let it finish its superstep.
    const firstId = (await store.read("t", "main")).findLast(
      (e) => e.type === "run_started",
    )!.runId;
    while ((await store.stopRequested("t", "main", firstId)) === null)
      await new Promise((r) => setTimeout(r, 5));
    release();
    const [stopped, refused] = await Promise.all([first, second]);
    expect(stopped).toBeInstanceOf(RunStoppedError);
    expect(refused).toEqual(new ValueError("no b"));
    expect(seen.at(-1)).toEqual([{ log: ["z", "one", "two"] }, { log: ["b"] }, [firstId]]);
    const events = await g.history("t");
    expect(events.map((e) => e.type)).toEqual([
      "run_started",
      "step_committed",
      "step_committed",
      "run_finished",
      "run_started",
      "step_committed",
      "run_finished",
      "rolled_back",
    ]);
    // The refused run wrote the rollback and nothing else; a new graph reads the same thread.
    expect(new Set(events.slice(4, 7).map((e) => e.runId))).toEqual(new Set([firstId]));
    expect(events[7]!.runId).not.toBe(firstId);
    expect(events[7]!.data).toMatchObject({ runs: [firstId], toEventId: events[3]!.id });
    const cold = new Graph(L, { name: "busy", stateStore: store }).flow(
      START.to(one),
      one.to(two),
      two.to(END),
    );
    for (const graph of [g, cold])
      expect((await graph.getState("t")).state).toEqual({ log: ["z", "one", "two"] });
    // The input the check refused goes in once the check takes it.
    seen.length = 0;
    const r = await g.invoke({ log: ["c"] }, { threadId: "t" });
    expect(r.state).toEqual({ log: ["z", "one", "two", "c", "one", "two"] });
    expect(seen).toEqual([[{ log: ["z", "one", "two"] }, { log: ["c"] }, []]]);
  });

  it("is given the thread's state, the input and the interrupts read only: a change is refused, the thread's warm state stays what its events give", async () => {
    const store = new MemoryStateStore();
    const tries: unknown[] = [];
    const attempt = (f: () => void) => {
      try {
        f();
        tries.push("changed");
      } catch (e) {
        tries.push(e);
      }
    };
    const g = asking(store, (run) => {
      const st = run.state as { notes: string[] };
      attempt(() => st.notes.push("hacked"));
      attempt(() => {
        (run.state as Record<string, unknown>).other = 1;
      });
      attempt(() => {
        delete (run.input as Record<string, unknown>).notes;
      });
      attempt(() => {
        (run.interrupts[0] as { key: string }).key = "other";
      });
      // Reading goes on as before: the same object each time, its values as they are.
      const notes = st.notes;
      tries.push(notes === st.notes, [...st.notes], Array.isArray(st.notes));
      throw new ValueError("no");
    });
    await g.invoke({ notes: ["a"] }, { threadId: "t" });
    await expect(g.invoke({ notes: ["b"] }, { threadId: "t" })).rejects.toThrow(
      new ValueError("no"),
    );
    const refused = (what: string) =>
      new TypeError(
        `Graph "asker": checkInput is given the thread's state, the input and the interrupts read only; it cannot ${what}`,
      );
    expect(tries).toEqual([
      refused('set "1"'),
      refused('set "other"'),
      refused('delete "notes"'),
      refused('set "key"'),
      true,
      ["a"],
      true,
    ]);
    const warm = await g.getState("t");
    const cold = await asking(store).getState("t");
    expect(warm.state).toEqual({ notes: ["a"] });
    expect(cold.state).toEqual(warm.state);
    expect(warm.interrupts.map((i) => i.key)).toEqual(["ok"]);
    expect(cold.interrupts.map((i) => i.key)).toEqual(["ok"]);
  });

  it("only nodestep's own reading check is given the objects without views; a user's check gets views", async () => {
    expect(readsOnly(refuseInputAfterOpenCalls)).toBe(true);
    const user: NewInputCheck = () => {};
    expect(readsOnly(user)).toBe(false);
    const seen: boolean[] = [];
    const store = new MemoryStateStore();
    const a = node(() => ({}), { name: "a" });
    const g = new Graph(S, {
      stateStore: store,
      checkInput: (run) => {
        seen.push(Object.isFrozen(run.state));
        expect(() => {
          (run.state as Record<string, unknown>).x = 1;
        }).toThrow(TypeError);
      },
    }).flow(START.to(a), a.to(END));
    await g.invoke({}, { threadId: "t" });
    await g.invoke({}, { threadId: "t" });
    expect(seen).toEqual([false]);
  });

  it("a run whose signal fired while its check was pending writes nothing: RunCancelledError, the thread as before", async () => {
    const store = new MemoryStateStore();
    const ac = new AbortController();
    const g = asking(store, async () => {
      ac.abort(new Error("client gone"));
      await new Promise((r) => setTimeout(r, 5));
    });
    expect((await g.invoke({ notes: ["a"] }, { threadId: "t" })).status).toBe("interrupted");
    const before = await g.history("t");
    const e = await g
      .invoke({ notes: ["b"] }, { threadId: "t", signal: ac.signal })
      .catch((x: unknown) => x);
    expect(e).toEqual(
      new RunCancelledError(
        'The run of graph "asker" was cancelled before it started on thread "t" (branch "main"); nothing of it was written',
        { graph: "asker" },
      ),
    );
    expect((e as RunCancelledError).cause).toEqual(new Error("client gone"));
    expect(await g.history("t")).toEqual(before);
    const snap = await asking(store).getState("t");
    expect([snap.state.notes, snap.interrupts.map((i) => i.key)]).toEqual([["a"], ["ok"]]);
  });
});
