/**
 * Issue 17, item 4: busy-thread policies ("double texting"). Two runs on one thread, from two
 * graph objects over two store handles (for SQLite and PostgreSQL, two connections to one
 * file or schema, as two processes would have): `reject`, `enqueue` (and its time limit),
 * `interrupt` and `rollback`, with the thread's final state and history asserted exactly,
 * and the rolled-back thread read again cold. On every store.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  GraphConfigError,
  RunCancelledError,
  RunStoppedError,
  ThreadBusyError,
} from "../../src/errors/index.js";
import { Graph, node, START } from "../../src/graph/index.js";
import { END, when } from "../../src/graph/routing.js";
import { PostgresStateStore } from "../../src/integrations/postgres/index.js";
import { SqliteStateStore } from "../../src/integrations/sqlite/index.js";
import { defineState, reducer } from "../../src/state/define-state.js";
import { MemoryStateStore } from "../../src/stores/memory-state-store.js";
import type { StateStore, StoredEvent } from "../../src/stores/types.js";
import { caught, expectError, type Gate, gate } from "../helpers.js";
import { SOURCE_LOADER } from "../source-loader.js";
import { describeStores, newSchema, newSqlitePath } from "./stores.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

/**
 * `one` → `two` → END; the `one` of the run numbered `n` (0, 1, …, counted over every graph
 * made here) waits at `gates[n]` when there is one.
 */
function setup(gates: Record<number, Gate>) {
  let calls = 0;
  const one = node(
    async () => {
      const g = gates[calls++];
      if (g) await g.wait();
      return { log: ["one"] };
    },
    { name: "one" },
  );
  const two = node(() => ({ log: ["two"] }), { name: "two" });
  const make = (store: StateStore) =>
    new Graph(State, { name: "busy", stateStore: store }).flow(
      START.to(one),
      one.to(two),
      two.to(END),
    );
  return make;
}

/** The events of a branch as `[type, runId label, step]`, runs named by `labels`. */
function shape(events: readonly StoredEvent[], labels: Record<string, string>) {
  return events.map((e) => [e.type, labels[e.runId] ?? e.runId, e.step]);
}

/** The run id of the last `run_started` on the thread. */
async function runningId(store: StateStore, threadId: string): Promise<string> {
  const events = await store.read(threadId, "main");
  return events.findLast((e) => e.type === "run_started")!.runId;
}

/** Wait until someone asked `owner` to stop (polling the store). */
async function stopAsked(store: StateStore, threadId: string, owner: string): Promise<string> {
  for (let i = 0; i < 2000; i++) {
    const by = await store.stopRequested!(threadId, "main", owner);
    if (by !== null) return by;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error("no stop request came");
}

describeStores("busy threads", (fx) => {
  it("reject (the default): the second run fails at once with ThreadBusyError; the first finishes", async () => {
    const gates = { 0: gate() };
    const make = setup(gates);
    const store = await fx.open();
    const other = await fx.reopen(store);
    const first = make(store).invoke({ log: ["a"] }, { threadId: "t" });
    await gates[0].entered;
    for (const onBusy of [undefined, "reject"] as const) {
      await expectError(
        () => make(other).invoke({ log: ["b"] }, { threadId: "t", ...(onBusy ? { onBusy } : {}) }),
        ThreadBusyError,
        'Thread "t" (branch "main") is already running; graph "busy" cannot start a second run on it until the first ends (or its lease of 30000 ms expires); pass onBusy: "enqueue" to wait for it, "interrupt" to stop it or "rollback" to undo it (docs/busy-threads.md)',
      );
    }
    gates[0].open();
    const a = await first;
    expect(a.state).toEqual({ log: ["a", "one", "two"] });
    const events = await make(other).history("t");
    expect(shape(events, { [a.runId]: "A" })).toEqual([
      ["run_started", "A", 0],
      ["step_committed", "A", 0],
      ["step_committed", "A", 1],
      ["run_finished", "A", 2],
    ]);
  });

  it("enqueue: the second run waits for the first to end, then runs after it", async () => {
    const gates = { 0: gate() };
    const make = setup(gates);
    const store = await fx.open();
    const other = await fx.reopen(store);
    const first = make(store).invoke({ log: ["a"] }, { threadId: "t" });
    await gates[0].entered;
    const second = make(other).invoke({ log: ["b"] }, { threadId: "t", onBusy: "enqueue" });
    await new Promise((r) => setTimeout(r, 60));
    gates[0].open();
    const [a, b] = await Promise.all([first, second]);
    expect(a.state).toEqual({ log: ["a", "one", "two"] });
    expect(b.state).toEqual({ log: ["a", "one", "two", "b", "one", "two"] });
    expect(b.status).toBe("completed");
    const cold = setup({})(await fx.reopen(store));
    expect((await cold.getState("t")).state).toEqual(b.state);
    expect(shape(await cold.history("t"), { [a.runId]: "A", [b.runId]: "B" })).toEqual([
      ["run_started", "A", 0],
      ["step_committed", "A", 0],
      ["step_committed", "A", 1],
      ["run_finished", "A", 2],
      ["run_started", "B", 2],
      ["step_committed", "B", 2],
      ["step_committed", "B", 3],
      ["run_finished", "B", 4],
    ]);
  });

  it("enqueue: past onBusyTimeoutMs the run fails with ThreadBusyError and writes nothing", async () => {
    const gates = { 0: gate() };
    const make = setup(gates);
    const store = await fx.open();
    const other = await fx.reopen(store);
    const first = make(store).invoke({ log: ["a"] }, { threadId: "t" });
    await gates[0].entered;
    const started = performance.now();
    await expectError(
      () =>
        make(other).invoke(
          { log: ["b"] },
          { threadId: "t", onBusy: "enqueue", onBusyTimeoutMs: 80 },
        ),
      ThreadBusyError,
      'Thread "t" (branch "main") was still running after graph "busy" waited 80 ms for it (onBusy "enqueue"); nothing was run. Raise onBusyTimeoutMs (at most 3600000), or try again later',
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(79);
    gates[0].open();
    const a = await first;
    expect(a.state).toEqual({ log: ["a", "one", "two"] });
    expect((await make(other).history("t")).map((e) => e.runId)).toEqual([
      a.runId,
      a.runId,
      a.runId,
      a.runId,
    ]);
  });

  it("interrupt: the running run stops at its next superstep boundary, its work kept; the new input runs", async () => {
    const gates = { 0: gate() };
    const make = setup(gates);
    const store = await fx.open();
    const other = await fx.reopen(store);
    const first = caught(() => make(store).invoke({ log: ["a"] }, { threadId: "t" }));
    await gates[0].entered;
    const aId = await runningId(store, "t");
    const second = make(other).invoke({ log: ["b"] }, { threadId: "t", onBusy: "interrupt" });
    const by = await stopAsked(store, "t", aId);
    gates[0].open();
    const [stopped, b] = await Promise.all([first, second]);
    expect(by).toBe(b.runId);
    expect(stopped).toBeInstanceOf(RunStoppedError);
    expect(stopped.message).toBe(
      `Run "${aId}" of graph "busy" on thread "t" (branch "main") was stopped before superstep 1 because run "${b.runId}" asked for the thread (onBusy "interrupt" or "rollback"); the supersteps it committed stay in the log (a "rollback" undoes them)`,
    );
    expect({ ...(stopped as RunStoppedError) }).toEqual({
      graph: "busy",
      threadId: "t",
      branchId: "main",
      runId: aId,
      stoppedBy: b.runId,
      step: 1,
      name: "RunStoppedError",
    });
    // A's first superstep is kept; its second never ran; B ran from the start on top of it.
    expect(b.state).toEqual({ log: ["a", "one", "b", "one", "two"] });
    const cold = setup({})(await fx.reopen(store));
    expect((await cold.getState("t")).state).toEqual(b.state);
    const events = await cold.history("t");
    expect(shape(events, { [aId]: "A", [b.runId]: "B" })).toEqual([
      ["run_started", "A", 0],
      ["step_committed", "A", 0],
      ["run_finished", "A", 1],
      ["run_started", "B", 1],
      ["step_committed", "B", 1],
      ["step_committed", "B", 2],
      ["run_finished", "B", 3],
    ]);
    expect(events[2]!.data).toEqual({ status: "interrupted", interrupts: [], stoppedBy: b.runId });
  });

  it("interrupt: a request made in a later superstep is seen at a commit 25 ms or more after the last check", async () => {
    const store = await fx.open();
    const seen: number[] = [];
    let count = 0;
    // Step 0 is quick (the first commit always asks); step 1 asks for a stop, then takes 40 ms.
    const tick = node(
      async () => {
        const step = count++;
        seen.push(step);
        if (step === 1) {
          expect(await store.requestStop!("t", "main", "someone")).not.toBeNull();
          await new Promise((r) => setTimeout(r, 40));
        }
        return { log: [`tick ${step}`] };
      },
      { name: "tick" },
    );
    const g = new Graph(State, { name: "ticks", stateStore: store }).flow(
      START.to(tick),
      tick.to(when((s: { log: string[] }) => s.log.length < 6, tick, { otherwise: END })),
    );
    const e = await caught(() => g.invoke({ log: [] }, { threadId: "t" }));
    expect(e).toBeInstanceOf(RunStoppedError);
    expect([(e as RunStoppedError).stoppedBy, (e as RunStoppedError).step]).toEqual(["someone", 2]);
    expect(seen).toEqual([0, 1]);
    expect((await g.getState("t")).state).toEqual({ log: ["tick 0", "tick 1"] });
  });

  it("interrupt on an idle thread just runs (nothing to stop)", async () => {
    const make = setup({});
    const store = await fx.open();
    await make(store).invoke({ log: ["a"] }, { threadId: "t" });
    const b = await make(store).invoke({ log: ["b"] }, { threadId: "t", onBusy: "interrupt" });
    expect(b.state).toEqual({ log: ["a", "one", "two", "b", "one", "two"] });
  });

  it("rollback: the running run is stopped and undone (a rolled_back event); the new input runs on the state before it", async () => {
    const gates = { 1: gate() };
    const make = setup(gates);
    const store = await fx.open();
    const other = await fx.reopen(store);
    const z0 = await make(store).invoke({ log: ["z"] }, { threadId: "t" });
    const first = caught(() => make(store).invoke({ log: ["a"] }, { threadId: "t" }));
    await gates[1].entered;
    const aId = await runningId(store, "t");
    const second = make(other).invoke({ log: ["b"] }, { threadId: "t", onBusy: "rollback" });
    await stopAsked(store, "t", aId);
    gates[1].open();
    const [stopped, b] = await Promise.all([first, second]);
    expect(stopped).toBeInstanceOf(RunStoppedError);
    expect((stopped as RunStoppedError).stoppedBy).toBe(b.runId);
    // A's work is gone from the state; B ran on the state Z left.
    expect(b.state).toEqual({ log: ["z", "one", "two", "b", "one", "two"] });
    const cold = setup({})(await fx.reopen(store));
    const snap = await cold.getState("t");
    expect(snap.state).toEqual(b.state);
    expect(snap.next).toEqual([]);
    const events = await cold.history("t");
    const labels = { [z0.runId]: "Z", [aId]: "A", [b.runId]: "B" };
    expect(shape(events, labels)).toEqual([
      ["run_started", "Z", 0],
      ["step_committed", "Z", 0],
      ["step_committed", "Z", 1],
      ["run_finished", "Z", 2],
      ["run_started", "A", 2],
      ["step_committed", "A", 2],
      ["run_finished", "A", 3],
      ["rolled_back", "B", 2],
      ["run_started", "B", 2],
      ["step_committed", "B", 2],
      ["step_committed", "B", 3],
      ["run_finished", "B", 4],
    ]);
    const rolled = events[7]!.data as Record<string, unknown>;
    expect(rolled.runs).toEqual([aId]);
    expect(rolled.toEventId).toBe(events[3]!.id);
    expect((rolled.position as Record<string, unknown>).state).toEqual({
      log: ["z", "one", "two"],
    });
    // The undone run stays in the history: the state after its superstep can still be read.
    expect((await cold.getState("t", { eventId: events[5]!.id })).state).toEqual({
      log: ["z", "one", "two", "a", "one"],
    });
  });

  it("onBusyTimeoutMs past its limit, an unknown policy, or onBusy without a thread are refused before anything runs", async () => {
    const make = setup({});
    const store = await fx.open();
    const g = make(store);
    await expectError(
      () => g.invoke({ log: ["a"] }, { threadId: "t", onBusy: "later" as "enqueue" }),
      Error,
      'Graph "busy": onBusy must be one of "reject", "enqueue", "interrupt", "rollback", got "later"',
    );
    await expectError(
      () => g.invoke({ log: ["a"] }, { threadId: "t", onBusy: "enqueue", onBusyTimeoutMs: -1 }),
      Error,
      'Graph "busy": onBusyTimeoutMs must be an integer from 0 to 3600000 (ms), got -1',
    );
    await expectError(
      () => g.invoke({ log: ["a"] }, { threadId: "t", onBusyTimeoutMs: 10 }),
      Error,
      'Graph "busy": onBusyTimeoutMs is how long onBusy "enqueue", "interrupt" or "rollback" waits; give one of them with it',
    );
    await expectError(
      () => g.invoke({ log: ["a"] }, { onBusy: "enqueue" }),
      Error,
      'Graph "busy": onBusy says what a run does when its thread is busy, and a run without a threadId has no thread; run with a threadId (and a state store)',
    );
    expect(await store.read("t", "main")).toEqual([]);
  });
});

/** The first run in a child process (fixtures/busy-child.ts); `go()` lets its node `one` finish. */
function startFirst(kind: "sqlite" | "postgres", target: string) {
  const script = fileURLToPath(new URL("./fixtures/busy-child.ts", import.meta.url));
  const child = spawn(process.execPath, [...SOURCE_LOADER, script, kind, target], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const done = new Promise<Record<string, unknown>>((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as Record<string, unknown>) : reject(new Error(err)),
    ),
  );
  return { go: () => child.stdin.write("go\n"), done };
}

/** Wait until the thread has a run_started (the child's run began). */
async function started(store: StateStore): Promise<string> {
  for (let i = 0; i < 3000; i++) {
    const e = (await store.read("t", "main")).find((x) => x.type === "run_started");
    if (e) return e.runId;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the child's run never started");
}

for (const kind of ["sqlite", "postgres"] as const) {
  const cold = process.env.NODESTEP_COLD_STORE;
  if (cold !== undefined && cold !== kind) continue;
  describe(`busy threads across two processes [${kind}]`, () => {
    const open = (target: string): StateStore =>
      kind === "sqlite"
        ? new SqliteStateStore({ path: target })
        : new PostgresStateStore({
            connectionString: "postgres://postgres@127.0.0.1:5432/test",
            schema: target,
          });
    for (const onBusy of ["interrupt", "rollback"] as const) {
      it(`${onBusy}: this process stops the other process's run, and runs its input`, async () => {
        const target = kind === "sqlite" ? newSqlitePath() : newSchema();
        const store = open(target);
        try {
          if (kind === "postgres") await (store as PostgresStateStore).ready();
          else await store.listThreads();
          const first = startFirst(kind, target);
          const aId = await Promise.race([
            started(store),
            first.done.then((r) => {
              throw new Error(`the child ended before its run started: ${JSON.stringify(r)}`);
            }),
          ]);
          const make = setup({});
          const second = make(store).invoke({ log: ["b"] }, { threadId: "t", onBusy });
          await stopAsked(store, "t", aId);
          first.go();
          const [a, b] = await Promise.all([first.done, second]);
          expect(a).toEqual({ error: "RunStoppedError", runId: aId, stoppedBy: b.runId, step: 1 });
          expect(b.state).toEqual(
            onBusy === "interrupt"
              ? { log: ["a", "one", "b", "one", "two"] }
              : { log: ["b", "one", "two"] },
          );
          const events = await make(store).history("t");
          expect(events.map((e) => e.type)).toEqual([
            "run_started",
            "step_committed",
            "run_finished",
            ...(onBusy === "rollback" ? ["rolled_back"] : []),
            "run_started",
            "step_committed",
            "step_committed",
            "run_finished",
          ]);
        } finally {
          await store.close();
        }
      });
    }
  });
}

describe("busy threads: stores without stop requests, and a cancelled wait", () => {
  it("interrupt and rollback need requestStop/stopRequested: GraphConfigError before waiting", async () => {
    const inner = new MemoryStateStore();
    // The contract's required methods only (requestStop and stopRequested are optional).
    const bare: StateStore = {
      append: (...a) => inner.append(...a),
      read: (...a) => inner.read(...a),
      getBranch: (...a) => inner.getBranch(...a),
      listBranches: (...a) => inner.listBranches(...a),
      getEvent: (...a) => inner.getEvent(...a),
      createBranch: (...a) => inner.createBranch(...a),
      saveSnapshot: (...a) => inner.saveSnapshot(...a),
      loadSnapshot: (...a) => inner.loadSnapshot(...a),
      acquireLease: (...a) => inner.acquireLease(...a),
      releaseLease: (...a) => inner.releaseLease(...a),
      listThreads: (...a) => inner.listThreads(...a),
      deleteThread: (...a) => inner.deleteThread(...a),
      sizeBytes: () => inner.sizeBytes(),
      close: () => inner.close(),
    };
    const g = setup({})(bare);
    for (const onBusy of ["interrupt", "rollback"] as const) {
      await expectError(
        () => g.invoke({ log: ["a"] }, { threadId: "t", onBusy }),
        GraphConfigError,
        `Graph "busy": onBusy "${onBusy}" needs a state store that records stop requests (requestStop and stopRequested); this one has none. Use MemoryStateStore, SqliteStateStore or PostgresStateStore, or onBusy "enqueue"`,
      );
    }
    expect(await bare.read("t", "main")).toEqual([]);
    // enqueue needs nothing more than leases.
    expect((await g.invoke({ log: ["a"] }, { threadId: "t", onBusy: "enqueue" })).state).toEqual({
      log: ["a", "one", "two"],
    });
  });

  it("a run's signal ends its wait with RunCancelledError", async () => {
    const gates = { 0: gate() };
    const make = setup(gates);
    const store = new MemoryStateStore();
    const first = make(store).invoke({ log: ["a"] }, { threadId: "t" });
    await gates[0].entered;
    const ctl = new AbortController();
    const waiting = caught(() =>
      make(store).invoke({ log: ["b"] }, { threadId: "t", onBusy: "enqueue", signal: ctl.signal }),
    );
    await new Promise((r) => setTimeout(r, 20));
    ctl.abort(new Error("user left"));
    const e = await waiting;
    expect(e).toBeInstanceOf(RunCancelledError);
    expect(e.message).toBe(
      'The run of graph "busy" was cancelled while it waited for thread "t" (branch "main", onBusy "enqueue")',
    );
    expect((e.cause as Error).message).toBe("user left");
    gates[0].open();
    expect((await first).state).toEqual({ log: ["a", "one", "two"] });
  });
});
