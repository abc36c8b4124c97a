/**
 * Deleting a PostgreSQL store's thread (and its child threads): its rows in `events`,
 * `snapshots` and `branches` in one transaction, once no run holds one of its leases.
 *
 * @module
 */
import { isDeleted, underLeases } from "../../stores/internal.js";
import type { StateStore } from "../../stores/types.js";
import type { PgStore } from "./postgres-state-sql.js";

/**
 * Delete `threadId` (with `children` also its child threads): the thread ids deleted. `run`
 * turns a database error into `StateStoreError`.
 * @throws ThreadBusyError when a run holds one of the branches' leases (nothing is deleted).
 */
export async function deletePostgresThread(
  store: StateStore,
  c: PgStore,
  run: <T>(fn: () => Promise<T>) => Promise<T>,
  threadId: string,
  children: boolean,
): Promise<string[]> {
  const t = c.t;
  const where = "thread_id = $1 OR ($2::boolean AND starts_with(thread_id, $3))";
  const args = [threadId, children, `${threadId}:`];
  const rows = (
    await run(() =>
      c.pool.query<{ thread_id: string; branch_id: string }>(
        `SELECT thread_id, branch_id FROM ${t.branches} WHERE ${where} ORDER BY thread_id COLLATE "C", ord`,
        args,
      ),
    )
  ).rows.filter((r) => isDeleted(r.thread_id, threadId, children));
  const branches = rows.map((r) => [r.thread_id, r.branch_id] as const);
  return underLeases(store, branches, () =>
    run(async () => {
      const client = await c.pool.connect();
      try {
        await client.query("BEGIN");
        // Branch rows first: that waits for a createBranch holding its parent's row (see
        // postgres-branches.ts) and keeps later ones from finding their parent. The last
        // statement, with a snapshot of its own, deletes a branch such a createBranch made.
        for (const table of [t.branches, t.events, t.snapshots, t.branches]) {
          await client.query(`DELETE FROM ${table} WHERE ${where}`, args);
        }
        await client.query("COMMIT");
      } catch (e) {
        await client.query("ROLLBACK").catch(() => {});
        throw e;
      } finally {
        client.release();
      }
      return [...new Set(rows.map((r) => r.thread_id))];
    }),
  );
}
