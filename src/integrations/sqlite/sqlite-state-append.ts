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
 * The heads (last seq, total bytes) of the branches this connection appended to, as its own
 * commits left them: valid while no other connection committed to the file, which SQLite's
 * `data_version` tells inside the append's write transaction (then they are all dropped). A
 * cache only: an append reads the branch's last event when its head is not here.
 */
export class BranchHeads {
  /** The `data_version` the heads are valid for. */
  version = -1;
  readonly #heads = new Map<string, LastEventRow>();

  /**
   * The most heads kept (a map of this many is dropped whole when one more comes): a server's
   * threads running at once, without a heap entry for every idle thread.
   */
  static readonly MAX = 256;

  get(threadId: string, branchId: string): LastEventRow | undefined {
    return this.#heads.get(`${threadId}\u0000${branchId}`);
  }

  /** After a commit: the branch's new head. */
  set(threadId: string, branchId: string, head: LastEventRow): void {
    if (this.#heads.size >= BranchHeads.MAX) this.#heads.clear();
    this.#heads.set(`${threadId}\u0000${branchId}`, head);
  }

  /** Forget every head (another connection wrote, or this one deleted threads). */
  clear(): void {
    this.#heads.clear();
  }
}

/**
 * The append transaction of `db` (run `IMMEDIATE`): the events after `expected`, as stored.
 * @throws ConcurrentWriteError when the branch is not at `expected`; UnknownBranchError for a
 *   missing branch other than "main"; the database's errors.
 */
export function appendTransaction(
  db: Database.Database,
  s: SqliteStatements,
  heads: BranchHeads,
): (
  threadId: string,
  branchId: string,
  events: ReturnType<typeof encodeEvents>,
  expectedLastSeq: number,
) => StoredEvent[] {
  /** The head the transaction leaves, set in the cache once it committed. */
  let pending: LastEventRow | null = null;
  const tx = db
    .transaction(
      (
        threadId: string,
        branchId: string,
        events: ReturnType<typeof encodeEvents>,
        expected: number,
      ): StoredEvent[] => {
        const n = events.length;
        pending = null;
        const version = s.dataVersion.get() as number;
        if (version !== heads.version) {
          heads.clear();
          heads.version = version;
        }
        const lastEvent =
          heads.get(threadId, branchId) ??
          (s.lastEvent.get(threadId, branchId) as LastEventRow | undefined);
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
        if (n > 0) pending = [expected + n, total];
        return out;
      },
    )
    .immediate.bind(null);
  return (threadId, branchId, events, expected) => {
    const out = tx(threadId, branchId, events, expected);
    // Committed: the branch's head is the one it left.
    if (pending !== null) heads.set(threadId, branchId, pending);
    return out;
  };
}
