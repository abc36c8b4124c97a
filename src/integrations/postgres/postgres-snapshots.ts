/**
 * The PostgreSQL state store's snapshots: one row per branch in `snapshots`, replaced by each save.
 *
 * @module
 */
import { decodeSnapshot, snapshotBeyondEnd, unknownBranch } from "../../stores/internal.js";
import type { Snapshot } from "../../stores/types.js";
import { branchRow, MAX_SEQ, type PgStore } from "./postgres-state-sql.js";

/** Save `snapshot` (its encoded `data`, counted `bytes`) as the branch's one snapshot. @throws UnknownBranchError when the branch does not exist; StateStoreError for a seq past its last event. */
export async function savePostgresSnapshot(
  c: PgStore,
  threadId: string,
  branchId: string,
  snapshot: Snapshot,
  data: string,
  bytes: number,
): Promise<void> {
  const t = c.t;
  const res = await c.pool.query(
    `INSERT INTO ${t.snapshots} (thread_id, branch_id, seq, data, bytes)
     SELECT $1::text, $2::text, $3::int, $4::text, $5::bigint FROM ${t.branches}
     WHERE thread_id = $1 AND branch_id = $2 AND last_seq >= $3
     ON CONFLICT (thread_id, branch_id) DO UPDATE
       SET seq = EXCLUDED.seq, data = EXCLUDED.data, bytes = EXCLUDED.bytes`,
    [threadId, branchId, Math.min(snapshot.seq, MAX_SEQ), data, bytes],
  );
  if (res.rowCount === 0) {
    const b = await branchRow(c, threadId, branchId);
    if (!b) throw unknownBranch(threadId, branchId);
    throw snapshotBeyondEnd(threadId, branchId, snapshot.seq, b.last_seq);
  }
}

/** The branch's snapshot, or `null`. @throws StateStoreError for a damaged snapshot. */
export async function loadPostgresSnapshot(
  c: PgStore,
  threadId: string,
  branchId: string,
): Promise<Snapshot | null> {
  const res = await c.pool.query<{ seq: number; data: string }>(
    `SELECT seq, data FROM ${c.t.snapshots} WHERE thread_id = $1 AND branch_id = $2`,
    [threadId, branchId],
  );
  const row = res.rows[0];
  return row ? decodeSnapshot(threadId, branchId, row.seq, row.data) : null;
}
