/**
 * Deleting a SQLite store's thread (and its child threads): its rows in `branches`, `events`,
 * `snapshots` and `leases`, in one transaction, once no run holds one of its leases.
 *
 * @module
 */
import type Database from "better-sqlite3";
import { ThreadBusyError } from "../../errors/index.js";
import {
  deleteChildren,
  isDeleted,
  MAX_DELETE_ATTEMPTS,
  underLeases,
} from "../../stores/internal.js";
import type { DeleteThreadOptions, StateStore } from "../../stores/types.js";
import type { SqliteStatements } from "./sqlite-state-sql.js";

type Args = readonly [string, 0 | 1, number, string];

/**
 * Delete `threadId` (with `children: true` also its child threads) from `store`'s database:
 * the thread ids deleted. `run` turns a database error into `StateStoreError`; `forget` is
 * called when the deletion is done or failed (the store drops what it cached of branch heads).
 * A deletion whose transaction finds a branch it did not list (a fork another connection made
 * meanwhile, whose lease it does not hold) deletes nothing and starts over.
 * @throws ThreadBusyError when a run holds one of the branches' leases, or when forks kept
 *   appearing for {@link MAX_DELETE_ATTEMPTS} attempts (nothing is deleted); StateStoreError
 *   for an invalid thread id.
 */
export async function deleteSqliteThread(
  store: StateStore,
  db: Database.Database,
  s: SqliteStatements,
  run: <T>(fn: () => T) => T,
  threadId: string,
  options: DeleteThreadOptions | undefined,
  forget: () => void,
): Promise<string[]> {
  const children = deleteChildren(threadId, options);
  const prefix = `${threadId}:`;
  // substr counts characters (code points), not UTF-16 units.
  const args: Args = [threadId, children ? 1 : 0, [...prefix].length, prefix];
  for (let attempt = 1; ; attempt++) {
    const deleted = await deleteOnce(store, db, s, run, threadId, children, args, forget);
    if (deleted !== null) return deleted;
    if (attempt === MAX_DELETE_ATTEMPTS) {
      throw new ThreadBusyError(
        `Thread "${threadId}" got new branches while being deleted, ${MAX_DELETE_ATTEMPTS} times; nothing was deleted`,
        { threadId },
      );
    }
  }
}

/** One attempt: the thread ids deleted, or `null` (nothing deleted) when it met a branch it had not listed. */
function deleteOnce(
  store: StateStore,
  db: Database.Database,
  s: SqliteStatements,
  run: <T>(fn: () => T) => T,
  threadId: string,
  children: boolean,
  args: Args,
  forget: () => void,
): Promise<string[] | null> {
  const list = () =>
    (s.threadBranches.all(...args) as { thread_id: string; branch_id: string }[]).filter((r) =>
      isDeleted(r.thread_id, threadId, children),
    );
  const rows = run(list);
  const branches = rows.map((r) => [r.thread_id, r.branch_id] as const);
  const leased = new Set(rows.map((r) => `${r.thread_id}\u0000${r.branch_id}`));
  return underLeases(store, branches, () =>
    run(() => {
      try {
        return db
          .transaction(() => {
            // The branches as the transaction finds them: one not listed (and leased) makes
            // the attempt start over; the threads deleted are those still there.
            const now = list();
            if (now.some((r) => !leased.has(`${r.thread_id}\u0000${r.branch_id}`))) return null;
            s.deleteEvents.run(...args);
            s.deleteSnapshots.run(...args);
            s.deleteBranches.run(...args);
            return [...new Set(now.map((r) => r.thread_id))];
          })
          .immediate();
      } finally {
        forget();
      }
    }),
  );
}
