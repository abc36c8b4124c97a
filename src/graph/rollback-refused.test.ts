/**
 * `onBusy: "rollback"` whose run is refused after it took the thread (not by `checkInput`):
 * the `rolled_back` event is the run's first write and stays, and the refusal is about the
 * thread as rolled back (a resume key: the keys pending after the rollback are named, and
 * answering one of them works). Resume answers with new input, and new input (or a `Command`'s
 * update) the state schema refuses, are refused before the run asks for the thread, with the
 * same error whatever `onBusy`; the schema reads the input once. `check-input.test.ts` covers a
 * `checkInput` refusal.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { RunStoppedError, ValueError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { Command, END } from "./routing.js";

const L = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

it("a resume key refused after the rollback: the rollback stays, the error names the keys pending after it, and answering one works", async () => {
  let enter!: () => void;
  const entered = new Promise<void>((r) => {
    enter = r;
  });
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  // ask pauses on "ok"; answered, it is held the first time (the resume's first superstep,
  // whose commit asks for a stop request), then work runs and the run ends.
  let held = true;
  const ask = node(
    async (_s: typeof L.State, ctx) => {
      const answer = ctx.interrupt("go on?", { key: "ok" });
      if (held) {
        held = false;
        enter();
        await released;
      }
      return { log: [`ok=${String(answer)}`] };
    },
    { name: "ask" },
  );
  const work = node(() => ({ log: ["work"] }), { name: "work" });
  const store = new MemoryStateStore();
  const make = () =>
    new Graph(L, { name: "asker", stateStore: store }).flow(
      START.to(ask),
      ask.to(work),
      work.to(END),
    );
  const g = make();
  expect((await g.invoke({ log: ["a"] }, { threadId: "t" })).status).toBe("interrupted");
  const paused = await g.history("t");
  const resume = g.invoke(null, { threadId: "t", resume: { ok: "yes" } }).catch((e: unknown) => e);
  await entered;
  const resumeId = (await store.read("t", "main")).findLast((e) => e.type === "run_started")!.runId;
  const second = make()
    .invoke(null, { threadId: "t", resume: { nope: 1 }, onBusy: "rollback" })
    .catch((e: unknown) => e);
  while ((await store.stopRequested("t", "main", resumeId)) === null)
    await new Promise((r) => setTimeout(r, 5));
  release();
  const [stopped, refused] = await Promise.all([resume, second]);
  expect(stopped).toBeInstanceOf(RunStoppedError);
  // The resume had answered "ok"; rolled back, "ok" is pending again, and the error says so.
  expect(refused).toEqual(
    new ValueError('Thread "t" has no pending interrupt with key "nope"; pending: ok'),
  );
  const events = await make().history("t");
  expect(events.slice(0, paused.length)).toEqual(paused);
  expect(events.slice(paused.length).map((e) => [e.type, e.runId === resumeId])).toEqual([
    ["run_started", true],
    ["step_committed", true],
    ["run_finished", true],
    ["rolled_back", false],
  ]);
  const snap = await make().getState("t");
  expect([snap.state.log, snap.interrupts.map((i) => i.key), snap.next]).toEqual([
    ["a"],
    ["ok"],
    ["ask"],
  ]);
  const done = await make().invoke(null, { threadId: "t", resume: { ok: "again" } });
  expect([done.status, done.state.log]).toEqual(["completed", ["a", "ok=again", "work"]]);
});

/**
 * A thread whose run is held inside its first node: each refused call (made while it is held)
 * must leave it unasked (no stop request) and let it end as it would have.
 */
async function whileBusy(refusals: (g: Graph<typeof L>) => Promise<void>): Promise<void> {
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
  const store = new MemoryStateStore();
  const g = new Graph(L, { name: "busy", stateStore: store }).flow(
    START.to(one),
    one.to(two),
    two.to(END),
  );
  const first = g.invoke({ log: ["a"] }, { threadId: "t" });
  await entered;
  const firstId = (await store.read("t", "main")).findLast((e) => e.type === "run_started")!.runId;
  await refusals(g);
  expect(await store.stopRequested("t", "main", firstId)).toBeNull();
  release();
  expect((await first).state).toEqual({ log: ["a", "one", "two"] });
  expect((await g.history("t")).map((e) => e.type)).toEqual([
    "run_started",
    "step_committed",
    "step_committed",
    "run_finished",
  ]);
}

it("resume answers with new input are refused before the run asks for the thread: onBusy stops nothing and rolls nothing back", async () => {
  await whileBusy(async (g) => {
    for (const onBusy of ["interrupt", "rollback"] as const) {
      await expect(
        g.invoke({ log: ["b"] }, { threadId: "t", resume: { k: 1 }, onBusy }),
      ).rejects.toEqual(
        new ValueError(
          'Graph "busy": resume answers go with invoke(null, { threadId, resume }), not with new input',
        ),
      );
    }
  });
});

it("new input its state schema refuses is refused before the run asks for the thread: onBusy stops nothing, rolls nothing back, waits for nothing", async () => {
  await whileBusy(async (g) => {
    const errors: unknown[] = [];
    for (const onBusy of ["enqueue", "interrupt", "rollback"] as const) {
      errors.push(
        // (Before, these waited for the running run to end or stop, up to onBusyTimeoutMs,
        // and then failed: the running run stopped, or undone, for nothing.)
        await g
          .invoke({ log: "b" } as unknown as typeof L.State, { threadId: "t", onBusy })
          .catch((e: unknown) => e),
      );
    }
    const refused = [
      "StateUpdateError",
      'Invalid update for state field "log" written by the run input: Invalid input: expected array, received string',
    ];
    expect(errors.map((e) => [(e as Error).constructor.name, (e as Error).message])).toEqual([
      refused,
      refused,
      refused,
    ]);
  });
});

it("new input its state schema refuses gets the same error whatever onBusy, reject (the default) included, on a busy thread or a branch that does not exist", async () => {
  const refused = [
    "StateUpdateError",
    'Invalid update for state field "log" written by the run input: Invalid input: expected array, received string',
  ];
  const bad = { log: "b" } as unknown as typeof L.State;
  await whileBusy(async (g) => {
    const errors: unknown[] = [];
    // (Before, these failed with ThreadBusyError: retried once the thread was free, they
    // failed again, with the StateUpdateError.)
    for (const options of [{}, { onBusy: "reject" as const }]) {
      errors.push(await g.invoke(bad, { threadId: "t", ...options }).catch((e: unknown) => e));
    }
    // (Before, without onBusy this was UnknownBranchError, with onBusy the StateUpdateError.)
    for (const options of [{}, { onBusy: "enqueue" as const }]) {
      errors.push(
        await g
          .invoke(bad, { threadId: "t", branchId: "nope", ...options })
          .catch((e: unknown) => e),
      );
    }
    expect(errors.map((e) => [(e as Error).constructor.name, (e as Error).message])).toEqual([
      refused,
      refused,
      refused,
      refused,
    ]);
  });
});

it("new input is read by the state schema once, with onBusy as without", async () => {
  let reads = 0;
  const T = defineState({
    word: z
      .string()
      .transform((w) => {
        reads++;
        return w.toUpperCase();
      })
      .optional(),
  });
  const echo = node(() => ({}), { name: "echo" });
  const g = new Graph(T, { name: "once", stateStore: new MemoryStateStore() }).flow(
    START.to(echo),
    echo.to(END),
  );
  const counts: number[] = [];
  for (const options of [{}, { onBusy: "enqueue" as const }, { onBusy: "rollback" as const }]) {
    reads = 0;
    const r = await g.invoke({ word: "hi" }, { threadId: "t", ...options });
    counts.push(reads);
    expect(r.state).toEqual({ word: "HI" });
  }
  // (Before, onBusy "enqueue" and "rollback" read it twice: once before the run asked for the
  // thread, once after.)
  expect(counts).toEqual([1, 1, 1]);
});

it("a Command's update its state schema refuses is refused before the run asks for the thread, whatever onBusy: nothing stopped, undone or waited for", async () => {
  await whileBusy(async (g) => {
    const errors: unknown[] = [];
    // (Before, "interrupt" asked the running run to stop and waited out onBusyTimeoutMs,
    // failing with ThreadBusyError; "reject" failed with ThreadBusyError.)
    for (const onBusy of ["reject", "enqueue", "interrupt", "rollback"] as const) {
      errors.push(
        await g
          .invoke(new Command({ update: { log: "x" } }) as unknown as typeof L.State, {
            threadId: "t",
            onBusy,
            ...(onBusy === "reject" ? {} : { onBusyTimeoutMs: 50 }),
          })
          .catch((e: unknown) => e),
      );
    }
    const refused = [
      "StateUpdateError",
      'Invalid update for state field "log" written by the Command\'s update: Invalid input: expected array, received string',
    ];
    expect(errors.map((e) => [(e as Error).constructor.name, (e as Error).message])).toEqual([
      refused,
      refused,
      refused,
      refused,
    ]);
  });
});
