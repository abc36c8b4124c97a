/**
 * Deleting a SQLite store's thread (and its child threads): its rows in `branches`, `events`,
 * `snapshots` and `leases`, in one transaction, once no run holds one of its leases.
 *
 * @module
 */
import type Database from "better-sqlite3";
import { deleteChildren, isDeleted, underLeases } from "../../stores/internal.js";
import type { DeleteThreadOptions, StateStore } from "../../stores/types.js";
import type { SqliteStatements } from "./sqlite-state-sql.js";

/**
 * Delete `threadId` (with `children: true` also its child threads) from `store`'s database:
 * the thread ids deleted. `run` turns a database error into `StateStoreError`; `forget` is
 * called when the deletion is done or failed (the store drops what it cached of branch heads).
 * @throws ThreadBusyError when a run holds one of the branches' leases (nothing is deleted);
 *   StateStoreError for an invalid thread id.
 */
export function deleteSqliteThread(
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
  const args = [threadId, children ? 1 : 0, [...prefix].length, prefix] as const;
  const rows = run(
    () => s.threadBranches.all(...args) as { thread_id: string; branch_id: string }[],
  ).filter((r) => isDeleted(r.thread_id, threadId, children));
  const branches = rows.map((r) => [r.thread_id, r.branch_id] as const);
  return underLeases(store, branches, () =>
    run(() => {
      try {
        return db
          .transaction(() => {
            s.deleteEvents.run(...args);
            s.deleteSnapshots.run(...args);
            s.deleteBranches.run(...args);
            return [...new Set(rows.map((r) => r.thread_id))];
          })
          .immediate();
      } finally {
        forget();
      }
    }),
  );
}
