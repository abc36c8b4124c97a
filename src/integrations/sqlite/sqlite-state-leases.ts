/**
 * The SQLite state store's leases and stop requests: taking a lease (over from a holder that
 * is gone, by its recorded machine and process), and the `stop_by` column of a lease's row.
 *
 * @module
 */
import type Database from "better-sqlite3";
import { isGone, thisProcess } from "../../stores/liveness.js";
import type { LeaseRow, SqliteStatements } from "./sqlite-state-sql.js";

/**
 * The transaction (run `IMMEDIATE`) that takes a lease another owner holds when it expired or
 * its holder is gone; `false` when it is still held.
 */
export function leaseTransaction(
  db: Database.Database,
  s: SqliteStatements,
): (threadId: string, branchId: string, owner: string, ttlMs: number) => boolean {
  return db
    .transaction((threadId: string, branchId: string, owner: string, ttlMs: number): boolean => {
      const now = Date.now();
      const held = s.getLease.get(threadId, branchId) as LeaseRow | undefined;
      if (held && held.owner !== owner && held.expires_at > now && !isGone(held)) return false;
      const me = thisProcess();
      s.putLease.run(
        threadId,
        branchId,
        owner,
        Math.ceil(now + ttlMs),
        me.host,
        me.pid,
        me.started,
      );
      return true;
    })
    .immediate.bind(null);
}

/**
 * Take the lease of `threadId`/`branchId` for `owner` for `ttlMs` ms: one statement for the
 * common case, `leaseTx` when another owner holds it. `true` when taken or extended.
 */
export function takeSqliteLease(
  s: SqliteStatements,
  leaseTx: (threadId: string, branchId: string, owner: string, ttlMs: number) => boolean,
  threadId: string,
  branchId: string,
  owner: string,
  ttlMs: number,
): boolean {
  // The common case in one statement (no lease yet, this owner's, or an expired one);
  // a lease another owner holds goes through the transaction, which takes it over only
  // when its holder is gone.
  const now = Date.now();
  const me = thisProcess();
  const taken = s.takeLease.run(
    threadId,
    branchId,
    owner,
    Math.ceil(now + ttlMs),
    me.host,
    me.pid,
    me.started,
    now,
  ).changes;
  return taken === 1 || leaseTx(threadId, branchId, owner, ttlMs);
}

/** Extend `owner`'s lease to `ttlMs` ms from now when it is still `owner`'s: whether it was. */
export function renewSqliteLease(
  s: SqliteStatements,
  threadId: string,
  branchId: string,
  owner: string,
  ttlMs: number,
): boolean {
  return s.renewLease.run(Math.ceil(Date.now() + ttlMs), threadId, branchId, owner).changes === 1;
}

/** Ask the holder of the unexpired lease to stop: the owner asked, or `null`. */
export function requestSqliteStop(
  s: SqliteStatements,
  threadId: string,
  branchId: string,
  by: string,
): string | null {
  const row = s.requestStop.get(by, threadId, branchId, Date.now()) as
    | { owner: string }
    | undefined;
  return row?.owner ?? null;
}

/** The run that asked `owner` to stop, or `null`. */
export function sqliteStopRequested(
  s: SqliteStatements,
  threadId: string,
  branchId: string,
  owner: string,
): string | null {
  const row = s.stopRequested.get(threadId, branchId, owner) as
    | { stop_by: string | null }
    | undefined;
  return row?.stop_by ?? null;
}
