/**
 * `SqliteStateStore`: the event log in one SQLite file (better-sqlite3), the embedded default
 * on disk. This class holds the event log's methods (append, reads, branches, snapshots,
 * threads, deletion, the file's size and upkeep) and checks their arguments; its base class
 * (sqlite-state-leasing.ts) opening, closing, leases and stop requests; the plumbing
 * (connection, statements, write batch, error mapping) is sqlite-state-core.ts. The work is in
 * sqlite-state-*.ts (open, schema, sql, append, read, list, leases, snapshots, delete, file),
 * sqlite-write-batch.ts and sqlite-branches.ts.
 *
 * @module
 */
import {
  checkBranchId,
  checkThreadId,
  encodeSnapshot,
  listBounds,
  parseEventId,
  readBounds,
  snapshotRowBytes,
} from "../../stores/internal.js";
import type {
  BranchInfo,
  DeleteThreadOptions,
  ListThreadsOptions,
  NewEvent,
  Snapshot,
  StateStore,
  StoredEvent,
  ThreadInfo,
} from "../../stores/types.js";
import { createSqliteBranch, listSqliteBranches } from "./sqlite-branches.js";
import { queueAppend } from "./sqlite-state-append.js";
import { type SqliteCore, storeCores } from "./sqlite-state-core.js";
import { deleteSqliteThread } from "./sqlite-state-delete.js";
import {
  checkpointSqliteFile,
  compactSqliteFile,
  sqliteFileSizeBytes,
} from "./sqlite-state-file.js";
import { SqliteLeasing } from "./sqlite-state-leasing.js";
import type { SqliteStateStoreOptions } from "./sqlite-state-options.js";
import { getSqliteEvent } from "./sqlite-state-read.js";
import { loadSqliteSnapshot, saveSqliteSnapshot } from "./sqlite-state-snapshots.js";
import { type BranchRow, toBranchInfo } from "./sqlite-state-sql.js";

export { SQLITE_SCHEMA_VERSION } from "./sqlite-versions.js";
export type { SqliteStateStoreOptions };

/**
 * A {@link StateStore} in one SQLite file, through better-sqlite3.
 *
 * The file is in WAL mode. The writes (appends, leases, stop requests) called while others
 * wait are committed together, at the next `process.nextTick`: one `BEGIN IMMEDIATE`
 * transaction, each write in its own savepoint, so one that throws is undone and rejects alone
 * (sqlite-write-batch.ts). A write's promise resolves once that transaction committed. An append
 * checks `expectedLastSeq` against the branch's last event (one seek, never a scan of the
 * events) and writes the events' B-tree only, so several processes can share one file and
 * exactly one of two racing writers wins.
 * With the default `synchronous: "NORMAL"`, an append that resolved survives SIGKILL of the
 * process; `"FULL"` also survives power loss.
 *
 * Event data is stored as JSON text, byte for byte what `JSON.stringify` wrote. Opening a file
 * written with a schema version other than 1 (migrated to 2 when opened) or 2, or reading a
 * damaged row, raises `StateStoreError`; the store never returns a silently wrong or emptied
 * history.
 *
 * better-sqlite3 is synchronous: the other methods do their work when called, first committing
 * the waiting writes of their thread (all of them for the whole-store ones), so calls apply in
 * the order they were made; a query blocks the event loop for its time (microseconds to
 * milliseconds).
 *
 * @throws StateStoreError from the constructor when the file cannot be opened, is not a SQLite
 *   database, is not a nodestep store, was written by a schema version other than 1 or 2, or
 *   is a version 1 file this process cannot write (to migrate it).
 * @example
 * ```ts
 * import { SqliteStateStore } from "nodestep/sqlite";
 * const store = new SqliteStateStore({ path: "threads.db" });
 * await store.append("t1", "main", [
 *   { type: "run_started", runId: "r1", step: null, taskId: null, node: null, data: { input: "hi" } },
 * ], 0);
 * console.log((await store.read("t1", "main")).length); // 1
 * await store.close();
 * ```
 */
export class SqliteStateStore extends SqliteLeasing implements StateStore {
  /** The connection, statements, write batch and error mapping (the base class's). */
  readonly #c: SqliteCore;

  /**
   * Open (or create) the store's file and its tables.
   * @throws StateStoreError when the file cannot be opened or holds an incompatible schema.
   */
  constructor(options: SqliteStateStoreOptions) {
    super(options);
    this.#c = storeCores.get(this)!;
  }

  /**
   * Append events to a branch, in one transaction with the other writes waiting; see
   * {@link StateStore.append}.
   * @throws ConcurrentWriteError when the branch is not at `expectedLastSeq`; UnknownBranchError
   *   for an unknown branch other than "main"; StateStoreError for non-JSON data (with `field`),
   *   a database error, or a closed store. Nothing is written when it throws.
   */
  append(
    threadId: string,
    branchId: string,
    events: NewEvent[],
    expectedLastSeq: number,
  ): Promise<StoredEvent[]> {
    // (Not async: its promise is the batch's own, one hop fewer for the caller's await.)
    try {
      this.#c.open();
      return queueAppend(
        this.#c.batch,
        this.#c.append,
        threadId,
        branchId,
        events,
        expectedLastSeq,
      );
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Events of a branch, its parent chain's first; see {@link StateStore.read}. Reads in one
   * transaction, so it sees one consistent state of the file.
   * @throws UnknownBranchError for an unknown branch other than "main"; StateStoreError for a
   *   damaged row (naming the thread, branch and seq), a closed store, or bad options.
   */
  async read(
    threadId: string,
    branchId: string,
    options?: { afterSeq?: number; uptoSeq?: number },
  ): Promise<StoredEvent[]> {
    this.#c.open();
    checkThreadId(threadId);
    const { afterSeq, uptoSeq } = readBounds(threadId, branchId, options);
    this.#c.open(threadId); // after the checks: a bad call commits nothing
    return this.#c.run(threadId, branchId, () =>
      this.#c.readTx(threadId, branchId, afterSeq, uptoSeq),
    );
  }

  /** The branch, or `null` when it does not exist. @throws StateStoreError for a closed store. */
  async getBranch(threadId: string, branchId: string): Promise<BranchInfo | null> {
    this.#c.open(threadId);
    return this.#c.run(threadId, branchId, () => {
      const row = this.#c.s.getBranch.get(threadId, branchId) as BranchRow | undefined;
      return row ? toBranchInfo(threadId, branchId, row) : null;
    });
  }

  /** The thread's branches, in creation order; see {@link StateStore.listBranches}. */
  async listBranches(threadId: string): Promise<BranchInfo[]> {
    this.#c.open(threadId);
    return this.#c.run(threadId, undefined, () => listSqliteBranches(this.#c.db, threadId));
  }

  /**
   * One event by id, or `null`.
   * @throws StateStoreError for a damaged row or a closed store.
   */
  async getEvent(eventId: string): Promise<StoredEvent | null> {
    this.#c.open();
    const p = parseEventId(eventId);
    if (!p) return null;
    this.#c.open(p.threadId);
    return this.#c.run(p.threadId, p.branchId, () => getSqliteEvent(this.#c.s, p));
  }

  /**
   * A new branch after event `fromEventId`; see {@link StateStore.createBranch}.
   * @throws UnknownEventError when the event is not in this thread; StateStoreError when
   *   `newBranchId` is taken or invalid (empty or containing `/`), or the store is closed.
   */
  async createBranch(
    threadId: string,
    fromEventId: string,
    newBranchIdArg?: string,
  ): Promise<BranchInfo> {
    this.#c.open();
    checkThreadId(threadId);
    if (newBranchIdArg !== undefined) checkBranchId(threadId, newBranchIdArg);
    const p = parseEventId(fromEventId);
    this.#c.open(threadId); // after the checks: a bad call commits nothing
    return this.#c.run(threadId, newBranchIdArg, () =>
      createSqliteBranch(this.#c.db, this.#c.s, threadId, fromEventId, p, newBranchIdArg),
    );
  }

  /**
   * Keep a snapshot of the branch after event `snapshot.seq`, replacing the previous one.
   * @throws UnknownBranchError when the branch does not exist; StateStoreError for non-JSON data
   *   (with `field`), a seq past the branch's last event, or a closed store.
   */
  async saveSnapshot(threadId: string, branchId: string, snapshot: Snapshot): Promise<void> {
    this.#c.open();
    checkThreadId(threadId);
    const data = encodeSnapshot(threadId, branchId, snapshot);
    const bytes = snapshotRowBytes(threadId, branchId, data);
    this.#c.open(threadId); // after the checks: a bad call commits nothing
    this.#c.run(threadId, branchId, () =>
      saveSqliteSnapshot(this.#c.s, threadId, branchId, snapshot, data, bytes),
    );
  }

  /**
   * The branch's latest snapshot, or `null`.
   * @throws StateStoreError for a damaged snapshot or a closed store.
   */
  async loadSnapshot(threadId: string, branchId: string): Promise<Snapshot | null> {
    this.#c.open(threadId);
    return this.#c.run(threadId, branchId, () => loadSqliteSnapshot(this.#c.s, threadId, branchId));
  }

  /**
   * Threads with their branch ids (creation order), most recently updated first (ties by
   * thread id); all of them, or the page `options` asks for. After committing the waiting
   * writes, it reads in one deferred transaction, so a page is one state of the file: a commit
   * of another connection meanwhile is in all of it or none (sqlite-state-list.ts).
   * @throws StateStoreError for a bad `limit` or `offset` (checked before the waiting writes
   *   are committed: a bad call commits nothing), or a closed store.
   */
  async listThreads(options?: ListThreadsOptions): Promise<ThreadInfo[]> {
    this.#c.open();
    const { limit, offset } = listBounds(options); // before the flush: a bad call changes nothing
    this.#c.openAll();
    return this.#c.run(undefined, undefined, () => this.#c.listTx(limit, offset));
  }

  /**
   * Delete a thread (and with `children: true` its child threads) in one transaction: its
   * rows in `branches`, `events`, `snapshots` and `leases`; see {@link StateStore.deleteThread}.
   * The file does not shrink by itself: the pages freed are reused by later writes, and
   * {@link compact} gives them back to the file system.
   * @throws ThreadBusyError when a run holds one of its branches' leases (nothing is deleted);
   *   StateStoreError for an invalid thread id or a closed store.
   */
  async deleteThread(threadId: string, options?: DeleteThreadOptions): Promise<string[]> {
    this.#c.open();
    return deleteSqliteThread(
      this,
      this.#c.db,
      this.#c.s,
      (fn) => {
        this.#c.openAll(); // (writes called before a step of the deletion come before it)
        return this.#c.run(threadId, undefined, fn);
      },
      threadId,
      options,
      () => this.#c.heads.clear(),
    );
  }

  /**
   * Give the pages that deleted threads left free back to the file system: checkpoint the
   * write-ahead log, then `VACUUM` (which rewrites the whole file: it needs free disk space of
   * about the file's size and holds the write lock while it runs, so run it when the store is
   * quiet). Until then the freed pages are reused by later writes.
   * @throws StateStoreError for a closed store or when another connection is writing.
   */
  async compact(): Promise<void> {
    this.#c.openAll();
    this.#c.run(undefined, undefined, () => compactSqliteFile(this.#c.db));
  }

  /**
   * Logical bytes stored: for each event the UTF-8 bytes of its data JSON and text columns plus
   * 8 per number, and the same for snapshots (kept per branch, so this reads one row per
   * branch). Page slack, indexes and the WAL are not counted; see {@link fileSizeBytes}.
   */
  async sizeBytes(): Promise<number> {
    this.#c.openAll();
    return this.#c.run(undefined, undefined, () => (this.#c.s.sizeBytes.get() as { n: number }).n);
  }

  /**
   * Bytes the store takes on disk now: the database file plus its `-wal` file (0 for `":memory:"`).
   * @throws StateStoreError for a closed store.
   */
  async fileSizeBytes(): Promise<number> {
    this.#c.openAll();
    return sqliteFileSizeBytes(this.path);
  }

  /**
   * Copy what the write-ahead log holds into the database file and truncate the log to 0 bytes
   * (`PRAGMA wal_checkpoint(TRUNCATE)`), as closing does. Useful before copying the file or
   * measuring it. A checkpoint that readers in other connections hold back stops where they
   * are and leaves the rest for the next one.
   * @throws StateStoreError for a closed store.
   */
  async checkpoint(): Promise<void> {
    this.#c.openAll();
    this.#c.run(undefined, undefined, () => checkpointSqliteFile(this.#c.db));
  }
}
