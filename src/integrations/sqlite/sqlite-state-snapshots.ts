/**
 * The SQLite state store's snapshots: one row per branch in `snapshots`, replaced by each save.
 *
 * @module
 */
import { decodeSnapshot, snapshotBeyondEnd, unknownBranch } from "../../stores/internal.js";
import type { Snapshot } from "../../stores/types.js";
import type { BranchRow, SqliteStatements } from "./sqlite-state-sql.js";

/**
 * Save `snapshot` (its encoded `data`, counted `bytes`) as the branch's one snapshot.
 * @throws UnknownBranchError when the branch does not exist; StateStoreError for a seq past
 *   the branch's last event.
 */
export function saveSqliteSnapshot(
  s: SqliteStatements,
  threadId: string,
  branchId: string,
  snapshot: Snapshot,
  data: string,
  bytes: number,
): void {
  const changed = s.saveSnapshot.run(
    threadId,
    branchId,
    snapshot.seq,
    data,
    bytes,
    threadId,
    branchId,
    snapshot.seq,
  ).changes;
  if (changed === 0) {
    const b = s.getBranch.get(threadId, branchId) as BranchRow | undefined;
    if (!b) throw unknownBranch(threadId, branchId);
    throw snapshotBeyondEnd(threadId, branchId, snapshot.seq, b.last_seq);
  }
}

/** The branch's snapshot, or `null`. @throws StateStoreError for a damaged snapshot. */
export function loadSqliteSnapshot(
  s: SqliteStatements,
  threadId: string,
  branchId: string,
): Snapshot | null {
  const row = s.loadSnapshot.get(threadId, branchId) as { seq: number; data: string } | undefined;
  return row ? decodeSnapshot(threadId, branchId, row.seq, row.data) : null;
}
