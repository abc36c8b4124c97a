/**
 * The SQLite state store's thread listing (`listThreads`): all threads, or one page of them,
 * read in one deferred transaction, so that a page is one state of the file.
 *
 * @module
 */
import type Database from "better-sqlite3";
import { byUpdatedAt } from "../../stores/internal.js";
import type { ThreadInfo } from "../../stores/types.js";
import type { SqliteStatements } from "./sqlite-state-sql.js";

/**
 * The listing transaction of `db` (run `DEFERRED`): threads with their branch ids, most
 * recently updated first; the page `limit`/`offset` asks for, or all of them (`limit`
 * infinite and `offset` 0).
 *
 * A page takes one statement for its threads and times, then one per thread for its branch
 * ids. In one transaction they all read the state of the file its first statement saw (a WAL
 * reader's snapshot): another connection's commit meanwhile (a deletion, a fork) is in none of
 * them or, for the next call, in all of them, never in some only (a thread listed with no
 * branches, or with a fork made after its page was chosen). The caller commits the store's own
 * waiting writes first, so they are in it.
 */
export function listTransaction(
  db: Database.Database,
  s: SqliteStatements,
): (limit: number, offset: number) => ThreadInfo[] {
  return db
    .transaction((limit: number, offset: number) => listSqliteThreads(s, limit, offset))
    .deferred.bind(null);
}

/** The listing's statements (see {@link listTransaction}), run inside its transaction. */
function listSqliteThreads(s: SqliteStatements, limit: number, offset: number): ThreadInfo[] {
  if (limit !== Number.POSITIVE_INFINITY || offset !== 0) {
    const page = s.listPage.all(limit === Number.POSITIVE_INFINITY ? -1 : limit, offset) as {
      thread_id: string;
      updated_at: number;
    }[];
    return page.map((r) => ({
      threadId: r.thread_id,
      branches: (s.threadBranches.all(r.thread_id, 0, 0, "") as { branch_id: string }[]).map(
        (b) => b.branch_id,
      ),
      updatedAt: r.updated_at,
    }));
  }
  const threads = new Map<string, ThreadInfo>();
  for (const r of s.listBranches.iterate()) {
    const row = r as { thread_id: string; branch_id: string; updated_at: number };
    let t = threads.get(row.thread_id);
    if (!t) {
      t = { threadId: row.thread_id, branches: [], updatedAt: 0 };
      threads.set(row.thread_id, t);
    }
    t.branches.push(row.branch_id);
    t.updatedAt = Math.max(t.updatedAt, row.updated_at);
  }
  return [...threads.values()].sort(byUpdatedAt);
}
