/**
 * The lifecycle, lease and stop-request methods of `SqliteStateStore` (its base class): opening
 * the file, closing it, taking, renewing and giving back branch leases, and asking a lease's
 * holder to stop. The event log's methods are in sqlite-state-store.ts; the SQL of leases in
 * sqlite-state-leases.ts.
 *
 * @module
 */
import { checkLease, checkReleaseArgs, checkStopArgs } from "../../stores/internal.js";
import { SqliteCore, storeCores } from "./sqlite-state-core.js";
import {
  renewSqliteLease,
  requestSqliteStop,
  sqliteStopRequested,
  takeSqliteLease,
} from "./sqlite-state-leases.js";
import type { SqliteStateStoreOptions } from "./sqlite-state-options.js";

/**
 * The part of {@link SqliteStateStore} that opens and closes the file and holds leases (with
 * stop requests). Use `SqliteStateStore`; this class is not exported on its own.
 */
export class SqliteLeasing {
  /** The database file this store was opened on. */
  readonly path: string;
  readonly #core: SqliteCore;

  /**
   * Open (or create) the store's file and its tables.
   * @throws StateStoreError when the file cannot be opened or holds an incompatible schema.
   */
  constructor(options: SqliteStateStoreOptions) {
    this.#core = new SqliteCore(options);
    this.path = this.#core.path;
    storeCores.set(this, this.#core);
  }

  /**
   * Take the branch's lease for `owner` for `ttlMs` ms; `true` when taken or extended (same
   * owner), `false` when another owner holds an unexpired lease. Expiry uses this machine's
   * clock; processes sharing a file share the clock. The branch need not exist yet.
   *
   * The lease records the holder's machine and process: a lease whose holder ran on this
   * machine and is gone (killed, crashed) is taken over at once, without waiting for it to
   * expire. A holder on another machine sharing the file (a network file system) waits for
   * its time to live.
   * @throws StateStoreError for an empty owner, a ttl ≤ 0 or a closed store.
   */
  async acquireLease(
    threadId: string,
    branchId: string,
    owner: string,
    ttlMs: number,
  ): Promise<boolean> {
    return this.#leaseWrite(threadId, branchId, owner, ttlMs, (c) =>
      takeSqliteLease(c.s, c.leaseTx, threadId, branchId, owner, ttlMs),
    );
  }

  /**
   * Extend `owner`'s lease to `ttlMs` ms from now, also one that expired, when it is still
   * `owner`'s (one `UPDATE … WHERE owner = ?`); `false` when another owner holds it or nobody
   * does (see {@link StateStore.renewLease}).
   * @throws StateStoreError for an empty owner, a ttl ≤ 0 or a closed store.
   */
  async renewLease(
    threadId: string,
    branchId: string,
    owner: string,
    ttlMs: number,
  ): Promise<boolean> {
    return this.#leaseWrite(threadId, branchId, owner, ttlMs, (c) =>
      renewSqliteLease(c.s, threadId, branchId, owner, ttlMs),
    );
  }

  /** Check the store is open and the lease's arguments, then queue `write` in the write batch. */
  #leaseWrite(
    threadId: string,
    branchId: string,
    owner: string,
    ttlMs: number,
    write: (c: SqliteCore) => boolean,
  ): Promise<boolean> {
    const c = this.#core;
    c.open();
    checkLease(threadId, branchId, owner, ttlMs);
    return c.batch.enqueue(threadId, branchId, () => write(c));
  }

  /** Give the lease back; a no-op when `owner` does not hold it. @throws StateStoreError for an empty owner, a bad id or a closed store. */
  async releaseLease(threadId: string, branchId: string, owner: string): Promise<void> {
    const c = this.#core;
    c.open();
    checkReleaseArgs(threadId, branchId, owner);
    await c.batch.enqueue(threadId, branchId, () => {
      c.s.releaseLease.run(threadId, branchId, owner);
    });
  }

  /**
   * Ask the holder of the branch's unexpired lease to stop at its next superstep boundary
   * (see {@link StateStore.requestStop}): one UPDATE of its `leases` row, which every process
   * sharing the file reads.
   * @returns the owner asked, or `null` when no unexpired lease is held.
   * @throws StateStoreError for an empty `by` or a closed store.
   */
  async requestStop(threadId: string, branchId: string, by: string): Promise<string | null> {
    const c = this.#core;
    c.open();
    checkStopArgs(threadId, branchId, "by", by);
    return c.batch.enqueue(threadId, branchId, () =>
      requestSqliteStop(c.s, threadId, branchId, by),
    );
  }

  /** The run that asked `owner` to stop, or `null` (see {@link StateStore.stopRequested}). */
  async stopRequested(threadId: string, branchId: string, owner: string): Promise<string | null> {
    const c = this.#core;
    c.open(threadId);
    checkStopArgs(threadId, branchId, "owner", owner);
    return c.run(threadId, branchId, () => sqliteStopRequested(c.s, threadId, branchId, owner));
  }

  /** Close the file (checkpointing the WAL); later calls throw `StateStoreError`. Closing twice is a no-op. */
  async close(): Promise<void> {
    this.#core.close();
  }
}
