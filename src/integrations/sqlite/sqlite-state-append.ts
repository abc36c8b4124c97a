/**
 * The SQLite state store's append path: one `BEGIN IMMEDIATE` transaction that checks the
 * branch's last seq, advances it and inserts the events.
 *
 * @module
 */
import type Database from "better-sqlite3";
import {
  concurrentWrite,
  decodeEvent,
  type EventRow,
  type encodeEvents,
  MAIN_BRANCH,
  unknownBranch,
  utf8Bytes,
} from "../../stores/internal.js";
import type { StoredEvent } from "../../stores/types.js";
import type { BranchRow, SqliteStatements } from "./sqlite-state-sql.js";

/**
 * The append transaction of `db` (run `IMMEDIATE`): the events after `expected`, as stored.
 * @throws ConcurrentWriteError, UnknownBranchError (see {@link checkExpected}); the database's errors.
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
        if (events.length === 0) {
          checkExpected(s, threadId, branchId, expected);
          return [];
        }
        const n = events.length;
        const createdAt = Date.now();
        // The key columns' bytes, counted once for every row (see eventRowBytes).
        const keyBytes = utf8Bytes(threadId) + utf8Bytes(branchId);
        let bytes = n * keyBytes;
        for (let i = 0; i < n; i++) bytes += events[i]!.bytes;
        // The sequence check and the branch's advance in one statement (no read first): it
        // changes no row when the branch is elsewhere or does not exist yet, and then the
        // branch is read to say which (the transaction rolls the rest back when that throws).
        if (
          s.advanceBranch.run(expected + n, createdAt, bytes, threadId, branchId, expected)
            .changes !== 1
        ) {
          checkExpected(s, threadId, branchId, expected);
          // A "main" that does not exist yet at 0: its row, already at its new last seq.
          s.insertBranch.run(threadId, branchId, expected + n, createdAt, bytes);
        }
        const out: StoredEvent[] = new Array(n);
        for (let i = 0; i < n; i++) {
          const e = events[i]!;
          const seq = expected + 1 + i;
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
          );
          const row: EventRow = { seq, ...e, createdAt };
          out[i] = decodeEvent(threadId, branchId, row);
        }
        return out;
      },
    )
    .immediate.bind(null);
}

/**
 * Inside an append's transaction: throw unless the branch is at `expected`, or is a "main" that
 * does not exist yet and `expected` is 0 (then the caller creates it).
 * @throws UnknownBranchError for a missing branch other than "main"; ConcurrentWriteError.
 */
export function checkExpected(
  s: SqliteStatements,
  threadId: string,
  branchId: string,
  expected: number,
): void {
  const branch = s.getBranch.get(threadId, branchId) as BranchRow | undefined;
  if (!branch) {
    if (branchId !== MAIN_BRANCH) throw unknownBranch(threadId, branchId);
    if (expected !== 0) throw concurrentWrite(threadId, branchId, expected, 0);
  } else if (branch.last_seq !== expected) {
    throw concurrentWrite(threadId, branchId, expected, branch.last_seq);
  }
}
