/**
 * `PostgresStateStore.listBranches`: a thread's branches in one query of the branches table.
 *
 * @module
 */
import type pg from "pg";
import type { BranchInfo } from "../../stores/types.js";

interface Row {
  branch_id: string;
  parent_branch: string | null;
  parent_seq: number | null;
  last_seq: number;
}

/**
 * The branches of `threadId` in creation order (the table's `ord`, so `"main"` first), as
 * `BranchInfo`s; `[]` for a thread that does not exist. `table` is the quoted, schema-qualified
 * branches table. Errors are the database's (the store turns them into `StateStoreError`).
 */
export async function listPostgresBranches(
  pool: Pick<pg.Pool, "query">,
  table: string,
  threadId: string,
): Promise<BranchInfo[]> {
  const res = await pool.query<Row>(
    `SELECT branch_id, parent_branch, parent_seq, last_seq FROM ${table} WHERE thread_id = $1 ORDER BY ord`,
    [threadId],
  );
  return res.rows.map((r) => ({
    threadId,
    branchId: r.branch_id,
    parent: r.parent_branch === null ? null : { branchId: r.parent_branch, seq: r.parent_seq ?? 0 },
    lastSeq: r.last_seq,
  }));
}
