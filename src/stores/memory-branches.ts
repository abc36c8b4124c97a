/**
 * `MemoryStateStore.listBranches`: a thread's branches from the store's in-memory map.
 *
 * @module
 */
import { type RowLog, rowCount } from "./memory-rows.js";
import type { BranchInfo } from "./types.js";

/** The parts of a memory branch the listing reads. */
export interface MemoryBranchRow {
  branchId: string;
  parent: { branchId: string; seq: number } | null;
  /** Seq before the branch's first own event (its fork point, or 0). */
  start: number;
  /** The branch's own events (only their count is read). */
  rows: RowLog;
}

/**
 * The branches of `threadId` (`branches`: the thread's map, in creation order; `undefined`
 * for a thread that does not exist) as `BranchInfo`s, copies the caller may change.
 */
export function listMemoryBranches(
  threadId: string,
  branches: ReadonlyMap<string, MemoryBranchRow> | undefined,
): BranchInfo[] {
  if (!branches) return [];
  return [...branches.values()].map((b) => ({
    threadId,
    branchId: b.branchId,
    parent: b.parent ? { ...b.parent } : null,
    lastSeq: b.start + rowCount(b.rows),
  }));
}
