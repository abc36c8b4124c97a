import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught, expectError } from "../../test/helpers.js";
import {
  GraphConfigError,
  GraphExecutionError,
  StateStoreError,
  StateUpdateError,
  ThreadBusyError,
  UnknownBranchError,
  ValueError,
} from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";

const State = defineState({
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type S = typeof State.State;

describe("threads", () => {
  it("continues a thread across invokes and reads its state and history", async () => {
    const store = new MemoryStateStore();
    const inc = node(() => ({ count: 1 }), { name: "inc" });
    const g = new Graph(State, { stateStore: store }).flow(START.to(inc), inc.to(END));
    await g.invoke({ log: ["a"] }, { threadId: "t1" });
    const r = await g.invoke({ log: ["b"] }, { threadId: "t1" });
    expect(r.state).toEqual({ count: 2, log: ["a", "b"] });
    expect(r.threadId).toBe("t1");
    const s = await g.getState("t1");
    expect(s.state).toEqual({ count: 2, log: ["a", "b"] });
    expect(s.next).toEqual([]);
    expect(s.status).toBe("completed");
    const types = (await g.history("t1")).map((e) => e.type);
    // A single-task superstep writes its task's result inside its commit.
    expect(types).toEqual([
      "run_started",
      "step_committed",
      "run_finished",
      "run_started",
      "step_committed",
      "run_finished",
    ]);
  });

  it("rebuilds the same state from the log in a fresh graph (no process cache)", async () => {
    const store = new MemoryStateStore();
    const inc = node(() => ({ count: 1, log: ["x"] }), { name: "inc" });
    const build = () => new Graph(State, { stateStore: store }).flow(START.to(inc), inc.to(END));
    for (let i = 0; i < 3; i++) await build().invoke({ count: 10 }, { threadId: "t" });
    expect((await build().getState("t")).state).toEqual({ count: 33, log: ["x", "x", "x"] });
  });

  it("never stores the run's context", async () => {
    const store = new MemoryStateStore();
    const n = node((_s: S, ctx) => ({ count: (ctx.context as { n: number }).n }), { name: "n" });
    const g = new Graph(State, { stateStore: store }).flow(START.to(n), n.to(END));
    await g.invoke({}, { threadId: "t", context: { n: 5, secret: "hunter2" } });
    expect(JSON.stringify(await g.history("t"))).not.toContain("hunter2");
  });

  it("needs a state store for a thread, and a history to continue", async () => {
    const n = node(() => ({}), { name: "n" });
    await expectError(
      () => new Graph(State).flow(START.to(n), n.to(END)).invoke({}, { threadId: "t" }),
      GraphConfigError,
      'Graph "graph" was run with threadId "t" but has no stateStore; threads need one (new Graph(State, { stateStore }))',
    );
    const g = new Graph(State, { stateStore: new MemoryStateStore() }).flow(START.to(n), n.to(END));
    await expectError(
      () => g.invoke(null, { threadId: "nope" }),
      UnknownBranchError,
      'Thread "nope" (branch "main") has no history to continue; start it with an input',
    );
  });

  it("refuses a second run on a busy thread at once, and runs other threads in parallel", async () => {
    const store = new MemoryStateStore();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let entered!: () => void;
    const inside = new Promise<void>((r) => {
      entered = r;
    });
    const slow = node(
      async () => {
        entered();
        await gate;
        return { count: 1 };
      },
      { name: "slow" },
    );
    const g = new Graph(State, { stateStore: store }).flow(START.to(slow), slow.to(END));
    const first = g.invoke({}, { threadId: "busy" });
    // The first run holds the lease once its node runs (however long its store took to answer).
    await inside;
    await expectError(
      () => g.invoke({}, { threadId: "busy" }),
      ThreadBusyError,
      'Thread "busy" (branch "main") is already running; graph "graph" cannot start a second run on it until the first ends (or its lease of 30000 ms expires); pass onBusy: "enqueue" to wait for it, "interrupt" to stop it or "rollback" to undo it (docs/busy-threads.md)',
    );
    const other = g.invoke({}, { threadId: "other" });
    release();
    expect((await first).state.count).toBe(1);
    expect((await other).state.count).toBe(1);
    expect((await g.invoke({}, { threadId: "busy" })).state.count).toBe(2);
  });

  it("leaves the history as it was before a failed step, and re-runs only the unfinished task", async () => {
    const store = new MemoryStateStore();
    let okRuns = 0;
    let fail = true;
    const ok = node(
      () => {
        okRuns++;
        return { log: ["ok"] };
      },
      { name: "ok" },
    );
    const flaky = node(
      async () => {
        await new Promise((r) => setTimeout(r, 5));
        if (fail) throw new Error("flaky failed");
        return { log: ["flaky"] };
      },
      { name: "flaky" },
    );
    const g = new Graph(State, { stateStore: store }).flow(
      START.to([ok, flaky]),
      ok.to(END),
      flaky.to(END),
    );
    const e = await caught(() => g.invoke({ count: 1 }, { threadId: "t" }));
    expect(e.message).toBe("flaky failed");
    const after = await g.getState("t");
    expect(after.state).toEqual({ count: 1, log: [] });
    expect(after.next).toEqual(["ok", "flaky"]);
    expect(after.status).toBe("failed");
    fail = false;
    const r = await g.invoke(null, { threadId: "t" });
    expect(r.state).toEqual({ count: 1, log: ["ok", "flaky"] });
    expect(okRuns).toBe(1);
  });
});

describe("interrupts and resume", () => {
  it("pauses, resumes with the answer, keeps the task's cache, and never re-runs finished tasks", async () => {
    const store = new MemoryStateStore();
    let askRuns = 0;
    let otherRuns = 0;
    const ask = node(
      (_s: S, ctx) => {
        askRuns++;
        ctx.cache.prepared ??= `prepared on run ${askRuns}`;
        const answer = ctx.interrupt({ question: "go?" }, { key: "approve" });
        return { log: [`answer=${String(answer)}`, String(ctx.cache.prepared)] };
      },
      { name: "ask" },
    );
    const other = node(
      () => {
        otherRuns++;
        return { count: 1 };
      },
      { name: "other" },
    );
    const g = new Graph(State, { stateStore: store }).flow(
      START.to([ask, other]),
      ask.to(END),
      other.to(END),
    );
    const paused = await g.invoke({}, { threadId: "t" });
    expect(paused.status).toBe("interrupted");
    expect(paused.interrupts).toEqual([
      { key: "approve", value: { question: "go?" }, node: "ask", taskId: "0:0" },
    ]);
    expect(paused.state).toEqual({ count: 0, log: [] });
    expect((await g.getState("t")).interrupts).toEqual(paused.interrupts);
    await expectError(
      () => g.invoke(null, { threadId: "t", resume: { nope: 1 } }),
      ValueError,
      'Thread "t" has no pending interrupt with key "nope"; pending: approve',
    );
    const done = await g.invoke(null, { threadId: "t", resume: { approve: "yes" } });
    expect(done.status).toBe("completed");
    expect(done.state).toEqual({ count: 1, log: ["answer=yes", "prepared on run 1"] });
    expect(askRuns).toBe(2);
    expect(otherRuns).toBe(1);
  });

  it("gives each parallel task its own key and answer; a node that interrupts twice pauses twice", async () => {
    const store = new MemoryStateStore();
    const twice = node(
      (_s: S, ctx) => {
        const a = ctx.interrupt("first?");
        const b = ctx.interrupt("second?");
        return { log: [`twice:${a}${b}`] };
      },
      { name: "twice" },
    );
    const once = node((_s: S, ctx) => ({ log: [`once:${ctx.interrupt("only?")}`] }), {
      name: "once",
    });
    const g = new Graph(State, { stateStore: store }).flow(
      START.to([twice, once]),
      twice.to(END),
      once.to(END),
    );
    const p1 = await g.invoke({}, { threadId: "t" });
    expect(p1.interrupts.map((i) => [i.key, i.value])).toEqual([
      ["0:0#0", "first?"],
      ["0:1#0", "only?"],
    ]);
    const p2 = await g.invoke(null, { threadId: "t", resume: { "0:0#0": "A", "0:1#0": "C" } });
    expect(p2.status).toBe("interrupted");
    expect(p2.interrupts.map((i) => [i.key, i.value])).toEqual([["0:0#1", "second?"]]);
    const done = await g.invoke(null, { threadId: "t", resume: { "0:0#1": "B" } });
    expect(done.state.log).toEqual(["twice:AB", "once:C"]);
  });

  it("pauses without a store too, but cannot be resumed", async () => {
    const ask = node((_s: S, ctx) => ({ log: [String(ctx.interrupt("q"))] }), { name: "ask" });
    const g = new Graph(State).flow(START.to(ask), ask.to(END));
    const r = await g.invoke({});
    expect(r.status).toBe("interrupted");
    expect(r.interrupts).toEqual([{ key: "0:0#0", value: "q", node: "ask", taskId: "0:0" }]);
  });
});

describe("time travel", () => {
  it("forks a thread at an event and runs on the branch without touching main", async () => {
    const store = new MemoryStateStore();
    const add = node(() => ({ count: 1 }), { name: "add" });
    const g = new Graph(State, { stateStore: store }).flow(START.to(add), add.to(END));
    await g.invoke({ log: ["one"] }, { threadId: "t" });
    await g.invoke({ log: ["two"] }, { threadId: "t" });
    const events = await g.history("t");
    const endOfFirstRun = events.filter((e) => e.type === "run_finished")[0]!;
    const branch = await g.fork("t", { eventId: endOfFirstRun.id });
    expect((await g.getState("t", { branchId: branch.branchId })).state).toEqual({
      count: 1,
      log: ["one"],
    });
    const r = await g.invoke({ log: ["other"] }, { threadId: "t", branchId: branch.branchId });
    expect(r.state).toEqual({ count: 2, log: ["one", "other"] });
    expect((await g.getState("t")).state).toEqual({ count: 2, log: ["one", "two"] });
    expect((await g.getState("t", { eventId: endOfFirstRun.id })).state).toEqual({
      count: 1,
      log: ["one"],
    });
  });

  it("a fork made inside a run reads as a stopped run (interrupted, next set), not running, and runs on", async () => {
    const store = new MemoryStateStore();
    const a = node(() => ({ log: ["a"] }), { name: "a" });
    const b = node(() => ({ log: ["b"] }), { name: "b" });
    const c = node(() => ({ log: ["c"] }), { name: "c" });
    const g = new Graph(State, { stateStore: store }).flow(
      START.to(a),
      a.to(b),
      b.to(c),
      c.to(END),
    );
    await g.invoke({ count: 1 }, { threadId: "t" });
    const events = await g.history("t");
    const firstCommit = events.find((e) => e.type === "step_committed")!;
    expect(firstCommit.id).toBe("t/main/2");
    const branch = await g.fork("t", { eventId: firstCommit.id });
    const forked = await g.getState("t", { branchId: branch.branchId });
    expect(forked).toEqual({
      state: { count: 1, log: ["a"] },
      step: 1,
      next: ["b"],
      interrupts: [],
      status: "interrupted",
      lastEventId: "t/main/2",
      breakpoint: null,
    });
    // Read at the same event on main, the run was still going there.
    expect((await g.getState("t", { eventId: firstCommit.id })).status).toBe("running");
    expect((await g.getState("t")).status).toBe("completed");
    const r = await g.invoke(null, { threadId: "t", branchId: branch.branchId });
    expect(r.state).toEqual({ count: 1, log: ["a", "b", "c"] });
    const after = await g.getState("t", { branchId: branch.branchId });
    expect([after.status, after.next]).toEqual(["completed", []]);
  });
});

describe("leases", () => {
  it("keeps the lease through a step longer than its time to live", async () => {
    const store = new MemoryStateStore();
    // Watch the renewals (on the instance: the cold mode keeps such a store for every call).
    const renew = store.renewLease.bind(store);
    let enteredAt = Number.POSITIVE_INFINITY;
    let renewedLate!: () => void;
    const longEnough = new Promise<void>((r) => {
      renewedLate = r;
    });
    store.renewLease = async (...args) => {
      const held = await renew(...args);
      // A renewal answered more than a time to live after the step began.
      if (held && performance.now() - enteredAt > 100) renewedLate();
      return held;
    };
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const slow = node(
      async () => {
        enteredAt = performance.now();
        await released;
        return { count: 1 };
      },
      { name: "slow" },
    );
    // A lease of 100 ms: long enough for a new PostgreSQL connection of the cold mode to answer.
    const g = new Graph(State, { stateStore: store, leaseTtlMs: 100 }).flow(
      START.to(slow),
      slow.to(END),
    );
    const first = g.invoke({}, { threadId: "long" });
    // Past the time to live, right after a renewal: only renewals kept the lease.
    await longEnough;
    await expectError(
      () => g.invoke({}, { threadId: "long" }),
      ThreadBusyError,
      'Thread "long" (branch "main") is already running; graph "graph" cannot start a second run on it until the first ends (or its lease of 100 ms expires); pass onBusy: "enqueue" to wait for it, "interrupt" to stop it or "rollback" to undo it (docs/busy-threads.md)',
    );
    release();
    expect((await first).state.count).toBe(1);
  });
});

describe("failures that must not leave a thread stuck", () => {
  it("drops a task's result that a reducer refused, so continuing the thread runs the task again", async () => {
    const store = new MemoryStateStore();
    const Strict = defineState({
      total: reducer(z.number().default(0), (a: number, b: number) => {
        if (b < 0) throw new RangeError("negative");
        return a + b;
      }),
    });
    let value = -1;
    const add = node(() => ({ total: value }), { name: "add" });
    const other = node(() => ({ total: 1 }), { name: "other" });
    const g = new Graph(Strict, { stateStore: store }).flow(
      START.to([add, other]),
      add.to(END),
      other.to(END),
    );
    await expectError(
      () => g.invoke({}, { threadId: "r" }),
      StateUpdateError,
      'Reducer of state field "total" failed on the update of node "add": negative',
    );
    value = 5;
    expect((await g.invoke(null, { threadId: "r" })).state.total).toBe(6);
  });

  it("refuses an interrupt value that is not JSON, naming the node and the key, and records the failure", async () => {
    const store = new MemoryStateStore();
    const ask = node(
      (_s: S, ctx) => {
        ctx.interrupt(new Date(0) as never, { key: "when" });
      },
      { name: "ask" },
    );
    const g = new Graph(State, { stateStore: store }).flow(START.to(ask), ask.to(END));
    await expectError(
      () => g.invoke({}, { threadId: "i" }),
      StateStoreError,
      'Node "ask": the value of interrupt "when" is not JSON (value: a Date instance is not plain JSON data)',
    );
    expect((await g.getState("i")).status).toBe("failed");
  });

  it("wraps a thrown value that is not an Error, naming the node", async () => {
    const bad = node(
      () => {
        throw "boom";
      },
      { name: "bad" },
    );
    const e = await expectError(
      () => new Graph(State).flow(START.to(bad), bad.to(END)).invoke({}),
      GraphExecutionError,
      'Node "bad" of graph "graph" threw a string (boom), not an Error; it is kept as the cause',
    );
    expect(e.cause).toBe("boom");
  });

  it("checks run options", async () => {
    const n = node(() => ({}), { name: "n" });
    const g = new Graph(State).flow(START.to(n), n.to(END));
    await expectError(
      () => g.invoke({}, { maxSteps: Number.NaN }),
      ValueError,
      'Graph "graph": maxSteps must be a positive integer, got NaN',
    );
    await expectError(
      () => g.invoke({}, { signal: {} as never }),
      TypeError,
      'Graph "graph": signal must be an AbortSignal',
    );
    await expectError(
      () => g.invoke({}, null as never),
      TypeError,
      'Graph "graph": run options must be an object, got null',
    );
    const store = new MemoryStateStore();
    const gs = new Graph(State, { stateStore: store }).flow(START.to(n), n.to(END));
    await expectError(
      () => gs.invoke({}, { threadId: "x\u0000y" }),
      StateStoreError,
      'A thread id must be well-formed text without NUL characters or lone surrogates, got "x\\u0000y"',
    );
  });
});

describe("argument checks", () => {
  it("refuses a stateStore that is not a store, fork without an event id, and a state shape that is not an object", async () => {
    await expectError(
      () => new Graph(State, { stateStore: {} as never }),
      TypeError,
      'Graph "graph": stateStore must be a StateStore (MemoryStateStore, SqliteStateStore, PostgresStateStore or your own)',
    );
    const n = node(() => ({}), { name: "n" });
    const g = new Graph(State, { stateStore: new MemoryStateStore() }).flow(START.to(n), n.to(END));
    await expectError(
      () => g.fork("t", {} as never),
      TypeError,
      'Graph "graph": fork(threadId, { eventId }) needs the id of an event of the thread (see graph.history)',
    );
    await expectError(
      () => defineState(null as never),
      TypeError,
      "defineState(shape): shape must be an object of field name → zod schema or reducer(schema, fn)",
    );
  });
});
