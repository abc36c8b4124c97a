/**
 * Issue 13, item 8: a lease renewal that fails or answers `false` stops the run with
 * `LeaseLostError` before it writes anything more (it went on writing, and a second writer
 * was admitted). And a run that never gives the event loop a turn (no timer renews its lease)
 * keeps its lease: renewed from the append path, in place once it lapsed by the clock, and
 * lost only when another owner took it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { caught } from "../../test/helpers.js";
import { LeaseLostError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";

const State = defineState({
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
});

/**
 * A memory store whose lease renewals answer truly until a test arms them: then they answer
 * `false`, throw or hang, as `renewal` says.
 */
class FlakyLeaseStore extends MemoryStateStore {
  acquired = 0;
  renewal: "ok" | "false" | "throw" | "hang" = "ok";
  /** What `leaseLost` answers. */
  lostNow = false;
  #failed: (() => void) | null = null;
  /** Resolves once an armed renewal was sent. */
  readonly failed = new Promise<void>((r) => {
    this.#failed = r;
  });
  override async acquireLease(
    threadId: string,
    branchId: string,
    owner: string,
    ttlMs: number,
  ): Promise<boolean> {
    this.acquired++;
    return super.acquireLease(threadId, branchId, owner, ttlMs);
  }
  override async renewLease(
    threadId: string,
    branchId: string,
    owner: string,
    ttlMs: number,
  ): Promise<boolean> {
    if (this.renewal === "ok") return super.renewLease(threadId, branchId, owner, ttlMs);
    queueMicrotask(() => this.#failed?.());
    if (this.renewal === "throw") throw new Error("connection reset");
    if (this.renewal === "hang") return new Promise<boolean>(() => {});
    return false;
  }
  leaseLost(): boolean {
    return this.lostNow;
  }
}

for (const renewal of ["false", "throw"] as const) {
  describe(`a renewal that ${renewal === "false" ? "answers false" : "throws"}`, () => {
    it("stops the run with LeaseLostError and writes nothing after it", async () => {
      const store = new FlakyLeaseStore();
      const steps: string[] = [];
      const first = node(
        async () => {
          steps.push("first");
          // Renewals answered truly until now (however slow the machine): the next one fails.
          store.renewal = renewal;
          await store.failed;
          await new Promise((r) => setTimeout(r, 0));
          return { count: 1 };
        },
        { name: "first" },
      );
      const second = node(
        () => {
          steps.push("second");
          return { count: 10 };
        },
        { name: "second" },
      );
      const g = new Graph(State, { stateStore: store, leaseTtlMs: 30 }).flow(
        START.to(first),
        first.to(second),
        second.to(END),
      );
      const why =
        renewal === "false"
          ? "another writer holds it now"
          : "renewing it failed: connection reset";
      const e = await caught(() => g.invoke({}, { threadId: "t" }));
      const events = await store.read("t", "main");
      // Only what was written before the renewal failed: the run's start.
      expect(events.map((x) => x.type)).toEqual(["run_started"]);
      expect(e).toBeInstanceOf(LeaseLostError);
      expect(e.message).toBe(
        `Run "${events[0]!.runId}" lost the lease of thread "t" (branch "main"): ${why}. It stopped writing; the thread is as its last stored event says.`,
      );
      expect(steps).toEqual(["first"]);
    });
  });
}

describe("a run that loses its lease in the middle of a long node", () => {
  it("fires the node's signal and ends with LeaseLostError at once", async () => {
    const store = new FlakyLeaseStore();
    let aborted: unknown = null;
    const slow = node(
      (_s, ctx) =>
        new Promise<{ count: number }>((_resolve, reject) => {
          store.renewal = "false";
          // Never finishes by itself: only the signal ends it.
          ctx.signal.addEventListener("abort", () => {
            aborted = ctx.signal.reason;
            reject(new Error("stopped"));
          });
        }),
      { name: "slow" },
    );
    const g = new Graph(State, { stateStore: store, leaseTtlMs: 30 }).flow(
      START.to(slow),
      slow.to(END),
    );
    const e = await caught(() => g.invoke({}, { threadId: "t" }));
    expect(e).toBeInstanceOf(LeaseLostError);
    expect(aborted).toBe(e);
    expect((await store.read("t", "main")).map((x) => x.type)).toEqual(["run_started"]);
  });
});

describe("a renewal that never answers", () => {
  it("fires the node's signal once the lease's time to live passed and writes nothing more", async () => {
    const store = new FlakyLeaseStore();
    let aborted: unknown = null;
    const slow = node(
      (_s, ctx) =>
        new Promise<{ count: number }>((resolve) => {
          store.renewal = "hang";
          ctx.signal.addEventListener("abort", () => {
            aborted = ctx.signal.reason;
            // A node that ignores the abort and returns: its result is not written.
            resolve({ count: 1 });
          });
        }),
      { name: "slow" },
    );
    const g = new Graph(State, { stateStore: store, leaseTtlMs: 30 }).flow(
      START.to(slow),
      slow.to(END),
    );
    const e = await caught(() => g.invoke({}, { threadId: "t" }));
    const events = await store.read("t", "main");
    expect(e).toBeInstanceOf(LeaseLostError);
    expect(e.message).toBe(
      `Run "${events[0]!.runId}" lost the lease of thread "t" (branch "main"): its time to live of 30 ms passed with no renewal answered. It stopped writing; the thread is as its last stored event says.`,
    );
    expect(aborted).toBe(e);
    expect(events.map((x) => x.type)).toEqual(["run_started"]);
  });
});

describe("a store that knows the lease is gone (leaseLost)", () => {
  it("stops the run at its next append, before any renewal", async () => {
    const store = new FlakyLeaseStore();
    const work = node(
      () => {
        store.lostNow = true;
        return { count: 1 };
      },
      { name: "work" },
    );
    const g = new Graph(State, { stateStore: store, leaseTtlMs: 60_000 }).flow(
      START.to(work),
      work.to(END),
    );
    const e = await caught(() => g.invoke({}, { threadId: "t" }));
    const events = await store.read("t", "main");
    expect(e).toBeInstanceOf(LeaseLostError);
    expect(e.message).toBe(
      `Run "${events[0]!.runId}" lost the lease of thread "t" (branch "main"): the store's session that held it ended. It stopped writing; the thread is as its last stored event says.`,
    );
    expect(store.acquired).toBe(1);
    expect(events.map((x) => x.type)).toEqual(["run_started"]);
  });
});

describe("a run that never gives the event loop a turn", () => {
  // The journal's clock and the store's are one clock the nodes move: no timer turn happens
  // while the run goes on (a memory store answers in microtasks), so only the append path
  // can renew the lease.
  let clock = 0;
  afterEach(() => {
    vi.restoreAllMocks();
  });
  function clocked(): FlakyLeaseStore {
    clock = 1_000;
    vi.spyOn(performance, "now").mockImplementation(() => clock);
    return new FlakyLeaseStore({ now: () => clock });
  }
  const graph = (store: FlakyLeaseStore, ...bodies: ((s: unknown) => unknown)[]) => {
    const nodes = bodies.map((body, i) =>
      node(
        async (s: unknown) => {
          await body(s);
          return { count: 10 ** i };
        },
        { name: `n${i}` },
      ),
    );
    return new Graph(State, { stateStore: store, leaseTtlMs: 100 }).flow(
      START.to(nodes[0]!),
      ...nodes.map((n, i) => n.to(nodes[i + 1] ?? END)),
    );
  };

  it("renews the lease from the append path once half its time to live passed", async () => {
    const store = clocked();
    let intruder: boolean | null = null;
    const g = graph(
      store,
      () => {
        clock += 60;
      },
      async () => {
        // Past the first lease's end (1,100): held only because the commit at 1,060 renewed it.
        clock += 60;
        intruder = await store.acquireLease("t", "main", "intruder", 1_000);
      },
    );
    const r = await g.invoke({}, { threadId: "t" });
    expect([r.status, r.state, intruder]).toEqual(["completed", { count: 11 }, false]);
    expect((await store.read("t", "main")).map((e) => e.type)).toEqual([
      "run_started",
      "step_committed",
      "step_committed",
      "run_finished",
    ]);
  });

  it("renews in place a lease that lapsed by the clock while nobody took it, and goes on", async () => {
    const store = clocked();
    const g = graph(
      store,
      () => {
        clock += 150;
      },
      () => {
        clock += 250;
      },
    );
    const r = await g.invoke({}, { threadId: "t" });
    expect([r.status, r.state]).toEqual(["completed", { count: 11 }]);
    // Still the run's until it ended: given back now.
    expect(await store.acquireLease("t", "main", "next-run", 1_000)).toBe(true);
  });

  it("stops with LeaseLostError, writing nothing, when another owner took the lapsed lease", async () => {
    const store = clocked();
    const steps: string[] = [];
    const g = graph(
      store,
      async () => {
        steps.push("n0");
        clock += 150;
        expect(await store.acquireLease("t", "main", "intruder", 1_000)).toBe(true);
      },
      () => {
        steps.push("n1");
      },
    );
    const e = await caught(() => g.invoke({}, { threadId: "t" }));
    const events = await store.read("t", "main");
    expect(e).toBeInstanceOf(LeaseLostError);
    expect(e.message).toBe(
      `Run "${events[0]!.runId}" lost the lease of thread "t" (branch "main"): another writer holds it now. It stopped writing; the thread is as its last stored event says.`,
    );
    expect(events.map((x) => x.type)).toEqual(["run_started"]);
    expect(steps).toEqual(["n0"]);
    // The intruder's lease is left alone.
    expect(await store.acquireLease("t", "main", "third", 1_000)).toBe(false);
  });
});
