/**
 * The `StateStore` contract (contract.ts), branch snapshots (`putSnapshot`, `getSnapshot`).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StateStoreError, UnknownBranchError } from "../../errors/index.js";
import type { JsonValue } from "../../json/index.js";
import type { StateStore } from "../types.js";
import { type ContractContext, ev, rejects } from "./contract-helpers.js";

/** Register the contract tests of branch snapshots (`putSnapshot`, `getSnapshot`). */
export function describeSnapshotsContract(ctx: ContractContext): void {
  let store: StateStore;
  beforeEach(() => {
    store = ctx.store();
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
      await rejects(store.saveSnapshot("nobody", "main", { seq: 0, data: 1 }), UnknownBranchError);
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
}
