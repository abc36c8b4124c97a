/**
 * The `StateStore` contract (contract.ts), `close` (every call after it fails).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StateStoreError } from "../../errors/index.js";
import type { StateStore } from "../types.js";
import { type ContractContext, ev, rejects } from "./contract-helpers.js";

/** Register the contract tests of `close` (every call after it fails). */
export function describeCloseContract(ctx: ContractContext): void {
  let store: StateStore;
  beforeEach(() => {
    store = ctx.store();
  });

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
}
