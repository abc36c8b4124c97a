/**
 * What a `MemoryStateStore` holds: its threads (each an array of branches, whose events are a
 * {@link RowLog}), snapshots and leases, and their logical bytes; shared by the store and the
 * views made of it.
 *
 * A thread is the array of its branches in creation order ("main" first), looked up by a scan:
 * an idle thread of one branch costs one small array and one object beyond its events' text
 * (a map per thread cost about 150 bytes more). A thread with b branches costs O(b) string
 * comparisons per call on it.
 *
 * @module
 */
import { type RowLog, rowCount } from "./memory-rows.js";
import type { BranchInfo } from "./types.js";

/** A branch: its own events (the `i`-th has seq `start + 1 + i`) and what the store keeps of it. */
export interface MemBranch extends RowLog {
  branchId: string;
  parent: { branchId: string; seq: number } | null;
  /** Seq before the first own event (the fork point, or 0). */
  start: number;
  /** Time of the branch's last own event, in ms, or 0. */
  updatedAt: number;
  /** Logical bytes of its own events (see `sizeBytes`). */
  bytes: number;
}

/** A thread: its branches in creation order, "main" first. */
export type MemThread = MemBranch[];

/** A branch's latest snapshot: the seq it follows, its data as JSON text, its logical bytes. */
export interface MemSnapshot {
  seq: number;
  data: string;
  bytes: number;
}

/** A branch's lease. */
export interface MemLease {
  owner: string;
  expiresAt: number;
  /** The run that asked the owner to stop (see `requestStop`), or `null`. */
  stopBy: string | null;
}

/** What a store holds: its threads, snapshots and leases, and their logical bytes. */
export interface MemData {
  threads: Map<string, MemThread>;
  /** By {@link keyOf}. */
  snapshots: Map<string, MemSnapshot>;
  /** By {@link keyOf}. */
  leases: Map<string, MemLease>;
  eventBytes: number;
  snapshotBytes: number;
}

/** An empty store's data. */
export function emptyData(): MemData {
  return {
    threads: new Map(),
    snapshots: new Map(),
    leases: new Map(),
    eventBytes: 0,
    snapshotBytes: 0,
  };
}

/** A new branch without events. */
export function newBranch(
  branchId: string,
  parent: { branchId: string; seq: number } | null,
): MemBranch {
  // Every field in one literal (a spread of the log made a slower, larger object: about 650
  // bytes more a thread).
  return {
    segments: [],
    firsts: [],
    count: 0,
    epoch: 0,
    lastRun: null,
    lastRunAt: 0,
    branchId,
    parent,
    start: parent?.seq ?? 0,
    updatedAt: 0,
    bytes: 0,
  };
}

/** The branch `branchId` of `thread`, or `undefined`. */
export function findBranch(thread: MemThread | undefined, branchId: string): MemBranch | undefined {
  if (!thread) return undefined;
  for (const b of thread) if (b.branchId === branchId) return b;
  return undefined;
}

/** The branch's last seq (its fork point when it has no own events). */
export function lastSeqOf(b: MemBranch): number {
  return b.start + rowCount(b);
}

/** The branch as a `BranchInfo`, a copy the caller may change. */
export function branchInfo(threadId: string, b: MemBranch): BranchInfo {
  return {
    threadId,
    branchId: b.branchId,
    parent: b.parent ? { ...b.parent } : null,
    lastSeq: lastSeqOf(b),
  };
}

/** Key of a branch's snapshot and lease. */
export function keyOf(threadId: string, branchId: string): string {
  return `${threadId}\u0000${branchId}`;
}
