/**
 * The `StateStore` contract (contract.ts), leases (one writer per branch: acquire, renew, release, expiry).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { StateStoreError } from "../../errors/index.js";
import type { StateStore } from "../types.js";
import { type ContractContext, rejects, sleep } from "./contract-helpers.js";

/** Register the contract tests of leases (one writer per branch: acquire, renew, release, expiry). */
export function describeLeasesContract(ctx: ContractContext): void {
  let store: StateStore;
  beforeEach(() => {
    store = ctx.store();
  });
  const peer = ctx.peer;

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
      const e = await rejects(store.releaseLease("t1", "main", ""), StateStoreError);
      expect(e.message).toBe('A lease owner must be a non-empty string, got ""');
      await rejects(
        store.releaseLease("t1", "main", undefined as unknown as string),
        StateStoreError,
      );
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
}
