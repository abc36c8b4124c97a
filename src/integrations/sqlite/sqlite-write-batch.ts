/**
 * Group commit for the SQLite state store: the write operations (appends, leases, stop
 * requests) called while others are waiting are committed together in one `BEGIN IMMEDIATE`
 * transaction, each in its own savepoint, so that one that throws is undone and rejects alone.
 *
 * The first operation queued schedules the batch with `process.nextTick`. Called from a promise
 * continuation (a run awaiting its store), that tick runs once the microtask queue is empty,
 * that is once every other conversation in flight in the process reached its own next store
 * call: those calls are in the batch. A lone sequential caller pays one tick.
 *
 * An operation's promise settles only after the transaction holding it committed (or failed):
 * acknowledged is committed, as with one transaction per call.
 *
 * @module
 */
import type Database from "better-sqlite3";
import type { BranchHeads } from "./sqlite-state-append.js";
import { sqliteStoreError } from "./sqlite-state-open.js";

/** One queued write: what to run in the batch's transaction, and its promise's settlers. */
interface Op {
  threadId: string;
  branchId: string | undefined;
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Its events' bytes (0 for a lease or stop request), counted against {@link BATCH_MAX_BYTES}. */
  bytes: number;
  /** After it ran: its result, or what it threw when `failed`. */
  value: unknown;
  failed: boolean;
}

/**
 * The most writes one transaction takes; those waiting beyond it go in the next transaction.
 * With {@link BATCH_MAX_BYTES}, it bounds how long one transaction holds the file's write lock
 * and blocks the event loop, and how far the write-ahead log grows before SQLite can
 * checkpoint it (between transactions, never inside one).
 */
export const BATCH_MAX_WRITES = 1_000;

/**
 * The most event bytes (the events' JSON, as counted by `sizeBytes`) one transaction takes,
 * 1 MiB; a single larger write still goes alone in one transaction.
 */
export const BATCH_MAX_BYTES = 1_048_576;

/** The statements a batch runs: its transaction, each operation's savepoint, `data_version`. */
interface BatchStatements {
  begin: Database.Statement;
  commit: Database.Statement;
  rollback: Database.Statement;
  savepoint: Database.Statement;
  release: Database.Statement;
  rollbackTo: Database.Statement;
  dataVersion: Database.Statement;
}

/**
 * The write operations of one SQLite connection waiting for their batch, and the batch's
 * commit. A batch runs synchronously ({@link flush}): nothing else uses the connection while
 * its transaction is open.
 */
export class SqliteWriteBatch {
  readonly #db: Database.Database;
  readonly #heads: BranchHeads;
  /** The database file, for the errors. */
  readonly #path: string;
  /** The batch's statements, prepared by its first commit (a store that only reads has none). */
  #st: BatchStatements | null = null;
  #ops: Op[] = [];
  /** The threads of the queued operations. */
  readonly #threads = new Set<string>();
  #scheduled = false;
  /**
   * The scheduled commit: one transaction of the first waiting writes (up to the caps); when
   * more wait, the next after `setImmediate`, so that the event loop (timers, I/O) runs
   * between the transactions of a burst.
   */
  readonly #tick = (): void => {
    this.#scheduled = false;
    const ops = this.#ops;
    if (ops.length === 0) return;
    const end = chunkEnd(ops, 0);
    if (end === ops.length) {
      this.flush();
      return;
    }
    this.#ops = ops.slice(end);
    this.#threads.clear();
    for (const op of this.#ops) this.#threads.add(op.threadId);
    this.#scheduled = true;
    setImmediate(this.#tick);
    let next = 0;
    while (next < end) next = this.#commitFrom(ops, next, end);
  };

  /**
   * @param db - the store's connection.
   * @param heads - the store's branch heads: a batch's are kept apart until it commits.
   * @param path - the database file, named by the errors operations reject with.
   */
  constructor(db: Database.Database, heads: BranchHeads, path: string) {
    this.#db = db;
    this.#heads = heads;
    this.#path = path;
  }

  /** The batch's statements, prepared on the first call. */
  #s(): BatchStatements {
    if (this.#st !== null) return this.#st;
    const db = this.#db;
    this.#st = {
      begin: db.prepare("BEGIN IMMEDIATE"),
      commit: db.prepare("COMMIT"),
      rollback: db.prepare("ROLLBACK"),
      savepoint: db.prepare("SAVEPOINT nodestep_op"),
      release: db.prepare("RELEASE nodestep_op"),
      rollbackTo: db.prepare("ROLLBACK TO nodestep_op"),
      dataVersion: db.prepare("PRAGMA data_version").pluck(),
    };
    return this.#st;
  }

  /**
   * Queue `run` (a write of `threadId`) for the next batch: its result once the batch
   * committed; what it threw when it threw, or the batch's error when the batch's transaction
   * could not begin or commit (as `StateStoreError`, but the store's own errors).
   */
  enqueue<T>(threadId: string, branchId: string | undefined, run: () => T, bytes = 0): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#ops.push({
        threadId,
        branchId,
        run,
        bytes,
        resolve: resolve as (value: unknown) => void,
        reject,
        value: undefined,
        failed: false,
      });
      this.#threads.add(threadId);
      if (!this.#scheduled) {
        this.#scheduled = true;
        process.nextTick(this.#tick);
      }
    });
  }

  /** The number of operations waiting. */
  get size(): number {
    return this.#ops.length;
  }

  /** Whether an operation of `threadId` (of any thread when omitted) is waiting. */
  pending(threadId?: string): boolean {
    return threadId === undefined ? this.#ops.length > 0 : this.#threads.has(threadId);
  }

  /**
   * Run the waiting operations now, in the order they were queued, and commit them: one
   * transaction up to {@link BATCH_MAX_WRITES} writes and {@link BATCH_MAX_BYTES}, the next
   * ones at once after it (and one more when SQLite rolled one back by itself, after a disk
   * error). Their promises settle after their transaction.
   */
  flush(): void {
    const ops = this.#ops;
    if (ops.length === 0) return;
    this.#ops = [];
    this.#threads.clear();
    let next = 0;
    while (next < ops.length) next = this.#commitFrom(ops, next, chunkEnd(ops, next));
  }

  /**
   * One transaction of the operations from `start` to `end` (excluded): the index of the first
   * one it did not take (`end` but when SQLite rolled the transaction back by itself).
   */
  #commitFrom(ops: Op[], start: number, end: number): number {
    // A lone operation needs no savepoint: the transaction is rolled back when it throws.
    const alone = end - start === 1;
    let i = start;
    try {
      this.#s().begin.run();
      this.#heads.begin(this.#s().dataVersion.get() as number);
      while (i < end && this.#apply(ops[i]!, alone)) i++;
      if (i < end) {
        // SQLite rolled the transaction back (a disk error): the operations before it are lost
        // with it; those after it go in the next transaction.
        this.#heads.discard();
        const cause = ops[i]!.value;
        for (let j = start; j < i; j++) if (!ops[j]!.failed) failWith(ops[j]!, cause);
        this.#settle(ops, start, i + 1);
        return i + 1;
      }
      if (alone && ops[start]!.failed) {
        this.#s().rollback.run();
        this.#heads.discard();
      } else {
        this.#s().commit.run();
        this.#heads.commit();
      }
    } catch (e) {
      // BEGIN, a savepoint or COMMIT failed: nothing of the batch is written. Each operation
      // rejects with that error, but one that threw its own error keeps it.
      if (this.#db.inTransaction) {
        try {
          this.#s().rollback.run();
        } catch {
          // (Rolled back by SQLite meanwhile.)
        }
      }
      this.#heads.discard();
      for (let j = start; j < end; j++) if (j >= i || !ops[j]!.failed) failWith(ops[j]!, e);
      this.#settle(ops, start, end);
      return end;
    }
    this.#settle(ops, start, end);
    return end;
  }

  /**
   * Run `op` in the open transaction (in a savepoint unless `alone`), undoing what it wrote
   * when it throws; `false` when SQLite rolled the whole transaction back.
   */
  #apply(op: Op, alone: boolean): boolean {
    if (!alone) this.#s().savepoint.run();
    try {
      op.value = op.run();
    } catch (e) {
      op.value = e;
      op.failed = true;
      if (!this.#db.inTransaction) return false;
      if (!alone) this.#s().rollbackTo.run();
    }
    if (!alone) this.#s().release.run();
    return true;
  }

  #settle(ops: Op[], start: number, end: number): void {
    for (let j = start; j < end; j++) {
      const op = ops[j]!;
      if (op.failed) op.reject(sqliteStoreError(this.#path, op.threadId, op.branchId, op.value));
      else op.resolve(op.value);
    }
  }
}

/** Where the transaction of the operations from `start` ends (excluded): the caps' limit. */
function chunkEnd(ops: readonly Op[], start: number): number {
  const last = Math.min(ops.length, start + BATCH_MAX_WRITES);
  let bytes = ops[start]!.bytes;
  let end = start + 1;
  while (end < last) {
    bytes += ops[end]!.bytes;
    if (bytes > BATCH_MAX_BYTES) break;
    end++;
  }
  return end;
}

function failWith(op: Op, e: unknown): void {
  op.failed = true;
  op.value = e;
}
