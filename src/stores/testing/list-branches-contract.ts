/**
 * The `listBranches` part of the `StateStore` contract suite (see `describeStateStoreContract`
 * in ./contract.ts, which calls it inside its own `describe`, with its fresh store per test).
 *
 * @module
 */
import { describe, expect, it } from "vitest";
import { StateStoreError } from "../../errors/index.js";
import type { NewEvent, StateStore } from "../types.js";

/** A `run_started` event of run "r1" with `data` `n`. */
const started = (n: number): NewEvent => ({
  type: "run_started",
  runId: "r1",
  step: null,
  taskId: null,
  node: null,
  data: n,
});

/**
 * Register the `listBranches` tests; `store()` is the suite's store of the running test.
 * @example
 * ```ts
 * describeListBranchesContract(() => store);
 * ```
 */
export function describeListBranchesContract(store: () => StateStore): void {
  describe("listBranches", () => {
    it("lists a thread's branches in creation order, as getBranch answers each", async () => {
      const s = store();
      await s.append("t1", "main", [started(1), started(2), started(3)], 0);
      await s.createBranch("t1", "t1/main/2", "zeta");
      await s.append("t1", "zeta", [started(4)], 2);
      await s.createBranch("t1", "t1/zeta/3", "alpha");
      await s.append("t1", "main", [started(5)], 3);
      await s.append("t2", "main", [started(1)], 0);
      await s.createBranch("t2", "t2/main/1", "other");
      const branches = await s.listBranches("t1");
      expect(branches).toEqual([
        { threadId: "t1", branchId: "main", parent: null, lastSeq: 4 },
        { threadId: "t1", branchId: "zeta", parent: { branchId: "main", seq: 2 }, lastSeq: 3 },
        { threadId: "t1", branchId: "alpha", parent: { branchId: "zeta", seq: 3 }, lastSeq: 3 },
      ]);
      for (const b of branches) expect(await s.getBranch("t1", b.branchId)).toEqual(b);
      expect(await s.listBranches("t2")).toEqual([
        { threadId: "t2", branchId: "main", parent: null, lastSeq: 1 },
        { threadId: "t2", branchId: "other", parent: { branchId: "main", seq: 1 }, lastSeq: 1 },
      ]);
    });

    it("answers [] for a thread that does not exist or was deleted", async () => {
      const s = store();
      expect(await s.listBranches("nope")).toEqual([]);
      await s.append("t1", "main", [started(1)], 0);
      await s.deleteThread("t1");
      expect(await s.listBranches("t1")).toEqual([]);
    });

    it("answers [] for an invalid thread id (no thread can have one), as getBranch answers null", async () => {
      const s = store();
      await s.append("t1", "main", [started(1)], 0);
      for (const id of ["", "a\u0000b", "\ud800"]) {
        expect(await s.listBranches(id)).toEqual([]);
        expect(await s.getBranch(id, "main")).toBeNull();
      }
    });

    it("answers copies: changing one does not change the store", async () => {
      const s = store();
      await s.append("t1", "main", [started(1), started(2)], 0);
      await s.createBranch("t1", "t1/main/1", "b");
      const first = await s.listBranches("t1");
      first[1]!.parent!.seq = 99;
      first.pop();
      expect(await s.listBranches("t1")).toEqual([
        { threadId: "t1", branchId: "main", parent: null, lastSeq: 2 },
        { threadId: "t1", branchId: "b", parent: { branchId: "main", seq: 1 }, lastSeq: 1 },
      ]);
    });

    it("throws StateStoreError once the store is closed", async () => {
      const s = store();
      await s.close();
      await expect(s.listBranches("t1")).rejects.toThrow(StateStoreError);
      await expect(s.listBranches("t1")).rejects.toThrow(/closed/);
    });
  });
}
