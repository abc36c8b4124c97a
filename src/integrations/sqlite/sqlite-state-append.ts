/**
 * The SQLite state store's append path: one `BEGIN IMMEDIATE` transaction that reads the
 * branch's last event (its row too when it has none), checks the expected seq against it, and
 * inserts the events, each with the branch's running total of bytes. No `branches` row is written
 * (but the one a first append to "main" makes): the events' B-tree is the only one an append
 * changes.
 *
 * @module
 */
import type Database from "better-sqlite3";
import {
  concurrentWrite,
  type encodeEvents,
  eventId,
  MAIN_BRANCH,
  unknownBranch,
  utf8Bytes,
} from "../../stores/internal.js";
import type { StoredEvent } from "../../stores/types.js";
import type { BranchRow, SqliteStatements } from "./sqlite-state-sql.js";

/** A `lastEvent` row: the branch's last event's seq and total bytes. */
type LastEventRow = [number, number];

/**
 * The append transaction of `db` (run `IMMEDIATE`): the events after `expected`, as stored.
 * @throws ConcurrentWriteError when the branch is not at `expected`; UnknownBranchError for a
 *   missing branch other than "main"; the database's errors.
 */
export function appendTransaction(
  db: Database.Database,
  s: SqliteStatements,
): (
  threadId: string,
  branchId: string,
  events: ReturnType<typeof encodeEvents>,
  expectedLastSeq: number,
) => StoredEvent[] {
  return db
    .transaction(
      (
        threadId: string,
        branchId: string,
        events: ReturnType<typeof encodeEvents>,
        expected: number,
      ): StoredEvent[] => {
        const n = events.length;
        const lastEvent = s.lastEvent.get(threadId, branchId) as LastEventRow | undefined;
        const createdAt = Date.now();
        let total = 0;
        if (lastEvent !== undefined) {
          // (Events exist only on a branch that exists: a thread's rows are deleted together.)
          if (lastEvent[0] !== expected)
            throw concurrentWrite(threadId, branchId, expected, lastEvent[0]);
          total = lastEvent[1];
        } else {
          // No events of its own: the branch's row says where it is (a fork: the seq it
          // starts after), or that it does not exist.
          const branch = s.getBranch.get(threadId, branchId) as BranchRow | undefined;
          if (branch === undefined) {
            if (branchId !== MAIN_BRANCH) throw unknownBranch(threadId, branchId);
            if (expected !== 0) throw concurrentWrite(threadId, branchId, expected, 0);
            if (n === 0) return [];
            // A first append makes "main" (at 0; its events say where it is from then on).
            s.insertBranch.run(threadId, branchId, createdAt);
          } else if (branch.last_seq !== expected) {
            throw concurrentWrite(threadId, branchId, expected, branch.last_seq);
          }
        }
        // The key columns' bytes, counted for every row (see eventRowBytes).
        const keyBytes = n === 0 ? 0 : utf8Bytes(threadId) + utf8Bytes(branchId);
        const out: StoredEvent[] = new Array(n);
        for (let i = 0; i < n; i++) {
          const e = events[i]!;
          const seq = expected + 1 + i;
          total += keyBytes + e.bytes;
          s.insertEvent.run(
            threadId,
            branchId,
            seq,
            e.type,
            e.runId,
            e.step,
            e.taskId,
            e.node,
            e.data,
            createdAt,
            total,
          );
          // As decodeEvent builds it from the row (same fields, same order); the data parsed
          // back from its JSON, so the caller's objects and the stored event share nothing.
          out[i] = {
            id: eventId(threadId, branchId, seq),
            threadId,
            branchId,
            seq,
            createdAt,
            type: e.type,
            runId: e.runId,
            step: e.step,
            taskId: e.taskId,
            node: e.node,
            data: JSON.parse(e.data),
          };
        }
        return out;
      },
    )
    .immediate.bind(null);
}
