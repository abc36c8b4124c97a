/**
 * The lifecycle, lease and stop-request methods of `PostgresStateStore` (its base class): the
 * schema set-up, closing, taking, renewing and giving back branch leases tied to a database
 * session, and asking a lease's holder to stop. The event log's methods are in
 * postgres-state-store.ts; the SQL of leases in postgres-leases.ts.
 *
 * @module
 */
import { checkLease, checkReleaseArgs, checkStopArgs } from "../../stores/internal.js";
import { PostgresLeases, postgresStopRequested, requestPostgresStop } from "./postgres-leases.js";
import { PostgresCore, storeCores } from "./postgres-state-core.js";
import type { PostgresStateStoreOptions } from "./postgres-state-options.js";

/**
 * The part of {@link PostgresStateStore} that sets up the schema, closes, and holds leases
 * (with stop requests). Use `PostgresStateStore`; this class is not exported on its own.
 */
export class PostgresLeasing {
  /** The PostgreSQL schema holding the tables. */
  readonly schema: string;
  readonly #core: PostgresCore;
  /** The lease session and the leases it holds. */
  readonly #leases: PostgresLeases;

  /**
   * Make the store; nothing is sent to the server until the first call.
   * @throws StateStoreError for an invalid schema name, a system schema (`pg_*`,
   *   `information_schema`) or `public`, or when neither `connectionString` nor `pool` is given.
   */
  constructor(options: PostgresStateStoreOptions) {
    this.#core = new PostgresCore(options);
    this.schema = this.#core.schema;
    this.#leases = new PostgresLeases(this.#core);
    storeCores.set(this, this.#core);
  }

  /**
   * Create the schema and tables when missing, or check their version. Every method calls it
   * first; call it yourself to fail early.
   * @throws StateStoreError when the server cannot be reached, the schema holds tables that are
   *   not a nodestep store, or they were written with another schema version.
   */
  async ready(): Promise<void> {
    return this.#core.ready();
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
    return this.#checkedLease(threadId, branchId, owner, ttlMs, () =>
      this.#leases.acquire(threadId, branchId, owner, ttlMs),
    );
  }

  /** The store open and the lease's arguments checked, then `op` with the store's error mapping. */
  async #checkedLease(
    threadId: string,
    branchId: string,
    owner: string,
    ttlMs: number,
    op: () => Promise<boolean>,
  ): Promise<boolean> {
    const c = this.#core;
    c.open();
    checkLease(threadId, branchId, owner, ttlMs);
    await c.ready();
    return c.run(threadId, branchId, op);
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
    return this.#checkedLease(threadId, branchId, owner, ttlMs, () =>
      this.#leases.renew(threadId, branchId, owner, ttlMs),
    );
  }

  /** Give the lease back; a no-op when `owner` does not hold it. @throws StateStoreError for a closed store. */
  async releaseLease(threadId: string, branchId: string, owner: string): Promise<void> {
    const c = this.#core;
    c.open();
    checkReleaseArgs(threadId, branchId, owner);
    await c.ready();
    await c.run(threadId, branchId, () => this.#leases.release(threadId, branchId, owner));
  }

  /**
   * Ask the holder of the branch's unexpired lease (by the database's clock) to stop at its
   * next superstep boundary (see {@link StateStore.requestStop}): one UPDATE of its `leases`
   * row, which every store sharing the schema reads.
   * @returns the owner asked, or `null` when no unexpired lease is held.
   * @throws StateStoreError for an empty `by`, a closed store or a database error.
   */
  async requestStop(threadId: string, branchId: string, by: string): Promise<string | null> {
    const c = this.#core;
    c.open();
    checkStopArgs(threadId, branchId, "by", by);
    await c.ready();
    return c.run(threadId, branchId, () => requestPostgresStop(c, threadId, branchId, by));
  }

  /**
   * The run that asked `owner` to stop, or `null` (see {@link StateStore.stopRequested}): one
   * SELECT. A run on this store sends it only in `"exit"` durability, at most every 25 ms
   * alongside a commit; otherwise each `appendLeased` answers the stop request.
   * @throws StateStoreError for a closed store or a database error.
   */
  async stopRequested(threadId: string, branchId: string, owner: string): Promise<string | null> {
    const c = this.#core;
    c.open();
    checkStopArgs(threadId, branchId, "owner", owner);
    await c.ready();
    return c.run(threadId, branchId, () => postgresStopRequested(c, threadId, branchId, owner));
  }

  /**
   * End the pool when the store made it (a pool passed in is left open); later calls throw
   * `StateStoreError`. Closing twice is a no-op.
   */
  async close(): Promise<void> {
    if (!this.#core.markClosed()) return;
    await this.#leases.close();
    await this.#core.endPool();
  }
}
