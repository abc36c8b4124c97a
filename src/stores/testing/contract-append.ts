/**
 * The `StateStore` contract (contract.ts), append (numbering, stored fields, new threads) and optimistic concurrency (`expectedLastSeq`, across connections).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ConcurrentWriteError, UnknownBranchError } from "../../errors/index.js";
import type { JsonValue } from "../../json/index.js";
import type { StateStore, StoredEvent } from "../types.js";
import { type ContractContext, ev, rejects } from "./contract-helpers.js";

/** Register the contract tests of append (numbering, stored fields, new threads) and optimistic concurrency (`expectedLastSeq`, across connections). */
export function describeAppendContract(ctx: ContractContext): void {
  let store: StateStore;
  beforeEach(() => {
    store = ctx.store();
  });
  const peer = ctx.peer;

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
}
