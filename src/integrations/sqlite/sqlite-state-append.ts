/**
 * The SQLite state store's append path: the operation, run inside a write batch's `BEGIN
 * IMMEDIATE` transaction (sqlite-write-batch.ts), that reads the branch's last event (its row
 * too when it has none), checks the expected seq against it, and inserts the events, each with
 * the branch's running total of bytes. No `branches` row is written (but the one a first append
 * to "main" makes): the events' B-tree is the only one an append changes.
 *
 * @module
 */
import {
  checkSeq,
  checkThreadId,
  concurrentWrite,
  encodedAsStored,
  encodeEvents,
  MAIN_BRANCH,
  unknownBranch,
  utf8Bytes,
} from "../../stores/internal.js";
import type { NewEvent, StoredEvent } from "../../stores/types.js";
import type { BranchRow, SqliteStatements } from "./sqlite-state-sql.js";
import type { SqliteWriteBatch } from "./sqlite-write-batch.js";

/** A `lastEvent` row: the branch's last event's seq and total bytes. */
type LastEventRow = [number, number];

/**
 * The heads (last seq, total bytes) of the branches this connection appended to, as its own
 * commits left them: valid while no other connection committed to the file, which SQLite's
 * `data_version` tells inside each write batch's transaction (then they are all dropped). A
 * cache only: an append reads the branch's last event when its head is not here.
 *
 * Inside a batch ({@link begin} to {@link commit} or {@link discard}) the heads its operations
 * set are kept apart: later operations of the batch see them, the cache gets them only when the
 * batch committed, and a batch that failed leaves none.
 */
export class BranchHeads {
  /** The `data_version` the heads are valid for. */
  version = -1;
  readonly #heads = new Map<string, LastEventRow>();
  /** The heads the open batch set (empty when no batch is open). */
  readonly #batch = new Map<string, LastEventRow>();
  #inBatch = false;

  /**
   * The most heads kept (a map of this many is dropped whole when one more comes): a server's
   * threads running at once, without a heap entry for every idle thread.
   */
  static readonly MAX = 256;

  get(threadId: string, branchId: string): LastEventRow | undefined {
    const key = `${threadId}\u0000${branchId}`;
    return (this.#inBatch && this.#batch.get(key)) || this.#heads.get(key);
  }

  /** The branch's new head: in the cache at once outside a batch, at its commit inside one. */
  set(threadId: string, branchId: string, head: LastEventRow): void {
    const key = `${threadId}\u0000${branchId}`;
    if (this.#inBatch) this.#batch.set(key, head);
    else this.#put(key, head);
  }

  /**
   * A batch's transaction began, and the file's `data_version` (read inside it) is `version`:
   * the heads are dropped when another connection committed since they were kept.
   */
  begin(version: number): void {
    if (version !== this.version) {
      this.#heads.clear();
      this.version = version;
    }
    this.#inBatch = true;
  }

  /** The batch committed: its heads go to the cache. */
  commit(): void {
    if (this.#batch.size > 0) {
      this.#batch.forEach(this.#putEach);
      this.#batch.clear();
    }
    this.#inBatch = false;
  }

  /** The batch failed (nothing of it was written): its heads are dropped. */
  discard(): void {
    if (this.#batch.size > 0) this.#batch.clear();
    this.#inBatch = false;
  }

  /** Forget every head (another connection wrote, or this one deleted threads). */
  clear(): void {
    this.#heads.clear();
    this.#batch.clear();
  }

  readonly #putEach = (head: LastEventRow, key: string): void => this.#put(key, head);

  #put(key: string, head: LastEventRow): void {
    if (this.#heads.size >= BranchHeads.MAX) this.#heads.clear();
    this.#heads.set(key, head);
  }
}

/**
 * The append operation on `s` (run inside a write batch's `IMMEDIATE` transaction, which read
 * the file's `data_version` into `heads`): the events after `expected`, as stored. It writes
 * nothing before its checks pass, and sets the branch's new head in `heads` as its last step.
 * @throws ConcurrentWriteError when the branch is not at `expected`; UnknownBranchError for a
 *   missing branch other than "main"; the database's errors.
 */
export function appendOperation(
  s: SqliteStatements,
  heads: BranchHeads,
): (
  threadId: string,
  branchId: string,
  events: ReturnType<typeof encodeEvents>,
  expectedLastSeq: number,
) => StoredEvent[] {
  return (
    threadId: string,
    branchId: string,
    events: ReturnType<typeof encodeEvents>,
    expected: number,
  ): StoredEvent[] => {
    const n = events.length;
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
      out[i] = encodedAsStored(threadId, branchId, seq, createdAt, e);
    }
    // Last: an operation that threw before here left no head.
    if (n > 0) heads.set(threadId, branchId, [expected + n, total]);
    return out;
  };
}

/**
 * Check and encode an append's arguments (throwing as `append` does: nothing is queued then),
 * and queue the append on `batch`: the events as stored, once its batch committed.
 */
export function queueAppend(
  batch: SqliteWriteBatch,
  append: ReturnType<typeof appendOperation>,
  threadId: string,
  branchId: string,
  events: NewEvent[],
  expectedLastSeq: number,
): Promise<StoredEvent[]> {
  checkThreadId(threadId);
  checkSeq(expectedLastSeq, "expectedLastSeq", threadId, branchId);
  const encoded = encodeEvents(threadId, branchId, events);
  let bytes = 0;
  for (const e of encoded) bytes += e.bytes;
  return batch.enqueue(
    threadId,
    branchId,
    () => append(threadId, branchId, encoded, expectedLastSeq),
    bytes,
  );
}
