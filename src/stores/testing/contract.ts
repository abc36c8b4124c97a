/**
 * The contract suite every `StateStore` must pass, written for vitest. The memory, SQLite and
 * PostgreSQL stores run it; a user-written store runs it the same way:
 *
 * ```ts
 * // my-store.test.ts
 * import { describeStateStoreContract } from "nodestep/testing";
 * describeStateStoreContract("MyStore", async () => new MyStore(), async (store) => { ... });
 * ```
 *
 * @module
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ConcurrentWriteError,
  StateStoreError,
  ThreadBusyError,
  UnknownBranchError,
  UnknownEventError,
} from "../../errors/index.js";
import type { JsonValue } from "../../json/index.js";
import type { EventType, NewEvent, StateStore, StoredEvent } from "../types.js";
import { describeListBranchesContract } from "./list-branches-contract.js";

/** Extra abilities of a store under test. */
export interface StateStoreContractOptions {
  /**
   * Open a second store on the same storage as `store` (another connection or pool), to check
   * that concurrency holds across connections and processes. Leave out for a store whose data
   * lives in one object (memory). The suite closes the second store.
   */
  openPeer?: (store: StateStore) => Promise<StateStore>;
}

/**
 * Register the `StateStore` contract tests (vitest `describe`/`it`) for one store.
 *
 * Each test gets a fresh, empty store from `makeStore`; after the test the suite closes it and
 * calls `cleanup` (to delete a file or drop a schema). Lease tests sleep for about 1.9 s in all.
 *
 * @param name - shown in the test names.
 * @param makeStore - a new empty store.
 * @param cleanup - called after each test with the (closed) store.
 * @param options - see {@link StateStoreContractOptions}.
 * @example
 * ```ts
 * describeStateStoreContract("MemoryStateStore", async () => new MemoryStateStore());
 * ```
 */
export function describeStateStoreContract(
  name: string,
  makeStore: () => Promise<StateStore>,
  cleanup?: (store: StateStore) => Promise<void>,
  options: StateStoreContractOptions = {},
): void {
  describe(`${name} (StateStore contract)`, () => {
    let store: StateStore;
    const peers: StateStore[] = [];

    beforeEach(async () => {
      store = await makeStore();
    });

    afterEach(async () => {
      for (const p of peers.splice(0)) await p.close();
      await store.close();
      await cleanup?.(store);
    });

    async function peer(): Promise<StateStore | null> {
      if (!options.openPeer) return null;
      const p = await options.openPeer(store);
      peers.push(p);
      return p;
    }

    describe("append", () => {
      it("numbers events from lastSeq + 1, returns them stored, and creates the thread on main", async () => {
        const before = Date.now();
        const stored = await store.append(
          "t1",
          "main",
          [
            ev("run_started", { input: "hi" }, { runId: "r1" }),
            ev("task_finished", { update: { n: 1 } }, { step: 0, taskId: "k1", node: "a" }),
          ],
          0,
        );
        const after = Date.now();
        expect(stored).toHaveLength(2);
        expect(stored.map((e) => [e.id, e.threadId, e.branchId, e.seq])).toEqual([
          ["t1/main/1", "t1", "main", 1],
          ["t1/main/2", "t1", "main", 2],
        ]);
        expect(stored[1]).toMatchObject({
          type: "task_finished",
          runId: "r1",
          step: 0,
          taskId: "k1",
          node: "a",
          data: { update: { n: 1 } },
        });
        expect(stored[0]).toMatchObject({ step: null, taskId: null, node: null });
        for (const e of stored) {
          expect(e.createdAt).toBeGreaterThanOrEqual(before);
          expect(e.createdAt).toBeLessThanOrEqual(after);
        }
        expect(await store.getBranch("t1", "main")).toEqual({
          threadId: "t1",
          branchId: "main",
          parent: null,
          lastSeq: 2,
        });
        const next = await store.append("t1", "main", [ev("run_finished", null)], 2);
        expect(next.map((e) => e.id)).toEqual(["t1/main/3"]);
        expect((await store.getBranch("t1", "main"))?.lastSeq).toBe(3);
        expect(await store.read("t1", "main")).toEqual([...stored, ...next]);
      });

      it("keeps every JSON value exactly", async () => {
        const data: JsonValue = {
          s: 'é ünïcödé 🚀 \u0000 "quoted" \\ \n',
          n: [0, -1, 1.5, 1e300, -0.000001],
          b: [true, false],
          z: null,
          nested: { a: [[], {}, [{ x: "" }]] },
        };
        await store.append("t1", "main", [ev("tool_result", data), ev("tool_result", "plain")], 0);
        const read = await store.read("t1", "main");
        expect(read.map((e) => e.data)).toEqual([data, "plain"]);
      });

      it("does not let the caller change stored history", async () => {
        const data = { list: [1, 2], obj: { k: "v" } };
        const [stored] = await store.append("t1", "main", [ev("task_finished", data)], 0);
        data.list.push(3);
        data.obj.k = "changed";
        (stored!.data as { list: number[] }).list.push(4);
        const [read] = await store.read("t1", "main");
        expect(read!.data).toEqual({ list: [1, 2], obj: { k: "v" } });
        (read!.data as { list: number[] }).list.push(5);
        expect((await store.getEvent("t1/main/1"))!.data).toEqual({
          list: [1, 2],
          obj: { k: "v" },
        });
      });

      it("reads the events before append returns: a change made while it runs is not stored", async () => {
        const data = { list: [1, 2], obj: { k: "v" } };
        const pending = store.append("t1", "main", [ev("task_finished", data)], 0);
        data.list.push(3);
        data.obj.k = "changed";
        await pending;
        const [read] = await store.read("t1", "main");
        expect(read!.data).toEqual({ list: [1, 2], obj: { k: "v" } });
      });

      it("refuses a branch other than main that was never created, and writes nothing", async () => {
        const err = await rejects(
          store.append("t1", "side", [ev("run_started", null)], 0),
          UnknownBranchError,
        );
        expect(err.threadId).toBe("t1");
        expect(err.branchId).toBe("side");
        expect(await store.getBranch("t1", "side")).toBeNull();
        expect(await store.getBranch("t1", "main")).toBeNull();
        expect(await store.listThreads()).toEqual([]);
      });

      it("appends nothing for an empty list and does not create the thread", async () => {
        expect(await store.append("t1", "main", [], 0)).toEqual([]);
        expect(await store.getBranch("t1", "main")).toBeNull();
        expect(await store.listThreads()).toEqual([]);
        await store.append("t1", "main", [ev("run_started", null)], 0);
        expect(await store.append("t1", "main", [], 1)).toEqual([]);
        await rejects(store.append("t1", "main", [], 0), ConcurrentWriteError);
      });
    });

    describe("optimistic concurrency", () => {
      it("refuses a stale expectedLastSeq with ConcurrentWriteError and writes nothing", async () => {
        await store.append("t1", "main", [ev("run_started", 1), ev("task_finished", 2)], 0);
        for (const expected of [0, 1, 3]) {
          const err = await rejects(
            store.append(
              "t1",
              "main",
              [ev("task_finished", "x"), ev("task_finished", "y")],
              expected,
            ),
            ConcurrentWriteError,
          );
          expect(err.threadId).toBe("t1");
          expect(err.branchId).toBe("main");
        }
        expect((await store.read("t1", "main")).map((e) => e.data)).toEqual([1, 2]);
        expect((await store.getBranch("t1", "main"))?.lastSeq).toBe(2);
      });

      it("does not create a thread when the first write expects events", async () => {
        await rejects(store.append("t1", "main", [ev("run_started", 1)], 3), ConcurrentWriteError);
        expect(await store.getBranch("t1", "main")).toBeNull();
      });

      it("lets exactly one of two concurrent appends with the same expectedLastSeq win", async () => {
        for (const [thread, start] of [
          ["fresh", 0],
          ["busy", 2],
        ] as const) {
          if (start > 0) {
            await store.append(thread, "main", [ev("run_started", 0), ev("run_started", 0)], 0);
          }
          const results = await Promise.allSettled([
            store.append(
              thread,
              "main",
              [ev("task_finished", "A1"), ev("task_finished", "A2")],
              start,
            ),
            store.append(thread, "main", [ev("task_finished", "B1")], start),
          ]);
          const won = results.filter((r) => r.status === "fulfilled");
          const lost = results.filter((r) => r.status === "rejected");
          expect(won).toHaveLength(1);
          expect(lost).toHaveLength(1);
          expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrentWriteError);
          const winner = (won[0] as PromiseFulfilledResult<StoredEvent[]>).value;
          const read = await store.read(thread, "main", { afterSeq: start });
          expect(read).toEqual(winner);
          expect((await store.getBranch(thread, "main"))?.lastSeq).toBe(start + winner.length);
        }
      });

      it("lets exactly one win across two connections to the same storage", async () => {
        const other = await peer();
        if (!other) return;
        await store.append("t1", "main", [ev("run_started", 0)], 0);
        expect((await other.getBranch("t1", "main"))?.lastSeq).toBe(1);
        for (let round = 0; round < 5; round++) {
          const lastSeq = (await store.getBranch("t1", "main"))!.lastSeq;
          const results = await Promise.allSettled([
            store.append("t1", "main", [ev("task_finished", `A${round}`)], lastSeq),
            other.append("t1", "main", [ev("task_finished", `B${round}`)], lastSeq),
          ]);
          expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
          const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
          expect(lost.reason).toBeInstanceOf(ConcurrentWriteError);
          expect((await other.getBranch("t1", "main"))?.lastSeq).toBe(lastSeq + 1);
        }
        const a = await store.read("t1", "main");
        expect(a.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(await other.read("t1", "main")).toEqual(a);
      });
    });

    describe("read and branches", () => {
      async function fiveOnMain(): Promise<void> {
        await store.append(
          "t1",
          "main",
          [1, 2, 3, 4, 5].map((n) => ev("task_finished", { n })),
          0,
        );
      }

      it("reads a fork as the parent's events up to the fork point, then its own", async () => {
        await fiveOnMain();
        const fork = await store.createBranch("t1", "t1/main/3", "alt");
        expect(fork).toEqual({
          threadId: "t1",
          branchId: "alt",
          parent: { branchId: "main", seq: 3 },
          lastSeq: 3,
        });
        expect(await store.getBranch("t1", "alt")).toEqual(fork);
        await rejects(
          store.append("t1", "alt", [ev("task_finished", "x")], 0),
          ConcurrentWriteError,
        );
        const own = await store.append(
          "t1",
          "alt",
          [ev("task_finished", { alt: 4 }), ev("task_finished", { alt: 5 })],
          3,
        );
        expect(own.map((e) => [e.id, e.branchId, e.seq])).toEqual([
          ["t1/alt/4", "alt", 4],
          ["t1/alt/5", "alt", 5],
        ]);
        expect((await store.getBranch("t1", "alt"))?.lastSeq).toBe(5);
        const ids = async (b: string, o?: { afterSeq?: number; uptoSeq?: number }) =>
          (await store.read("t1", b, o)).map((e) => e.id);
        expect(await ids("alt")).toEqual([
          "t1/main/1",
          "t1/main/2",
          "t1/main/3",
          "t1/alt/4",
          "t1/alt/5",
        ]);
        expect(await ids("main")).toEqual([1, 2, 3, 4, 5].map((n) => `t1/main/${n}`));
        expect(await ids("alt", { afterSeq: 2 })).toEqual(["t1/main/3", "t1/alt/4", "t1/alt/5"]);
        expect(await ids("alt", { uptoSeq: 4 })).toEqual([
          "t1/main/1",
          "t1/main/2",
          "t1/main/3",
          "t1/alt/4",
        ]);
        expect(await ids("alt", { afterSeq: 3, uptoSeq: 4 })).toEqual(["t1/alt/4"]);
        expect(await ids("alt", { afterSeq: 1, uptoSeq: 2 })).toEqual(["t1/main/2"]);
        expect(await ids("alt", { afterSeq: 5 })).toEqual([]);
        expect(await ids("alt", { uptoSeq: 0 })).toEqual([]);
        expect(await ids("alt", { afterSeq: 4, uptoSeq: 2 })).toEqual([]);
        expect(await ids("main", { afterSeq: 3 })).toEqual(["t1/main/4", "t1/main/5"]);
        expect(await ids("main", { uptoSeq: 99 })).toHaveLength(5);
        // The parent goes on independently.
        await store.append("t1", "main", [ev("task_finished", { n: 6 })], 5);
        expect(await ids("alt")).toEqual([
          "t1/main/1",
          "t1/main/2",
          "t1/main/3",
          "t1/alt/4",
          "t1/alt/5",
        ]);
      });

      it("forks a fork, and forks from an event of any branch", async () => {
        await fiveOnMain();
        await store.createBranch("t1", "t1/main/2", "a");
        await store.append("t1", "a", [ev("task_finished", "a3"), ev("task_finished", "a4")], 2);
        const b = await store.createBranch("t1", "t1/a/3", "b");
        expect(b.parent).toEqual({ branchId: "a", seq: 3 });
        expect(b.lastSeq).toBe(3);
        await store.append("t1", "b", [ev("task_finished", "b4")], 3);
        expect((await store.read("t1", "b")).map((e) => e.id)).toEqual([
          "t1/main/1",
          "t1/main/2",
          "t1/a/3",
          "t1/b/4",
        ]);
        expect((await store.read("t1", "b", { afterSeq: 1, uptoSeq: 3 })).map((e) => e.id)).toEqual(
          ["t1/main/2", "t1/a/3"],
        );
        // A fork at a fork's very first inherited event is a fork of the parent's event.
        const c = await store.createBranch("t1", "t1/main/1", "c");
        expect(c.parent).toEqual({ branchId: "main", seq: 1 });
        expect((await store.read("t1", "c")).map((e) => e.id)).toEqual(["t1/main/1"]);
        // A fork of the last event of a branch, then written to.
        const d = await store.createBranch("t1", "t1/b/4");
        expect(d.lastSeq).toBe(4);
        await store.append("t1", d.branchId, [ev("run_finished", null)], 4);
        expect((await store.read("t1", d.branchId)).map((e) => e.id)).toEqual([
          "t1/main/1",
          "t1/main/2",
          "t1/a/3",
          "t1/b/4",
          `t1/${d.branchId}/5`,
        ]);
      });

      it("gives [] for an unknown thread on main and UnknownBranchError for another unknown branch", async () => {
        expect(await store.read("nobody", "main")).toEqual([]);
        const err = await rejects(store.read("nobody", "side"), UnknownBranchError);
        expect([err.threadId, err.branchId]).toEqual(["nobody", "side"]);
        await fiveOnMain();
        await rejects(store.read("t1", "side"), UnknownBranchError);
        expect(await store.getBranch("t1", "side")).toBeNull();
        expect(await store.getBranch("nobody", "main")).toBeNull();
      });

      it("finds one event by id, only on the branch that wrote it", async () => {
        await fiveOnMain();
        await store.createBranch("t1", "t1/main/3", "alt");
        await store.append("t1", "alt", [ev("tool_result", "own")], 3);
        const all = await store.read("t1", "alt");
        expect(await store.getEvent("t1/main/2")).toEqual(all[1]);
        expect(await store.getEvent("t1/alt/4")).toEqual(all[3]);
        expect(await store.getEvent("t1/alt/2")).toBeNull();
        expect(await store.getEvent("t1/alt/5")).toBeNull();
        expect(await store.getEvent("t1/main/0")).toBeNull();
        expect(await store.getEvent("t1/main/6")).toBeNull();
        expect(await store.getEvent("t2/main/1")).toBeNull();
        expect(await store.getEvent("garbage")).toBeNull();
        expect(await store.getEvent("t1/main/x")).toBeNull();
      });

      it("accepts thread ids that contain slashes", async () => {
        const [e] = await store.append("org/42/chat", "main", [ev("run_started", "x")], 0);
        expect(e!.id).toBe("org/42/chat/main/1");
        expect(await store.getEvent("org/42/chat/main/1")).toEqual(e);
        const fork = await store.createBranch("org/42/chat", e!.id, "f");
        expect(fork.parent).toEqual({ branchId: "main", seq: 1 });
      });

      it("refuses unknown events, taken ids and invalid ids when creating a branch", async () => {
        await fiveOnMain();
        await store.append("t2", "main", [ev("run_started", null)], 0);
        for (const id of ["t1/main/6", "t1/main/0", "t1/nope/1", "t2/main/1", "garbage", ""]) {
          const err = await rejects(store.createBranch("t1", id), UnknownEventError);
          expect(err.eventId).toBe(id);
          expect(err.threadId).toBe("t1");
        }
        await rejects(store.createBranch("nobody", "nobody/main/1"), UnknownEventError);
        await store.createBranch("t1", "t1/main/3", "alt");
        await store.append("t1", "alt", [ev("task_finished", 1)], 3);
        // An event the fork inherits was not written on it.
        await rejects(store.createBranch("t1", "t1/alt/2"), UnknownEventError);
        for (const taken of ["alt", "main"]) {
          const err = await rejects(store.createBranch("t1", "t1/main/1", taken), StateStoreError);
          expect(err).not.toBeInstanceOf(UnknownEventError);
          expect(err.branchId).toBe(taken);
        }
        await rejects(store.createBranch("t1", "t1/main/1", "a/b"), StateStoreError);
        await rejects(store.createBranch("t1", "t1/main/1", ""), StateStoreError);
        expect((await store.getBranch("t1", "alt"))?.parent).toEqual({ branchId: "main", seq: 3 });
        expect((await store.listThreads()).find((t) => t.threadId === "t1")?.branches).toEqual([
          "main",
          "alt",
        ]);
      });

      it("makes unique default branch ids", async () => {
        await fiveOnMain();
        const ids = new Set<string>();
        for (let i = 0; i < 20; i++) {
          const b = await store.createBranch("t1", "t1/main/5");
          expect(b.branchId).toMatch(/^b-[0-9a-f]{12}$/);
          ids.add(b.branchId);
        }
        expect(ids.size).toBe(20);
      });
    });

    describe("snapshots", () => {
      it("replaces the branch's snapshot and keeps forks independent", async () => {
        await store.append(
          "t1",
          "main",
          [1, 2, 3].map((n) => ev("step_committed", n)),
          0,
        );
        expect(await store.loadSnapshot("t1", "main")).toBeNull();
        const state = { messages: ["a", "b"], count: 2 };
        await store.saveSnapshot("t1", "main", { seq: 2, data: state });
        state.messages.push("changed");
        expect(await store.loadSnapshot("t1", "main")).toEqual({
          seq: 2,
          data: { messages: ["a", "b"], count: 2 },
        });
        await store.saveSnapshot("t1", "main", { seq: 3, data: { count: 3 } });
        expect(await store.loadSnapshot("t1", "main")).toEqual({ seq: 3, data: { count: 3 } });
        await store.createBranch("t1", "t1/main/2", "alt");
        expect(await store.loadSnapshot("t1", "alt")).toBeNull();
        await store.saveSnapshot("t1", "alt", { seq: 2, data: "alt state" });
        expect(await store.loadSnapshot("t1", "alt")).toEqual({ seq: 2, data: "alt state" });
        expect(await store.loadSnapshot("t1", "main")).toEqual({ seq: 3, data: { count: 3 } });
        expect(await store.loadSnapshot("nobody", "main")).toBeNull();
      });

      it("refuses snapshots of unknown branches, past the end, or of non-JSON data", async () => {
        await store.append("t1", "main", [ev("step_committed", 1)], 0);
        await rejects(store.saveSnapshot("t1", "side", { seq: 0, data: 1 }), UnknownBranchError);
        await rejects(
          store.saveSnapshot("nobody", "main", { seq: 0, data: 1 }),
          UnknownBranchError,
        );
        await rejects(store.saveSnapshot("t1", "main", { seq: 2, data: 1 }), StateStoreError);
        await rejects(store.saveSnapshot("t1", "main", { seq: -1, data: 1 }), StateStoreError);
        const err = await rejects(
          store.saveSnapshot("t1", "main", {
            seq: 1,
            data: { ok: [1], bad: [2, Number.NaN] } as unknown as JsonValue,
          }),
          StateStoreError,
        );
        expect(err.field).toBe("snapshot.data.bad[1]");
        expect(await store.loadSnapshot("t1", "main")).toBeNull();
      });
    });

    describe("leases", () => {
      it("gives the lease to one owner at a time, re-entrant, released only by its owner", async () => {
        expect(await store.acquireLease("t1", "main", "run-a", 60_000)).toBe(true);
        expect(await store.acquireLease("t1", "main", "run-b", 60_000)).toBe(false);
        expect(await store.acquireLease("t1", "main", "run-a", 60_000)).toBe(true);
        // Other branches and threads are free.
        expect(await store.acquireLease("t1", "alt", "run-b", 60_000)).toBe(true);
        expect(await store.acquireLease("t2", "main", "run-b", 60_000)).toBe(true);
        await store.releaseLease("t1", "main", "run-b");
        expect(await store.acquireLease("t1", "main", "run-b", 60_000)).toBe(false);
        await store.releaseLease("t1", "main", "run-a");
        expect(await store.acquireLease("t1", "main", "run-b", 60_000)).toBe(true);
        expect(await store.acquireLease("t1", "main", "run-a", 60_000)).toBe(false);
        await store.releaseLease("nobody", "main", "run-a");
      });

      it("lets a lease expire after ttlMs, and extends it when its owner takes it again", async () => {
        expect(await store.acquireLease("t1", "main", "run-a", 300)).toBe(true);
        await sleep(450);
        expect(await store.acquireLease("t1", "main", "run-b", 600)).toBe(true);
        await sleep(400);
        // run-b took it again before it expired: it now runs 600 ms from here.
        expect(await store.acquireLease("t1", "main", "run-b", 600)).toBe(true);
        await sleep(400);
        expect(await store.acquireLease("t1", "main", "run-a", 600)).toBe(false);
        await sleep(350);
        expect(await store.acquireLease("t1", "main", "run-a", 600)).toBe(true);
      });

      it("renews its owner's lease in place, also after it expired, unless another owner took it (renewLease)", async () => {
        if (!store.renewLease) return; // optional: a run renews through acquireLease then
        // Nobody holds it: a renewal does not take it.
        expect(await store.renewLease("t1", "main", "run-a", 60_000)).toBe(false);
        expect(await store.acquireLease("t1", "main", "run-a", 200)).toBe(true);
        expect(await store.renewLease("t1", "main", "run-a", 200)).toBe(true);
        expect(await store.renewLease("t1", "main", "run-b", 60_000)).toBe(false);
        expect(await store.acquireLease("t2", "main", "run-a", 200)).toBe(true);
        await sleep(350);
        // Both expired. t1: nobody took it, so its owner's renewal holds it again.
        expect(await store.renewLease("t1", "main", "run-a", 60_000)).toBe(true);
        expect(await store.acquireLease("t1", "main", "run-b", 60_000)).toBe(false);
        // t2: another owner took it over; the former owner's renewal is refused.
        expect(await store.acquireLease("t2", "main", "run-b", 60_000)).toBe(true);
        expect(await store.renewLease("t2", "main", "run-a", 60_000)).toBe(false);
        expect(await store.acquireLease("t2", "main", "run-a", 60_000)).toBe(false);
        // Given back: not renewed.
        await store.releaseLease("t1", "main", "run-a");
        expect(await store.renewLease("t1", "main", "run-a", 60_000)).toBe(false);
        expect(await store.acquireLease("t1", "main", "run-b", 60_000)).toBe(true);
        await rejects(store.renewLease("t1", "main", "", 100), StateStoreError);
        await rejects(store.renewLease("t1", "main", "a", 0), StateStoreError);
      });

      it("refuses an empty owner or a ttl that is not positive", async () => {
        await rejects(store.acquireLease("t1", "main", "", 100), StateStoreError);
        await rejects(store.acquireLease("t1", "main", "a", 0), StateStoreError);
        await rejects(store.acquireLease("t1", "main", "a", Number.NaN), StateStoreError);
      });

      it("holds across two connections to the same storage", async () => {
        const other = await peer();
        if (!other) return;
        const results = await Promise.all([
          store.acquireLease("t1", "main", "run-a", 60_000),
          other.acquireLease("t1", "main", "run-b", 60_000),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results[0] ? "run-a" : "run-b";
        const loser = results[0] ? "run-b" : "run-a";
        expect(await other.acquireLease("t1", "main", loser, 60_000)).toBe(false);
        await other.releaseLease("t1", "main", winner);
        expect(await store.acquireLease("t1", "main", loser, 60_000)).toBe(true);
      });

      it("records a stop request with the lease (optional: requestStop, stopRequested)", async () => {
        if (!store.requestStop || !store.stopRequested) return;
        // No lease held: nobody to ask.
        expect(await store.requestStop("t1", "main", "run-b")).toBeNull();
        expect(await store.acquireLease("t1", "main", "run-a", 60_000)).toBe(true);
        expect(await store.stopRequested("t1", "main", "run-a")).toBeNull();
        expect(await store.requestStop("t1", "main", "run-b")).toBe("run-a");
        expect(await store.stopRequested("t1", "main", "run-a")).toBe("run-b");
        // Only for the holder; other branches are not asked.
        expect(await store.stopRequested("t1", "main", "run-b")).toBeNull();
        expect(await store.stopRequested("t1", "alt", "run-a")).toBeNull();
        // A renewal keeps it; a later request replaces it.
        expect(await store.acquireLease("t1", "main", "run-a", 60_000)).toBe(true);
        expect(await store.stopRequested("t1", "main", "run-a")).toBe("run-b");
        expect(await store.requestStop("t1", "main", "run-c")).toBe("run-a");
        expect(await store.stopRequested("t1", "main", "run-a")).toBe("run-c");
        // Releasing the lease drops it; the next owner starts without one.
        await store.releaseLease("t1", "main", "run-a");
        expect(await store.stopRequested("t1", "main", "run-a")).toBeNull();
        expect(await store.acquireLease("t1", "main", "run-b", 60_000)).toBe(true);
        expect(await store.stopRequested("t1", "main", "run-b")).toBeNull();
        await rejects(store.requestStop("t1", "main", ""), StateStoreError);
        await rejects(store.stopRequested("t1", "main", ""), StateStoreError);
      });

      it("drops a stop request when an expired lease is taken over", async () => {
        if (!store.requestStop || !store.stopRequested) return;
        expect(await store.acquireLease("t1", "main", "run-a", 200)).toBe(true);
        expect(await store.requestStop("t1", "main", "run-x")).toBe("run-a");
        await sleep(300);
        // Expired: nobody holds it to ask.
        expect(await store.requestStop("t1", "main", "run-y")).toBeNull();
        expect(await store.acquireLease("t1", "main", "run-b", 60_000)).toBe(true);
        expect(await store.stopRequested("t1", "main", "run-b")).toBeNull();
      });

      it("shows a stop request to another connection to the same storage", async () => {
        const other = await peer();
        if (!other || !store.requestStop || !other.stopRequested) return;
        expect(await store.acquireLease("t1", "main", "run-a", 60_000)).toBe(true);
        expect(await other.requestStop!("t1", "main", "run-b")).toBe("run-a");
        expect(await store.stopRequested!("t1", "main", "run-a")).toBe("run-b");
        expect(await other.stopRequested("t1", "main", "run-a")).toBe("run-b");
      });
    });

    describe("non-JSON data", () => {
      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic.self = cyclic;
      const cases: [string, unknown, string][] = [
        ["undefined in an array", { list: [1, undefined] }, "events[1].data.list[1]"],
        ["NaN", { n: Number.NaN }, "events[1].data.n"],
        ["Infinity", [Number.POSITIVE_INFINITY], "events[1].data[0]"],
        ["a Date", { at: new Date(0) }, "events[1].data.at"],
        ["a function", { f: () => 1 }, "events[1].data.f"],
        ["a cycle", { deep: cyclic }, "events[1].data.deep.self"],
        ["a Map", new Map(), "events[1].data"],
        ["a bigint", { big: 1n }, "events[1].data.big"],
        ["undefined at the top", undefined, "events[1].data"],
      ];
      for (const [what, data, field] of cases) {
        it(`refuses ${what} with the field's path and writes nothing`, async () => {
          await store.append("t1", "main", [ev("run_started", "first")], 0);
          const err = await rejects(
            store.append(
              "t1",
              "main",
              [ev("task_finished", "fine"), ev("task_finished", data as JsonValue)],
              1,
            ),
            StateStoreError,
          );
          expect(err).not.toBeInstanceOf(ConcurrentWriteError);
          expect(err.field).toBe(field);
          expect(err.threadId).toBe("t1");
          expect(err.branchId).toBe("main");
          expect((await store.getBranch("t1", "main"))?.lastSeq).toBe(1);
          expect((await store.read("t1", "main")).map((e) => e.data)).toEqual(["first"]);
        });
      }

      it("refuses a bad event shape and does not create the thread", async () => {
        const bad = { ...ev("run_started", 1), type: "nonsense" as EventType };
        const err = await rejects(store.append("t1", "main", [bad], 0), StateStoreError);
        expect(err.field).toBe("events[0].type");
        const err2 = await rejects(
          store.append("t1", "main", [{ ...ev("run_started", 1), step: 1.5 }], 0),
          StateStoreError,
        );
        expect(err2.field).toBe("events[0].step");
        expect(await store.getBranch("t1", "main")).toBeNull();
      });

      it("drops undefined object properties as JSON does", async () => {
        await store.append(
          "t1",
          "main",
          [ev("task_finished", { a: 1, b: undefined } as unknown as JsonValue)],
          0,
        );
        expect((await store.read("t1", "main"))[0]!.data).toEqual({ a: 1 });
      });
    });

    describe("listThreads and sizeBytes", () => {
      it("lists threads most recently updated first, with their branches", async () => {
        expect(await store.listThreads()).toEqual([]);
        const [a1] = await store.append("a", "main", [ev("run_started", 1)], 0);
        await sleep(15);
        const [b1] = await store.append("b", "main", [ev("run_started", 1)], 0);
        await sleep(15);
        await store.createBranch("a", a1!.id, "alt");
        expect(
          (await store.listThreads()).map((t) => [t.threadId, t.branches, t.updatedAt]),
        ).toEqual([
          ["b", ["main"], b1!.createdAt],
          ["a", ["main", "alt"], a1!.createdAt],
        ]);
        const [a2] = await store.append("a", "alt", [ev("task_finished", 2)], 1);
        expect(await store.listThreads()).toEqual([
          { threadId: "a", branches: ["main", "alt"], updatedAt: a2!.createdAt },
          { threadId: "b", branches: ["main"], updatedAt: b1!.createdAt },
        ]);
      });

      it("grows sizeBytes by about the JSON size of what is appended", async () => {
        expect(await store.sizeBytes()).toBe(0);
        const batch = [
          ev("model_response", { content: "x".repeat(2000), toolCalls: [{ id: "c1", args: {} }] }),
          ev("tool_result", { result: "ünïcödé ".repeat(100) }),
          ev("task_finished", { update: { n: 1 } }),
        ];
        const json = batch.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e.data)), 0);
        await store.append("t1", "main", batch, 0);
        const size1 = await store.sizeBytes();
        expect(size1).toBeGreaterThanOrEqual(json);
        expect(size1).toBeLessThanOrEqual(3 * json + 256 * batch.length);
        await store.saveSnapshot("t1", "main", { seq: 3, data: { big: "y".repeat(1000) } });
        const size2 = await store.sizeBytes();
        expect(size2 - size1).toBeGreaterThanOrEqual(1000);
        expect(size2 - size1).toBeLessThanOrEqual(3 * 1000 + 256);
        // Replacing the snapshot replaces its bytes.
        await store.saveSnapshot("t1", "main", { seq: 3, data: { big: "y".repeat(1000) } });
        expect(await store.sizeBytes()).toBe(size2);
      });

      it("grows linearly over 1,000 appends to one branch", async () => {
        const one = (i: number) => [ev("task_finished", { i: i % 10, text: "z".repeat(40) })];
        const json = Buffer.byteLength(JSON.stringify(one(0)[0]!.data));
        const sizes = new Map<number, number>();
        for (let i = 0; i < 1000; i++) {
          await store.append("t1", "main", one(i), i);
          if (i + 1 === 10 || i + 1 === 100 || i + 1 === 1000) {
            sizes.set(i + 1, await store.sizeBytes());
          }
        }
        const early = (sizes.get(100)! - sizes.get(10)!) / 90;
        const late = (sizes.get(1000)! - sizes.get(100)!) / 900;
        expect(early).toBeGreaterThanOrEqual(json);
        expect(early).toBeLessThanOrEqual(3 * json + 256);
        expect(Math.abs(late - early) / early).toBeLessThan(0.05);
        expect((await store.getBranch("t1", "main"))?.lastSeq).toBe(1000);
        expect((await store.read("t1", "main", { afterSeq: 998 })).map((e) => e.seq)).toEqual([
          999, 1000,
        ]);
      });
    });

    describe("listThreads pages", () => {
      it("returns the page limit and offset ask for, in the listing's order", async () => {
        for (const id of ["a", "b", "c", "d", "e"]) {
          await store.append(id, "main", [ev("run_started", id)], 0);
        }
        const all = await store.listThreads();
        expect(all.map((t) => t.threadId).sort()).toEqual(["a", "b", "c", "d", "e"]);
        expect(await store.listThreads({ limit: 2 })).toEqual(all.slice(0, 2));
        expect(await store.listThreads({ limit: 2, offset: 2 })).toEqual(all.slice(2, 4));
        expect(await store.listThreads({ offset: 4 })).toEqual(all.slice(4));
        expect(await store.listThreads({ limit: 10, offset: 5 })).toEqual([]);
        expect(await store.listThreads({})).toEqual(all);
      });

      it("refuses a limit below 1 or an offset below 0", async () => {
        const e1 = await rejects(store.listThreads({ limit: 0 }), StateStoreError);
        expect(e1.message).toBe("listThreads: limit must be an integer ≥ 1, got 0");
        const e2 = await rejects(store.listThreads({ offset: -1 }), StateStoreError);
        expect(e2.message).toBe("listThreads: offset must be an integer ≥ 0, got -1");
        await rejects(store.listThreads({ limit: 1.5 }), StateStoreError);
      });
    });

    describe("deleteThread", () => {
      it("removes every branch, event, snapshot and lease of the thread and nothing else", async () => {
        const [a1] = await store.append(
          "t1",
          "main",
          [ev("run_started", 1), ev("task_cache", { cache: { c1: "x" } })],
          0,
        );
        await store.createBranch("t1", a1!.id, "alt");
        await store.append("t1", "alt", [ev("task_finished", "on alt")], 1);
        await store.saveSnapshot("t1", "main", { seq: 2, data: { big: "y".repeat(500) } });
        await store.saveSnapshot("t1", "alt", { seq: 2, data: "alt" });
        await store.append("t2", "main", [ev("run_started", 2)], 0);
        const kept = await store.sizeBytes();
        // A finished run's lease was given back; one that expired stays until deleted.
        expect(await store.acquireLease("t1", "alt", "old-run", 1)).toBe(true);
        await sleep(5);

        expect(await store.deleteThread("t1")).toEqual(["t1"]);
        expect(await store.read("t1", "main")).toEqual([]);
        expect(await store.getBranch("t1", "main")).toBeNull();
        expect(await store.getBranch("t1", "alt")).toBeNull();
        expect(await store.getEvent("t1/main/1")).toBeNull();
        expect(await store.getEvent("t1/alt/2")).toBeNull();
        expect(await store.loadSnapshot("t1", "main")).toBeNull();
        expect(await store.loadSnapshot("t1", "alt")).toBeNull();
        expect((await store.listThreads()).map((t) => t.threadId)).toEqual(["t2"]);
        const t2 = await store.read("t2", "main");
        expect(t2.map((e) => e.data)).toEqual([2]);
        expect(await store.sizeBytes()).toBeLessThan(kept);
        expect(await store.sizeBytes()).toBeGreaterThan(0);
        await rejects(store.read("t1", "alt"), UnknownBranchError);
        // Nothing of it is left: deleting again finds nothing, and a write starts anew.
        expect(await store.deleteThread("t1")).toEqual([]);
        const again = await store.append("t1", "main", [ev("run_started", "new")], 0);
        expect(again.map((e) => e.id)).toEqual(["t1/main/1"]);
        expect((await store.read("t1", "main")).map((e) => e.data)).toEqual(["new"]);
        expect(await store.acquireLease("t1", "alt", "new-run", 60_000)).toBe(true);
        expect(await store.deleteThread("never")).toEqual([]);
      });

      it('deletes child threads ("<id>:…") only when asked', async () => {
        for (const id of ["p", "p:sub", "p:agent:0a1b2c3d:inner", "px", "q:p"]) {
          await store.append(id, "main", [ev("run_started", id)], 0);
        }
        expect(await store.deleteThread("p:sub")).toEqual(["p:sub"]);
        await store.append("p:sub", "main", [ev("run_started", "p:sub")], 0);
        expect(await store.deleteThread("p", { children: true })).toEqual([
          "p",
          "p:agent:0a1b2c3d:inner",
          "p:sub",
        ]);
        expect((await store.listThreads()).map((t) => t.threadId).sort()).toEqual(["px", "q:p"]);
        expect(await store.read("p:sub", "main")).toEqual([]);
      });

      it("refuses a thread whose branch a run holds, deleting nothing", async () => {
        await store.append("t1", "main", [ev("run_started", 1)], 0);
        expect(await store.acquireLease("t1", "main", "run-a", 60_000)).toBe(true);
        const e = await rejects(store.deleteThread("t1"), ThreadBusyError);
        expect(e.message).toBe(
          'Thread "t1" (branch "main") is running; it cannot be deleted until the run ends (or its lease expires)',
        );
        expect((await store.read("t1", "main")).length).toBe(1);
        // The run still holds its lease.
        expect(await store.acquireLease("t1", "main", "run-b", 60_000)).toBe(false);
        expect(await store.acquireLease("t1", "main", "run-a", 60_000)).toBe(true);
        await store.releaseLease("t1", "main", "run-a");
        expect(await store.deleteThread("t1")).toEqual(["t1"]);
        await rejects(store.deleteThread(""), StateStoreError);
      });
    });

    describeListBranchesContract(() => store);

    describe("close", () => {
      it("makes later calls throw StateStoreError; closing twice is fine", async () => {
        await store.append("t1", "main", [ev("run_started", 1)], 0);
        await store.close();
        await store.close();
        const calls: [string, () => Promise<unknown>][] = [
          ["append", () => store.append("t1", "main", [ev("run_started", 1)], 1)],
          ["read", () => store.read("t1", "main")],
          ["getBranch", () => store.getBranch("t1", "main")],
          ["getEvent", () => store.getEvent("t1/main/1")],
          ["createBranch", () => store.createBranch("t1", "t1/main/1")],
          ["saveSnapshot", () => store.saveSnapshot("t1", "main", { seq: 1, data: 1 })],
          ["loadSnapshot", () => store.loadSnapshot("t1", "main")],
          ["acquireLease", () => store.acquireLease("t1", "main", "a", 100)],
          ["releaseLease", () => store.releaseLease("t1", "main", "a")],
          ["listThreads", () => store.listThreads()],
          ["deleteThread", () => store.deleteThread("t1")],
          ["sizeBytes", () => store.sizeBytes()],
        ];
        for (const [what, call] of calls) {
          const err = await rejects(call(), StateStoreError);
          expect(err.message, what).toMatch(/closed/);
        }
      });
    });
  });
}

/** A new event of `type` with `data`; the other fields default to run "r1", no step/task/node. */
function ev(
  type: EventType,
  data: JsonValue,
  more: Partial<Omit<NewEvent, "type" | "data">> = {},
): NewEvent {
  return { type, runId: "r1", step: null, taskId: null, node: null, ...more, data };
}

/** Await `p`, expect it to reject with an instance of `cls`, and return the error. */
async function rejects<E extends Error>(
  p: Promise<unknown>,
  cls: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(cls);
    return e as E;
  }
  throw new Error(`expected a ${cls.name}, but the call succeeded`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
