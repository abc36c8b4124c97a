/**
 * `SqliteStateStore.listBranches`: a thread's branches in one query of the `branches` table.
 *
 * @module
 */
import type Database from "better-sqlite3";
import type { BranchInfo } from "../../stores/types.js";

/** The statement per database (prepared once; a closed database's goes with it). */
const statements = new WeakMap<Database.Database, Database.Statement>();

interface Row {
  branch_id: string;
  parent_branch: string | null;
  parent_seq: number | null;
  last_seq: number;
}

/**
 * The branches of `threadId` in creation order (the table's `rowid`, so `"main"` first), as
 * `BranchInfo`s; `[]` for a thread that does not exist. Errors are the database's (the store
 * turns them into `StateStoreError`).
 */
export function listSqliteBranches(db: Database.Database, threadId: string): BranchInfo[] {
  let stmt = statements.get(db);
  if (!stmt) {
    stmt = db.prepare(
      "SELECT branch_id, parent_branch, parent_seq, last_seq FROM branches WHERE thread_id = ? ORDER BY rowid",
    );
    statements.set(db, stmt);
  }
  return (stmt.all(threadId) as Row[]).map((r) => ({
    threadId,
    branchId: r.branch_id,
    parent: r.parent_branch === null ? null : { branchId: r.parent_branch, seq: r.parent_seq ?? 0 },
    lastSeq: r.last_seq,
  }));
}
