/**
 * The `StateStore` contract (contract.ts), `deleteThread`.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StateStoreError, ThreadBusyError, UnknownBranchError } from "../../errors/index.js";
import type { StateStore } from "../types.js";
import { type ContractContext, ev, onFirstLease, rejects, sleep } from "./contract-helpers.js";

/** Register the contract tests of `deleteThread`. */
export function describeDeleteContract(ctx: ContractContext): void {
  let store: StateStore;
  beforeEach(() => {
    store = ctx.store();
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

    it("returns the deleted thread ids in code point order", async () => {
      // By code point (UTF-8 bytes) "\uFF01" comes first; by UTF-16 code unit "\u{1F600}".
      for (const id of ["p:\u{1F600}", "p:\uFF01", "p"]) {
        await store.append(id, "main", [ev("run_started", id)], 0);
      }
      expect(await store.deleteThread("p", { children: true })).toEqual([
        "p",
        "p:\uFF01",
        "p:\u{1F600}",
      ]);
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

  describe("deleteThread meeting calls made after it listed the branches", () => {
    it("refuses with ThreadBusyError a thread whose new fork a run holds; deletes it once the run ends", async () => {
      await store.append("d1", "main", [ev("run_started", 1), ev("task_finished", 2)], 0);
      onFirstLease(store, async () => {
        await store.createBranch("d1", "d1/main/1", "fk");
        expect(await store.acquireLease("d1", "fk", "run-1", 60_000)).toBe(true);
      });
      const err = await rejects(store.deleteThread("d1"), ThreadBusyError);
      expect([err.message, err.branchId]).toEqual([
        'Thread "d1" (branch "fk") is running; it cannot be deleted until the run ends (or its lease expires)',
        "fk",
      ]);
      expect((await store.listBranches("d1")).map((b) => [b.branchId, b.lastSeq])).toEqual([
        ["main", 2],
        ["fk", 1],
      ]);
      await store.releaseLease("d1", "fk", "run-1");
      expect(await store.deleteThread("d1")).toEqual(["d1"]);
      expect(await store.listBranches("d1")).toEqual([]);
    });

    it("returns [] when another deletion deleted the thread first", async () => {
      await store.append("d2", "main", [ev("run_started", 1)], 0);
      onFirstLease(store, async () => {
        expect(await store.deleteThread("d2")).toEqual(["d2"]);
      });
      expect(await store.deleteThread("d2")).toEqual([]);
      expect(await store.listThreads()).toEqual([]);
    });
  });
}
