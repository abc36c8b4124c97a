/**
 * The `durability` option (docs/stores.md, "Durability"): each mode stores exactly the same
 * events (on every store); "sync" has them in the store while the run goes on, "exit" has none
 * of the run's until it ends; an "async" append that fails fails the run and nothing after it
 * is written; an "async" run holds at most ASYNC_MAX_HELD_STEPS commits behind a stalled
 * append; bad values are refused before anything runs.
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { z } from "zod";
import { ValueError } from "../../src/errors/index.js";
import {
  ASYNC_MAX_HELD_STEPS,
  type Durability,
  Graph,
  node,
  START,
} from "../../src/graph/index.js";
import { END, when } from "../../src/graph/routing.js";
import { defineState } from "../../src/state/define-state.js";
import { MemoryStateStore } from "../../src/stores/index.js";
import type { NewEvent, StateStore, StoredEvent } from "../../src/stores/types.js";
import { durabilityGraph } from "./fixtures/durability-graph.js";
import { describeStores, tempDir } from "./stores.js";

/** What an event says, without its run id and time. */
const shape = (e: StoredEvent) => ({
  seq: e.seq,
  type: e.type,
  step: e.step,
  node: e.node,
  taskId: e.taskId,
  data: e.data,
});

describeStores("durability: the events each mode stores", (fx) => {
  it("stores the same events in every mode; sync has them during the run, exit only at its end", async () => {
    const stored: Record<string, unknown[]> = {};
    const seen: Record<string, string[]> = {};
    for (const mode of ["sync", "async", "exit"] as const) {
      const store = await fx.open();
      const dir = mkdtempSync(join(tempDir(), "modes-"));
      const g = durabilityGraph(store, dir);
      // What the store holds of the run when node `c` runs.
      let during: string[] = [];
      const probe = durabilityGraphWithProbe(store, dir, async () => {
        during = (await store.read("t", "main")).map((e) => e.type);
      });
      const checkpoints: (string | null)[] = [];
      const r = await probe.invoke(
        { log: ["start"] },
        {
          threadId: "t",
          durability: mode,
          modes: ["checkpoints"],
          onEvent: (e) => checkpoints.push((e.data as { eventId: string | null }).eventId),
        },
      );
      expect(r.status).toBe("completed");
      expect(r.state).toEqual({ log: ["start", "a", "b", "c", "d"] });
      const events = await (await fx.reopen(store)).read("t", "main");
      stored[mode] = events.map(shape);
      seen[mode] = during;
      // Each checkpoint names its commit's event, held or in flight included.
      expect(checkpoints).toEqual(
        events.filter((e) => e.type === "step_committed").map((e) => e.id),
      );
      const state = await g.getState("t");
      expect(state.lastEventId).toBe(events[events.length - 1]!.id);
    }
    expect(stored.async).toEqual(stored.sync);
    expect(stored.exit).toEqual(stored.sync);
    expect((stored.sync as { type: string }[]).map((e) => e.type)).toEqual([
      "run_started",
      "step_committed",
      "step_committed",
      "step_committed",
      "step_committed",
      "run_finished",
    ]);
    expect(seen.sync).toEqual(["run_started", "step_committed", "step_committed"]);
    expect(seen.exit).toEqual([]);
  });
});

/** The durability graph with `probe` awaited at the start of node `c`. */
function durabilityGraphWithProbe(store: StateStore, dir: string, probe: () => Promise<void>) {
  const g = durabilityGraph(store, dir);
  const nodes = ["a", "b", "c", "d"].map((name) =>
    node(
      async () => {
        if (name === "c") await probe();
        return { log: [name] };
      },
      { name },
    ),
  );
  const [a, b, c, d] = nodes as [
    (typeof nodes)[0],
    (typeof nodes)[0],
    (typeof nodes)[0],
    (typeof nodes)[0],
  ];
  return new Graph(g.state, { name: "durable", stateStore: store }).flow(
    START.to(a),
    a.to(b),
    b.to(c),
    c.to(d),
    d.to(END),
  );
}

const Count = defineState({ n: z.number().default(0) });

/** A loop of `steps` supersteps of node `n` on `store`; `ran` counts its runs. */
function loop(store: StateStore, steps: number, ran: { count: number }) {
  const n = node(
    (s: { n: number }) => {
      ran.count++;
      return { n: s.n + 1 };
    },
    { name: "n" },
  );
  return new Graph(Count, { name: "loop", stateStore: store, maxSteps: steps + 5 }).flow(
    START.to(n),
    n.to(when((s: { n: number }) => s.n < steps, n, { otherwise: END })),
  );
}

/** A memory store whose appends are gated: each waits for `open()`, and `failAt` (1-based) rejects. */
function gatedStore(failAt: number | null = null) {
  const inner = new MemoryStateStore();
  let calls = 0;
  let release: () => void = () => {};
  let gate: Promise<void> | null = null;
  const store = new Proxy(inner, {
    get(t, k, r) {
      if (k === "append")
        return async (tid: string, bid: string, ev: NewEvent[], seq: number) => {
          const call = ++calls;
          if (gate) await gate;
          if (call === failAt) throw new Error("disk full");
          return t.append(tid, bid, ev, seq);
        };
      const v = Reflect.get(t, k, r);
      return typeof v === "function" ? v.bind(t) : v;
    },
  });
  return {
    store: store as StateStore,
    inner,
    calls: () => calls,
    close: () => {
      gate = new Promise((r) => {
        release = r;
      });
    },
    open: () => {
      gate = null;
      release();
    },
  };
}

it('"async": an append that fails fails the run with its error, and nothing after it is written', async () => {
  const s = gatedStore(2);
  const ran = { count: 0 };
  await expect(
    loop(s.store, 10, ran).invoke({ n: 0 }, { threadId: "t", durability: "async" }),
  ).rejects.toThrow(/^disk full$/);
  const events = await s.inner.read("t", "main");
  // Only the first append (run_started) is stored; the failed one and every later write are not.
  expect(events.map((e) => e.type)).toEqual(["run_started"]);
});

it(`"async": at most ASYNC_MAX_HELD_STEPS (${ASYNC_MAX_HELD_STEPS}) commits are held behind a stalled append`, async () => {
  const s = gatedStore();
  s.close();
  const ran = { count: 0 };
  const run = loop(s.store, 100, ran).invoke({ n: 0 }, { threadId: "t", durability: "async" });
  await new Promise((r) => setTimeout(r, 100));
  // run_started is in flight; the commits of the supersteps that ran since are held, up to the limit.
  expect(ran.count).toBe(ASYNC_MAX_HELD_STEPS);
  expect(s.calls()).toBe(1);
  s.open();
  const r = await run;
  expect(r.state).toEqual({ n: 100 });
  expect(ran.count).toBe(100);
  const events = await s.inner.read("t", "main");
  expect(events.filter((e) => e.type === "step_committed").length).toBe(100);
  expect(events[events.length - 1]!.type).toBe("run_finished");
});

it('"exit": one append for the whole run', async () => {
  const s = gatedStore();
  const ran = { count: 0 };
  const r = await loop(s.store, 20, ran).invoke({ n: 0 }, { threadId: "t", durability: "exit" });
  expect(r.state).toEqual({ n: 20 });
  expect(s.calls()).toBe(1);
  expect((await s.inner.read("t", "main")).length).toBe(22);
});

it("refuses a durability that is not sync, async or exit (typed error, exact message)", async () => {
  const ran = { count: 0 };
  const store = new MemoryStateStore();
  const g = loop(store, 3, ran);
  for (const [bad, got] of [
    ["fast", '"fast"'],
    ["SYNC", '"SYNC"'],
    [1, "a number (1)"],
    [null, "null"],
  ] as const) {
    const call = g.invoke({ n: 0 }, { threadId: "t", durability: bad as unknown as Durability });
    await expect(call).rejects.toThrow(ValueError);
    await expect(call).rejects.toThrow(
      `Graph "loop": durability must be "sync", "async" or "exit", got ${got}`,
    );
  }
  expect(ran.count).toBe(0);
  expect(await store.read("t", "main")).toEqual([]);
});
