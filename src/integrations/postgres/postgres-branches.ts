/**
 * `PostgresStateStore`'s branches: making one after an event (`createBranch`), and a thread's
 * branches in one query of the branches table (`listBranches`).
 *
 * @module
 */
import type pg from "pg";
import { branchExists, newBranchId, unknownEvent } from "../../stores/internal.js";
import type { BranchInfo } from "../../stores/types.js";
import type { PgStore } from "./postgres-state-sql.js";

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

/** A new branch of `threadId` after the event `p` (parsed from `fromEventId`), named `newBranchIdArg` or a new id (retried on a clash). @throws UnknownEventError when the event is not in this thread; StateStoreError when the id is taken. */
export async function createPostgresBranch(
  c: PgStore,
  threadId: string,
  fromEventId: string,
  p: { threadId: string; branchId: string; seq: number },
  newBranchIdArg: string | undefined,
): Promise<BranchInfo> {
  const t = c.t;
  // The parent's branch row is locked (FOR KEY SHARE: appends to it, which update it, go on)
  // so that a deleteThread running meanwhile, which deletes the branch rows first, either
  // waits for this insert and then deletes the new branch too, or has deleted the parent
  // (the insert then finds no parent and the event is unknown): no fork outlives its thread.
  for (let attempt = 0; ; attempt++) {
    const id = newBranchIdArg ?? newBranchId();
    const res = await c.pool.query(
      `INSERT INTO ${t.branches} (thread_id, branch_id, parent_branch, parent_seq, last_seq)
       SELECT $1::text, $2::text, $3::text, $4::int, $4::int
       WHERE EXISTS (SELECT 1 FROM ${t.events} WHERE thread_id = $1 AND branch_id = $3 AND seq = $4)
         AND EXISTS (SELECT 1 FROM ${t.branches} WHERE thread_id = $1 AND branch_id = $3 FOR KEY SHARE)
       ON CONFLICT DO NOTHING
       RETURNING 1`,
      [threadId, id, p.branchId, p.seq],
    );
    if (res.rowCount === 1) {
      return {
        threadId,
        branchId: id,
        parent: { branchId: p.branchId, seq: p.seq },
        lastSeq: p.seq,
      };
    }
    const exists = await c.pool.query(
      `SELECT 1 FROM ${t.events} WHERE thread_id = $1 AND branch_id = $2 AND seq = $3`,
      [threadId, p.branchId, p.seq],
    );
    if (exists.rowCount === 0) throw unknownEvent(threadId, fromEventId);
    if (newBranchIdArg !== undefined || attempt >= 5) throw branchExists(threadId, id);
  }
}
