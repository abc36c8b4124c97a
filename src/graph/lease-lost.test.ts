/**
 * Issue 13, item 8: a lease renewal that fails or answers `false` stops the run with
 * `LeaseLostError` before it writes anything more (it went on writing, and a second writer
 * was admitted).
 */
import { describe, expect, it } from "vitest";
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

/** A memory store whose lease renewals (every acquire after the first) answer as told. */
class FlakyLeaseStore extends MemoryStateStore {
  acquired = 0;
  renewal: "false" | "throw" | "hang" = "false";
  /** What `leaseLost` answers. */
  lostNow = false;
  #renewed: (() => void) | null = null;
  /** Resolves once a renewal was answered. */
  readonly renewed = new Promise<void>((r) => {
    this.#renewed = r;
  });
  override async acquireLease(
    threadId: string,
    branchId: string,
    owner: string,
    ttlMs: number,
  ): Promise<boolean> {
    if (++this.acquired === 1) return super.acquireLease(threadId, branchId, owner, ttlMs);
    queueMicrotask(() => this.#renewed?.());
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
      store.renewal = renewal;
      const steps: string[] = [];
      const first = node(
        async () => {
          steps.push("first");
          await store.renewed;
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
    store.renewal = "hang";
    let aborted: unknown = null;
    const slow = node(
      (_s, ctx) =>
        new Promise<{ count: number }>((resolve) => {
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
