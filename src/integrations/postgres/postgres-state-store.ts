/**
 * `PostgresStateStore`: the event log in PostgreSQL (pg), for many processes and machines
 * sharing threads. The class checks arguments and turns database errors into
 * `StateStoreError`; the work is in postgres-state-*.ts (options, schema, sql), postgres-append.ts,
 * postgres-reads.ts, postgres-branches.ts, postgres-snapshots.ts, postgres-leases.ts (leases
 * and stop requests) and postgres-delete.ts.
 *
 * @module
 */
import pg from "pg";
import { StateStoreError } from "../../errors/index.js";
import {
  checkBranchId,
  checkLease,
  checkSeq,
  checkStopArgs,
  checkThreadId,
  closedError,
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
import { PostgresLeases, postgresStopRequested, requestPostgresStop } from "./postgres-leases.js";
import {
  getPostgresBranch,
  getPostgresEvent,
  listPostgresThreads,
  postgresSizeBytes,
  readPostgres,
} from "./postgres-reads.js";
import { loadPostgresSnapshot, savePostgresSnapshot } from "./postgres-snapshots.js";
import { checkSchemaName, type PostgresStateStoreOptions } from "./postgres-state-options.js";
import { setUpPostgresSchema } from "./postgres-state-schema.js";
import { MAX_SEQ, type PgStore, type PgTables } from "./postgres-state-sql.js";

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
export class PostgresStateStore implements StateStore {
  /** The PostgreSQL schema holding the tables. */
  readonly schema: string;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #t: PgTables;
  #ready: Promise<void> | null = null;
  #closed = false;
  /** What the helpers work on: the pool, the tables and the schema. */
  readonly #c: PgStore;
  /** The lease session and the leases it holds. */
  readonly #leases: PostgresLeases;

  /**
   * Make the store; nothing is sent to the server until the first call.
   * @throws StateStoreError for an invalid schema name, a system schema (`pg_*`,
   *   `information_schema`) or `public`, or when neither `connectionString` nor `pool` is given.
   */
  constructor(options: PostgresStateStoreOptions) {
    const schema = checkSchemaName(options);
    this.schema = schema;
    const q = `"${schema}"`;
    this.#t = {
      meta: `${q}.meta`,
      branches: `${q}.branches`,
      events: `${q}.events`,
      snapshots: `${q}.snapshots`,
      leases: `${q}.leases`,
    };
    if (options.pool) {
      this.#pool = options.pool as unknown as pg.Pool; // only what PostgresPool names is called on it
      this.#ownsPool = false;
    } else if (typeof options.connectionString === "string" && options.connectionString !== "") {
      this.#pool = new pg.Pool({ connectionString: options.connectionString });
      // An idle client losing its connection must not crash the process; the next query reports it.
      this.#pool.on("error", () => {});
      this.#ownsPool = true;
    } else {
      throw new StateStoreError("PostgresStateStore needs a connectionString or a pool");
    }
    this.#c = { pool: this.#pool, t: this.#t, schema };
    this.#leases = new PostgresLeases(this.#c);
  }

  /**
   * Create the schema and tables when missing, or check their version. Every method calls it
   * first; call it yourself to fail early.
   * @throws StateStoreError when the server cannot be reached, the schema holds tables that are
   *   not a nodestep store, or they were written with another schema version.
   */
  async ready(): Promise<void> {
    this.#open();
    if (!this.#ready) {
      this.#ready = setUpPostgresSchema(this.#c).catch((e: unknown) => {
        this.#ready = null; // try again on the next call
        throw e;
      });
    }
    return this.#ready;
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
    this.#open();
    checkThreadId(threadId);
    checkSeq(expectedLastSeq, "expectedLastSeq", threadId, branchId);
    const encoded = encodeEvents(threadId, branchId, events);
    if (expectedLastSeq + encoded.length > MAX_SEQ) {
      throw new StateStoreError(`A branch holds at most ${MAX_SEQ} events`, { threadId, branchId });
    }
    await this.ready();
    return this.#run(threadId, branchId, () =>
      appendPostgres(this.#c, threadId, branchId, encoded, expectedLastSeq, lease),
    );
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
    this.#open();
    checkThreadId(threadId);
    const { afterSeq, uptoSeq } = readBounds(threadId, branchId, options);
    await this.ready();
    return this.#run(threadId, branchId, () =>
      readPostgres(this.#c, threadId, branchId, afterSeq, uptoSeq),
    );
  }

  /** The branch, or `null` when it does not exist. @throws StateStoreError for a closed store or a database error. */
  async getBranch(threadId: string, branchId: string): Promise<BranchInfo | null> {
    this.#open();
    if (!isThreadId(threadId)) return null;
    await this.ready();
    return this.#run(threadId, branchId, () => getPostgresBranch(this.#c, threadId, branchId));
  }

  /** The thread's branches, in creation order; see {@link StateStore.listBranches}. */
  async listBranches(threadId: string): Promise<BranchInfo[]> {
    this.#open();
    if (!isThreadId(threadId)) return [];
    await this.ready();
    return this.#run(threadId, undefined, () =>
      listPostgresBranches(this.#pool, this.#t.branches, threadId),
    );
  }

  /** One event by id, or `null`. @throws StateStoreError for a damaged row or a closed store. */
  async getEvent(eventId: string): Promise<StoredEvent | null> {
    this.#open();
    const p = parseEventId(eventId);
    if (!p || p.seq > MAX_SEQ) return null;
    await this.ready();
    return this.#run(p.threadId, p.branchId, () => getPostgresEvent(this.#c, p));
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
    this.#open();
    checkThreadId(threadId);
    if (newBranchIdArg !== undefined) checkBranchId(threadId, newBranchIdArg);
    const p = parseEventId(fromEventId);
    if (!p || p.threadId !== threadId || p.seq > MAX_SEQ) throw unknownEvent(threadId, fromEventId);
    await this.ready();
    return this.#run(threadId, newBranchIdArg, () =>
      createPostgresBranch(this.#c, threadId, fromEventId, p, newBranchIdArg),
    );
  }

  /**
   * Keep a snapshot of the branch after event `snapshot.seq`, replacing the previous one.
   * @throws UnknownBranchError when the branch does not exist; StateStoreError for non-JSON data
   *   (with `field`), a seq past the branch's last event, or a closed store.
   */
  async saveSnapshot(threadId: string, branchId: string, snapshot: Snapshot): Promise<void> {
    this.#open();
    checkThreadId(threadId);
    const data = encodeSnapshot(threadId, branchId, snapshot);
    const bytes = snapshotRowBytes(threadId, branchId, data);
    await this.ready();
    await this.#run(threadId, branchId, () =>
      savePostgresSnapshot(this.#c, threadId, branchId, snapshot, data, bytes),
    );
  }

  /** The branch's latest snapshot, or `null`. @throws StateStoreError for a damaged snapshot or a closed store. */
  async loadSnapshot(threadId: string, branchId: string): Promise<Snapshot | null> {
    this.#open();
    await this.ready();
    return this.#run(threadId, branchId, () => loadPostgresSnapshot(this.#c, threadId, branchId));
  }

  /**
   * Take the branch's lease for `owner` for `ttlMs` ms of the database's clock; `true` when
   * taken or extended (same owner), `false` when another owner holds an unexpired lease. One
   * statement (`INSERT … ON CONFLICT DO UPDATE … WHERE`), so two processes racing for a free
   * lease cannot both win. The branch need not exist yet.
   *
   * The lease is also tied to this store's database session: the store holds a session-level
   * advisory lock per leased branch on one connection of its pool. When the process dies (or
   * its connection does), PostgreSQL ends the session and its locks; a lease whose lock is
   * gone is taken over at once, without waiting for it to expire. When that connection fails
   * under a live lease, renewing the lease answers `false` (the run stops). A lease written
   * without a lock (by an older nodestep) waits for its time to live.
   * @throws StateStoreError for an empty owner, a ttl ≤ 0, a closed store or a database error.
   */
  async acquireLease(
    threadId: string,
    branchId: string,
    owner: string,
    ttlMs: number,
  ): Promise<boolean> {
    this.#open();
    checkLease(threadId, branchId, owner, ttlMs);
    await this.ready();
    return this.#run(threadId, branchId, () =>
      this.#leases.acquire(threadId, branchId, owner, ttlMs),
    );
  }

  /**
   * `true` when `owner`'s lease on the branch was lost because the database session holding
   * its advisory lock ended (a run asks before each append and stops at once); no query.
   */
  leaseLost(threadId: string, branchId: string, owner: string): boolean {
    return this.#leases.lost(threadId, branchId, owner);
  }

  /**
   * Call `listener` with a lease's thread, branch and owner as soon as the session holding its
   * lock reports an error or ends (the connection's `error` or `end` event; no query, no
   * polling). Returns the function that removes it. A run listens for its lease and stops at
   * once (see {@link StateStore.onLeaseLost}).
   */
  onLeaseLost(listener: (threadId: string, branchId: string, owner: string) => void): () => void {
    return this.#leases.onLost(listener);
  }

  /**
   * Extend `owner`'s lease to `ttlMs` ms of the database's clock from now, also one that
   * expired, when it is still `owner`'s (one `UPDATE … WHERE owner = $3`); `false` when
   * another owner holds it, nobody does, or the session holding its lock ended (see
   * {@link StateStore.renewLease}).
   * @throws StateStoreError for an empty owner, a ttl ≤ 0, a closed store or a database error.
   */
  async renewLease(
    threadId: string,
    branchId: string,
    owner: string,
    ttlMs: number,
  ): Promise<boolean> {
    this.#open();
    checkLease(threadId, branchId, owner, ttlMs);
    await this.ready();
    return this.#run(threadId, branchId, () =>
      this.#leases.renew(threadId, branchId, owner, ttlMs),
    );
  }

  /** Give the lease back; a no-op when `owner` does not hold it. @throws StateStoreError for a closed store. */
  async releaseLease(threadId: string, branchId: string, owner: string): Promise<void> {
    this.#open();
    await this.ready();
    await this.#run(threadId, branchId, () => this.#leases.release(threadId, branchId, owner));
  }

  /**
   * Ask the holder of the branch's unexpired lease (by the database's clock) to stop at its
   * next superstep boundary (see {@link StateStore.requestStop}): one UPDATE of its `leases`
   * row, which every store sharing the schema reads.
   * @returns the owner asked, or `null` when no unexpired lease is held.
   * @throws StateStoreError for an empty `by`, a closed store or a database error.
   */
  async requestStop(threadId: string, branchId: string, by: string): Promise<string | null> {
    this.#open();
    checkStopArgs(threadId, branchId, "by", by);
    await this.ready();
    return this.#run(threadId, branchId, () =>
      requestPostgresStop(this.#c, threadId, branchId, by),
    );
  }

  /**
   * The run that asked `owner` to stop, or `null` (see {@link StateStore.stopRequested}): one
   * SELECT, which a run sends alongside each commit's append.
   * @throws StateStoreError for a closed store or a database error.
   */
  async stopRequested(threadId: string, branchId: string, owner: string): Promise<string | null> {
    this.#open();
    checkStopArgs(threadId, branchId, "owner", owner);
    await this.ready();
    return this.#run(threadId, branchId, () =>
      postgresStopRequested(this.#c, threadId, branchId, owner),
    );
  }

  /**
   * Threads with their branch ids (creation order), most recently updated first (ties by
   * thread id); all of them, or the page `options` asks for (one query for the page).
   * @throws StateStoreError for a bad `limit` or `offset`, a closed store or a database error.
   */
  async listThreads(options?: ListThreadsOptions): Promise<ThreadInfo[]> {
    this.#open();
    const { limit, offset } = listBounds(options);
    await this.ready();
    return this.#run(undefined, undefined, () => listPostgresThreads(this.#c, limit, offset));
  }

  /**
   * Delete a thread (and with `children: true` its child threads) in one transaction: its
   * rows in `branches`, `events`, `snapshots` and `leases`; see {@link StateStore.deleteThread}.
   * PostgreSQL's autovacuum reclaims the space later (`VACUUM` does it at once).
   * @throws ThreadBusyError when a run holds one of its branches' leases (nothing is deleted);
   *   StateStoreError for an invalid thread id, a closed store or a database error.
   */
  async deleteThread(threadId: string, options?: DeleteThreadOptions): Promise<string[]> {
    this.#open();
    const children = deleteChildren(threadId, options);
    await this.ready();
    return deletePostgresThread(
      this,
      this.#c,
      (fn) => this.#run(threadId, undefined, fn),
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
    this.#open();
    await this.ready();
    return this.#run(undefined, undefined, () => postgresSizeBytes(this.#c));
  }

  /**
   * End the pool when the store made it (a pool passed in is left open); later calls throw
   * `StateStoreError`. Closing twice is a no-op.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#leases.close();
    if (this.#ownsPool) await this.#pool.end();
  }

  #open(): void {
    if (this.#closed) throw closedError("PostgresStateStore");
  }

  /** Run `fn`, turning a database error into `StateStoreError` (ours pass through). */
  async #run<T>(
    threadId: string | undefined,
    branchId: string | undefined,
    fn: () => Promise<T>,
  ): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof StateStoreError) throw e;
      if (this.#closed) throw closedError("PostgresStateStore");
      throw new StateStoreError(
        `PostgreSQL state store (schema "${this.schema}") failed${threadId === undefined ? "" : ` on thread "${threadId}"`}: ${(e as Error).message}`,
        { threadId, branchId, cause: e },
      );
    }
  }
}
