/**
 * `PostgresStateStore`: the event log in PostgreSQL (pg), for many processes and machines
 * sharing threads. This class holds the event log's methods (append, reads, branches,
 * snapshots, threads, deletion) and checks their arguments; its base class
 * (postgres-state-leasing.ts) the set-up, closing, leases and stop requests; the plumbing
 * (pool, tables, error mapping) is postgres-state-core.ts. The work is in postgres-state-*.ts
 * (options, schema, sql), postgres-append.ts, postgres-reads.ts, postgres-branches.ts,
 * postgres-snapshots.ts, postgres-leases.ts and postgres-delete.ts.
 *
 * @module
 */
import { StateStoreError } from "../../errors/index.js";
import {
  checkBranchId,
  checkLease,
  checkSeq,
  checkThreadId,
  deleteChildren,
  encodeEvents,
  encodeSnapshot,
  isThreadId,
  listBounds,
  parseEventId,
  readBounds,
  snapshotRowBytes,
  unknownEvent,
} from "../../stores/internal.js";
import type {
  BranchInfo,
  DeleteThreadOptions,
  LeasedAppend,
  ListThreadsOptions,
  NewEvent,
  Snapshot,
  StateStore,
  StoredEvent,
  ThreadInfo,
} from "../../stores/types.js";
import { appendPostgres } from "./postgres-append.js";
import { createPostgresBranch, listPostgresBranches } from "./postgres-branches.js";
import { deletePostgresThread } from "./postgres-delete.js";
import {
  getPostgresBranch,
  getPostgresEvent,
  listPostgresThreads,
  postgresSizeBytes,
  readPostgres,
} from "./postgres-reads.js";
import { loadPostgresSnapshot, savePostgresSnapshot } from "./postgres-snapshots.js";
import { type PostgresCore, storeCores } from "./postgres-state-core.js";
import { PostgresLeasing } from "./postgres-state-leasing.js";
import type { PostgresStateStoreOptions } from "./postgres-state-options.js";
import { MAX_SEQ } from "./postgres-state-sql.js";

export type { PostgresStateStoreOptions } from "./postgres-state-options.js";
export { POSTGRES_SCHEMA_VERSION } from "./postgres-version.js";

/**
 * A {@link StateStore} in PostgreSQL, for several processes and machines sharing threads.
 *
 * Tables live in their own schema (`schema`, default `"nodestep"`), created on first use with a
 * `meta` table holding the schema version. Event data is stored as `text`, exactly the JSON
 * that `JSON.stringify` wrote: `jsonb` would reorder keys and reject nothing at read time that
 * could be told apart from damage, and `text` keeps {@link sizeBytes} honest (PostgreSQL may
 * still compress large values on disk).
 *
 * Each append is one SQL statement, so one transaction: it advances `branches.last_seq` only
 * where it still equals `expectedLastSeq` (a row lock serializes racing writers; the loser sees
 * 0 rows and gets `ConcurrentWriteError`) and inserts the events in the same statement. No
 * append reads the events table. Leases use the database's clock.
 *
 * @throws StateStoreError (from any method) when the server cannot be reached, the schema was
 *   written by another version (telling to migrate), or a row is damaged.
 * @example
 * ```ts
 * import { PostgresStateStore } from "nodestep/postgres";
 * const store = new PostgresStateStore({
 *   connectionString: "postgres://postgres@127.0.0.1:5432/app",
 *   schema: "agents",
 * });
 * await store.append("t1", "main", [
 *   { type: "run_started", runId: "r1", step: null, taskId: null, node: null, data: null },
 * ], 0);
 * await store.close();
 * ```
 */
export class PostgresStateStore extends PostgresLeasing implements StateStore {
  /** The pool, tables, set-up and error mapping (the base class's). */
  readonly #c: PostgresCore;

  /**
   * Make the store; nothing is sent to the server until the first call.
   * @throws StateStoreError for an invalid schema name, a system schema (`pg_*`,
   *   `information_schema`) or `public`, or when neither `connectionString` nor `pool` is given.
   */
  constructor(options: PostgresStateStoreOptions) {
    super(options);
    this.#c = storeCores.get(this)!;
  }

  /**
   * Append events to a branch in one statement (a named, prepared statement: one round trip);
   * see {@link StateStore.append}.
   * @throws ConcurrentWriteError when the branch is not at `expectedLastSeq`; UnknownBranchError
   *   for an unknown branch other than "main"; StateStoreError for non-JSON data (with `field`),
   *   a database error, or a closed store. Nothing is written when it throws.
   */
  async append(
    threadId: string,
    branchId: string,
    events: NewEvent[],
    expectedLastSeq: number,
  ): Promise<StoredEvent[]> {
    return (await this.#append(threadId, branchId, events, expectedLastSeq, null)).events;
  }

  /**
   * Append as the lease's holder in one statement, one round trip (see
   * {@link StateStore.appendLeased}): the statement extends `owner`'s row in `leases` to
   * `ttlMs` ms of the database's clock from now, advances `branches.last_seq` only where it is
   * still `expectedLastSeq` and the lease row was `owner`'s, inserts the events, and returns
   * the row's `stop_by`. A run sends one such statement per superstep and nothing else.
   * @throws what {@link append} throws; StateStoreError for an empty owner or a ttl ≤ 0.
   */
  async appendLeased(
    threadId: string,
    branchId: string,
    events: NewEvent[],
    expectedLastSeq: number,
    lease: { owner: string; ttlMs: number },
  ): Promise<LeasedAppend> {
    checkLease(threadId, branchId, lease?.owner, lease?.ttlMs);
    return this.#append(threadId, branchId, events, expectedLastSeq, lease);
  }

  async #append(
    threadId: string,
    branchId: string,
    events: NewEvent[],
    expectedLastSeq: number,
    lease: { owner: string; ttlMs: number } | null,
  ): Promise<LeasedAppend> {
    this.#c.open();
    checkThreadId(threadId);
    checkSeq(expectedLastSeq, "expectedLastSeq", threadId, branchId);
    const encoded = encodeEvents(threadId, branchId, events);
    if (expectedLastSeq + encoded.length > MAX_SEQ) {
      throw new StateStoreError(`A branch holds at most ${MAX_SEQ} events`, { threadId, branchId });
    }
    const c = this.#c;
    // The append is a run's one statement per superstep: no turn of the event loop spent on a
    // set-up that is done, and no closure for the error mapping.
    if (!c.isSet) await c.ready();
    try {
      return await appendPostgres(c, threadId, branchId, encoded, expectedLastSeq, lease);
    } catch (e) {
      throw c.storeError(e, threadId, branchId);
    }
  }

  /**
   * Events of a branch, its parent chain's first; see {@link StateStore.read}. Returns the
   * events up to the branch's `lastSeq` as of the start of the read.
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
    await this.#c.ready();
    return this.#c.run(threadId, branchId, () =>
      readPostgres(this.#c, threadId, branchId, afterSeq, uptoSeq),
    );
  }

  /** The branch, or `null` when it does not exist. @throws StateStoreError for a closed store or a database error. */
  async getBranch(threadId: string, branchId: string): Promise<BranchInfo | null> {
    this.#c.open();
    if (!isThreadId(threadId)) return null;
    await this.#c.ready();
    return this.#c.run(threadId, branchId, () => getPostgresBranch(this.#c, threadId, branchId));
  }

  /** The thread's branches, in creation order; see {@link StateStore.listBranches}. */
  async listBranches(threadId: string): Promise<BranchInfo[]> {
    this.#c.open();
    if (!isThreadId(threadId)) return [];
    await this.#c.ready();
    return this.#c.run(threadId, undefined, () =>
      listPostgresBranches(this.#c.pool, this.#c.t.branches, threadId),
    );
  }

  /** One event by id, or `null`. @throws StateStoreError for a damaged row or a closed store. */
  async getEvent(eventId: string): Promise<StoredEvent | null> {
    this.#c.open();
    const p = parseEventId(eventId);
    if (!p || p.seq > MAX_SEQ) return null;
    await this.#c.ready();
    return this.#c.run(p.threadId, p.branchId, () => getPostgresEvent(this.#c, p));
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
    if (!p || p.threadId !== threadId || p.seq > MAX_SEQ) throw unknownEvent(threadId, fromEventId);
    await this.#c.ready();
    return this.#c.run(threadId, newBranchIdArg, () =>
      createPostgresBranch(this.#c, threadId, fromEventId, p, newBranchIdArg),
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
    await this.#c.ready();
    await this.#c.run(threadId, branchId, () =>
      savePostgresSnapshot(this.#c, threadId, branchId, snapshot, data, bytes),
    );
  }

  /** The branch's latest snapshot, or `null`. @throws StateStoreError for a damaged snapshot or a closed store. */
  async loadSnapshot(threadId: string, branchId: string): Promise<Snapshot | null> {
    this.#c.open();
    await this.#c.ready();
    return this.#c.run(threadId, branchId, () => loadPostgresSnapshot(this.#c, threadId, branchId));
  }

  /**
   * Threads with their branch ids (creation order), most recently updated first (ties by
   * thread id); all of them, or the page `options` asks for (one query for the page).
   * @throws StateStoreError for a bad `limit` or `offset`, a closed store or a database error.
   */
  async listThreads(options?: ListThreadsOptions): Promise<ThreadInfo[]> {
    this.#c.open();
    const { limit, offset } = listBounds(options);
    await this.#c.ready();
    return this.#c.run(undefined, undefined, () => listPostgresThreads(this.#c, limit, offset));
  }

  /**
   * Delete a thread (and with `children: true` its child threads) in one transaction: its
   * rows in `branches`, `events`, `snapshots` and `leases`; see {@link StateStore.deleteThread}.
   * PostgreSQL's autovacuum reclaims the space later (`VACUUM` does it at once).
   * @throws ThreadBusyError when a run holds one of its branches' leases (nothing is deleted);
   *   StateStoreError for an invalid thread id, a closed store or a database error.
   */
  async deleteThread(threadId: string, options?: DeleteThreadOptions): Promise<string[]> {
    this.#c.open();
    const children = deleteChildren(threadId, options);
    await this.#c.ready();
    return deletePostgresThread(
      this,
      this.#c,
      (fn) => this.#c.run(threadId, undefined, fn),
      threadId,
      children,
    );
  }

  /**
   * Logical bytes stored: for each event the UTF-8 bytes of its data JSON and text columns plus
   * 8 per number, and the same for snapshots (kept per branch, so this reads one row per
   * branch). Tuple headers, indexes, TOAST compression and the WAL are not counted.
   */
  async sizeBytes(): Promise<number> {
    this.#c.open();
    await this.#c.ready();
    return this.#c.run(undefined, undefined, () => postgresSizeBytes(this.#c));
  }
}
