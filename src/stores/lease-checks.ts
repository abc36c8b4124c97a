/**
 * The arguments of leases and stop requests checked, and the longest lease a store grants.
 * Internal (see `internal.ts`).
 *
 * @module
 */
import { StateStoreError } from "../errors/index.js";
import { checkBranchId, checkThreadId } from "./ids.js";
import { show } from "./show-value.js";

/**
 * The longest lease a store grants, in ms: 2^31 − 1 (about 24.8 days), the longest timer Node
 * keeps (a run renews its lease on a timer of a third of it), and well inside every store's
 * integer columns (PostgreSQL's `bigint` refuses `1e300`).
 */
export const MAX_LEASE_TTL_MS = 2_147_483_647;

/**
 * Check the arguments of `acquireLease` and `renewLease`: {@link checkReleaseArgs}'s, and the ttl.
 * @throws StateStoreError for a bad thread or branch id, owner, or ttl.
 */
export function checkLease(threadId: string, branchId: string, owner: string, ttlMs: number): void {
  checkReleaseArgs(threadId, branchId, owner);
  if (
    typeof ttlMs !== "number" ||
    !Number.isFinite(ttlMs) ||
    ttlMs <= 0 ||
    ttlMs > MAX_LEASE_TTL_MS
  ) {
    throw new StateStoreError(
      `A lease ttlMs must be a positive number of ms up to ${MAX_LEASE_TTL_MS}, got ${show(ttlMs)}`,
      {
        threadId,
        branchId,
        field: "ttlMs",
      },
    );
  }
}

/**
 * Check `releaseLease`'s arguments (the thread, the branch and the owner of every lease call).
 * @throws StateStoreError for a bad thread or branch id, or an owner that is not a non-empty
 *   string.
 */
export function checkReleaseArgs(threadId: string, branchId: string, owner: string): void {
  checkThreadId(threadId);
  checkBranchId(threadId, branchId);
  if (typeof owner !== "string" || owner === "") {
    throw new StateStoreError(`A lease owner must be a non-empty string, got ${show(owner)}`, {
      threadId,
      branchId,
      field: "owner",
    });
  }
}

/**
 * Check the arguments of `requestStop` (`by`) and `stopRequested` (`owner`).
 * @throws StateStoreError for a bad thread id, branch id or run id.
 */
export function checkStopArgs(threadId: string, branchId: string, field: string, id: string): void {
  checkThreadId(threadId);
  checkBranchId(threadId, branchId);
  if (typeof id !== "string" || id === "") {
    throw new StateStoreError(
      `A stop request's ${field} must be a non-empty string, got ${show(id)}`,
      {
        threadId,
        branchId,
        field,
      },
    );
  }
}
