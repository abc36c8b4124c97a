/**
 * The errors the built-in state stores throw for unknown branches and events, stale writes,
 * taken branch ids, closed stores and snapshots past a branch's end. Internal (see
 * `internal.ts`).
 *
 * @module
 */
import {
  ConcurrentWriteError,
  StateStoreError,
  UnknownBranchError,
  UnknownEventError,
} from "../errors/index.js";

/** The error for an unknown branch. */
export function unknownBranch(threadId: string, branchId: string): UnknownBranchError {
  return new UnknownBranchError(
    `Thread "${threadId}" has no branch "${branchId}". Branches other than "main" are made with createBranch.`,
    { threadId, branchId },
  );
}

/** The error for an unknown event. */
export function unknownEvent(threadId: string, id: string): UnknownEventError {
  return new UnknownEventError(
    `Thread "${threadId}" has no event "${id}". Event ids are "<threadId>/<branchId>/<seq>" as listed by \`nodestep history <thread>\` or by getState and history.`,
    { threadId, eventId: id },
  );
}

/** The error for a write whose `expectedLastSeq` is stale. */
export function concurrentWrite(
  threadId: string,
  branchId: string,
  expected: number,
  actual: number,
): ConcurrentWriteError {
  return new ConcurrentWriteError(
    `Branch "${branchId}" of thread "${threadId}" is at seq ${actual}, not ${expected}: another writer appended since this one read it. Nothing was written; reload the branch and retry.`,
    { threadId, branchId },
  );
}

/** The error for an explicit branch id that is taken. */
export function branchExists(threadId: string, branchId: string): StateStoreError {
  return new StateStoreError(
    `Thread "${threadId}" already has a branch "${branchId}"; choose another id or leave it out for a generated one.`,
    { threadId, branchId },
  );
}

/** The error for a call on a closed store. */
export function closedError(store: string): StateStoreError {
  return new StateStoreError(`The ${store} is closed; open a new one.`);
}

/** The error for a snapshot after the branch's last event. */
export function snapshotBeyondEnd(
  threadId: string,
  branchId: string,
  seq: number,
  lastSeq: number,
): StateStoreError {
  return new StateStoreError(
    `Cannot save a snapshot of thread "${threadId}" branch "${branchId}" after event ${seq}: the branch ends at ${lastSeq}.`,
    { threadId, branchId, field: "snapshot.seq" },
  );
}
