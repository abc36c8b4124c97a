/**
 * Deleting a PostgreSQL store's thread (and its child threads): its rows in `events`,
 * `snapshots` and `branches` in one transaction, once no run holds one of its leases.
 *
 * @module
 */
import { ThreadBusyError } from "../../errors/index.js";
import { isDeleted, MAX_DELETE_ATTEMPTS, underLeases } from "../../stores/internal.js";
import type { StateStore } from "../../stores/types.js";
import type { PgStore } from "./postgres-state-sql.js";

export { MAX_DELETE_ATTEMPTS };

const key = (t: string, b: string) => `${t}\u0000${b}`;

/**
 * Delete `threadId` (with `children` also its child threads): the thread ids deleted. `run`
 * turns a database error into `StateStoreError`.
 *
 * The branches are listed, their leases taken, then one transaction deletes the rows. A fork
 * made between the listing and the transaction's last statement is not among the leased
 * branches, and a run may hold its lease: the transaction sees it in the rows it deletes
 * (`RETURNING`), rolls back, and the deletion starts over, listing the fork and taking its
 * lease too (so a run on it makes it throw `ThreadBusyError`, as one on any other branch does).
 * @throws ThreadBusyError when a run holds one of the branches' leases (nothing is deleted),
 *   or when forks kept appearing for {@link MAX_DELETE_ATTEMPTS} attempts.
 */
export async function deletePostgresThread(
  store: StateStore,
  c: PgStore,
  run: <T>(fn: () => Promise<T>) => Promise<T>,
  threadId: string,
  children: boolean,
): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    const deleted = await deleteOnce(store, c, run, threadId, children);
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
async function deleteOnce(
  store: StateStore,
  c: PgStore,
  run: <T>(fn: () => Promise<T>) => Promise<T>,
  threadId: string,
  children: boolean,
): Promise<string[] | null> {
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
  const leased = new Set(branches.map(([tid, b]) => key(tid, b)));
  return underLeases(store, branches, () =>
    run(async () => {
      const client = await c.pool.connect();
      const gone = new Set<string>();
      try {
        await client.query("BEGIN");
        // Branch rows first: that waits for a createBranch holding its parent's row (see
        // postgres-branches.ts) and keeps later ones from finding their parent. The last
        // statement, with a snapshot of its own, deletes a branch such a createBranch made.
        let unlisted = false;
        for (const table of [t.branches, t.events, t.snapshots, t.branches]) {
          const res = await client.query<{ thread_id: string; branch_id: string }>(
            `DELETE FROM ${table} WHERE ${where}${table === t.branches ? " RETURNING thread_id, branch_id" : ""}`,
            args,
          );
          if (table !== t.branches) continue;
          if (res.rows.some((r) => !leased.has(key(r.thread_id, r.branch_id)))) unlisted = true;
          for (const r of res.rows) gone.add(r.thread_id);
        }
        if (unlisted) {
          await client.query("ROLLBACK");
          return null;
        }
        await client.query("COMMIT");
      } catch (e) {
        await client.query("ROLLBACK").catch(() => {});
        throw e;
      } finally {
        client.release();
      }
      // The listed threads the transaction found and deleted (another deletion may have been first).
      return [...new Set(rows.map((r) => r.thread_id))].filter((id) => gone.has(id));
    }),
  );
}
