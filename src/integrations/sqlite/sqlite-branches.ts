/**
 * `SqliteStateStore`'s branches: making one after an event (`createBranch`), and a thread's
 * branches in one query of the `branches` table (`listBranches`).
 *
 * @module
 */
import type Database from "better-sqlite3";
import { branchExists, newBranchId, unknownEvent } from "../../stores/internal.js";
import type { BranchInfo } from "../../stores/types.js";
import { BRANCH_LAST_SEQ, type SqliteStatements } from "./sqlite-state-sql.js";

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
      `SELECT branch_id, parent_branch, parent_seq, ${BRANCH_LAST_SEQ} AS last_seq FROM branches b WHERE thread_id = ? ORDER BY rowid`,
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

/**
 * A new branch of `threadId` after the event `p` (parsed from `fromEventId`; `null` when it
 * did not parse), named `newBranchIdArg` or a new id. One `IMMEDIATE` transaction of `db`, so
 * that the event is checked under the write lock: a deletion another connection commits
 * meanwhile comes before the check (the event is gone) or after the fork (it deletes the fork
 * too), never between them (a fork of a thread that no longer has the event).
 * @throws UnknownEventError when the event is not in this thread; StateStoreError when the
 *   branch id is taken.
 */
export function createSqliteBranch(
  db: Database.Database,
  s: SqliteStatements,
  threadId: string,
  fromEventId: string,
  p: { threadId: string; branchId: string; seq: number } | null,
  newBranchIdArg: string | undefined,
): BranchInfo {
  return db.transaction(() => makeBranch(s, threadId, fromEventId, p, newBranchIdArg)).immediate();
}

function makeBranch(
  s: SqliteStatements,
  threadId: string,
  fromEventId: string,
  p: { threadId: string; branchId: string; seq: number } | null,
  newBranchIdArg: string | undefined,
): BranchInfo {
  if (!p || p.threadId !== threadId || !s.eventExists.get(threadId, p.branchId, p.seq)) {
    throw unknownEvent(threadId, fromEventId);
  }
  let id = newBranchIdArg;
  if (id === undefined) {
    do id = newBranchId();
    while (s.getBranch.get(threadId, id));
  }
  if (s.insertBranchIfNew.run(threadId, id, p.branchId, p.seq, p.seq).changes !== 1) {
    throw branchExists(threadId, id);
  }
  return {
    threadId,
    branchId: id,
    parent: { branchId: p.branchId, seq: p.seq },
    lastSeq: p.seq,
  };
}
