/**
 * The PostgreSQL state store's leases: one database session (a pool client) holds a
 * session-level advisory lock per leased branch, so a dead holder's leases are taken over at
 * once; lease rows record owner, expiry (the database's clock) and `stop_by`. Stop requests
 * (`requestStop`, `stopRequested`) read and write that column.
 *
 * @module
 */
import type pg from "pg";
import { NOW_MS, type PgStore, type PgTables } from "./postgres-state-sql.js";

/** The leases of one `PostgresStateStore` (its lease session, and which leases it holds). */
export class PostgresLeases {
  /** The PostgreSQL schema holding the tables. */
  readonly schema: string;
  readonly #pool: pg.Pool;
  readonly #t: PgTables;
  /**
   * The database session that holds this store's leases as session-level advisory locks (one
   * pool client, checked out while any lease is held): when this process dies, PostgreSQL ends
   * the session and the locks with it, and the next writer takes the lease over at once.
   */
  #leaseClient: pg.PoolClient | null = null;
  /** Removes the `error` and `end` listeners the lease session put on its client. */
  #unlistenSession: (() => void) | null = null;
  /** Branch (`"<thread>\u0000<branch>"`) → the owner whose lease the session's lock holds. */
  readonly #held = new Map<string, string>();
  /** `"<thread>\u0000<branch>\u0000<owner>"` of leases whose session ended under them. */
  readonly #lost = new Set<string>();
  /** Lease operations run one at a time (they share the lease session). */
  #leaseOps: Promise<unknown> = Promise.resolve();
  /** Who is told at once when the lease session ends (see {@link PostgresStateStore.onLeaseLost}). */
  readonly #lostListeners = new Set<(threadId: string, branchId: string, owner: string) => void>();

  constructor(c: PgStore) {
    this.#pool = c.pool;
    this.#t = c.t;
    this.schema = c.schema;
  }

  /** Take the branch's lease for `owner` (see `PostgresStateStore.acquireLease`). */
  acquire(threadId: string, branchId: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#leaseOp(async () => {
      const k = `${threadId}\u0000${branchId}`;
      if (this.#lost.has(`${k}\u0000${owner}`)) return false;
      const client = await this.#leaseSession();
      try {
        return await this.#take(client, k, threadId, branchId, owner, ttlMs);
      } catch (e) {
        // The session may be broken: its locks (and so its leases) are given up.
        this.#endSession(client, e);
        throw e;
      }
    });
  }

  async #take(
    client: pg.PoolClient,
    k: string,
    threadId: string,
    branchId: string,
    owner: string,
    ttlMs: number,
  ): Promise<boolean> {
    const heldBy = this.#held.get(k);
    const t = this.#t;
    // `fresh`: nobody held the branch's advisory lock, so a holder that had it (`l.locked`) is
    // gone. Without the lock yet, taking it and writing the row are one statement (one round
    // trip): the lock CTE has a volatile function, so it runs once, before the row is written.
    const upsert = (locked: string, takeover: string) =>
      `INSERT INTO ${t.leases} AS l (thread_id, branch_id, owner, expires_at, locked)
           VALUES ($1, $2, $3, ${NOW_MS} + $4::bigint, ${locked})
           ON CONFLICT (thread_id, branch_id) DO UPDATE
             SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, locked = EXCLUDED.locked,
               stop_by = CASE WHEN l.owner = EXCLUDED.owner THEN l.stop_by ELSE NULL END
             WHERE l.owner = EXCLUDED.owner OR l.expires_at <= ${NOW_MS} OR (${takeover} AND l.locked)
           RETURNING 1`;
    let fresh = false;
    let taken: boolean;
    if (heldBy === undefined) {
      const r = await client.query<{ fresh: boolean; taken: boolean }>(
        `WITH lock AS (SELECT pg_try_advisory_lock(hashtextextended($5, 0)) AS fresh),
              taken AS (${upsert("(SELECT fresh FROM lock)", "(SELECT fresh FROM lock)")})
         SELECT (SELECT fresh FROM lock) AS fresh, EXISTS (SELECT 1 FROM taken) AS taken`,
        [threadId, branchId, owner, Math.ceil(ttlMs), this.#lockName(threadId, branchId)],
      );
      fresh = r.rows[0]!.fresh;
      taken = r.rows[0]!.taken;
    } else {
      const r = await client.query(upsert("true", "false"), [
        threadId,
        branchId,
        owner,
        Math.ceil(ttlMs),
      ]);
      taken = r.rowCount === 1;
    }
    if (taken) {
      if (fresh || heldBy !== undefined) this.#held.set(k, owner);
      return true;
    }
    if (fresh) await this.#unlock(client, threadId, branchId);
    this.#idleSession();
    return false;
  }

  /**
   * `true` when `owner`'s lease on the branch was lost because the database session holding
   * its advisory lock ended (a run asks before each append and stops at once); no query.
   */
  lost(threadId: string, branchId: string, owner: string): boolean {
    return this.#lost.has(`${threadId}\u0000${branchId}\u0000${owner}`);
  }

  /**
   * Call `listener` with a lease's thread, branch and owner as soon as the session holding its
   * lock reports an error or ends (the connection's `error` or `end` event; no query, no
   * polling). Returns the function that removes it. A run listens for its lease and stops at
   * once (see {@link StateStore.onLeaseLost}).
   */
  onLost(listener: (threadId: string, branchId: string, owner: string) => void): () => void {
    this.#lostListeners.add(listener);
    return () => {
      this.#lostListeners.delete(listener);
    };
  }

  /** Extend `owner`'s lease (see `PostgresStateStore.renewLease`). */
  renew(threadId: string, branchId: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#leaseOp(async () => {
      if (this.#lost.has(`${threadId}\u0000${branchId}\u0000${owner}`)) return false;
      const res = await this.#pool.query(
        `UPDATE ${this.#t.leases} SET expires_at = ${NOW_MS} + $4::bigint
         WHERE thread_id = $1 AND branch_id = $2 AND owner = $3 RETURNING 1`,
        [threadId, branchId, owner, Math.ceil(ttlMs)],
      );
      return res.rowCount === 1;
    });
  }

  /** Give `owner`'s lease back (see `PostgresStateStore.releaseLease`). */
  release(threadId: string, branchId: string, owner: string): Promise<void> {
    return this.#leaseOp(async () => {
      const k = `${threadId}\u0000${branchId}`;
      this.#lost.delete(`${k}\u0000${owner}`);
      const deleteRow = `DELETE FROM ${this.#t.leases} WHERE thread_id = $1 AND branch_id = $2 AND owner = $3`;
      const client = this.#leaseClient;
      if (client && this.#held.get(k) === owner) {
        // The row and the session's lock given up in one statement (one round trip).
        this.#held.delete(k);
        try {
          await client.query(
            `WITH gone AS (${deleteRow}) SELECT pg_advisory_unlock(hashtextextended($4, 0))`,
            [threadId, branchId, owner, this.#lockName(threadId, branchId)],
          );
        } catch (e) {
          this.#endSession(client, e);
          throw e;
        }
      } else {
        await this.#pool.query(deleteRow, [threadId, branchId, owner]);
      }
      this.#idleSession();
    });
  }

  /** Wait for the lease operations under way, then give the lease session's locks up. */
  async close(): Promise<void> {
    await this.#leaseOps;
    const client = this.#leaseClient;
    if (client) {
      // Giving up the session's advisory locks (ending the session would too, a little later):
      // the lease rows are taken over at once.
      this.#leaseClient = null;
      this.#unlisten();
      this.#held.clear();
      await client.query("SELECT pg_advisory_unlock_all()").catch(() => {});
      client.release(true);
    }
  }

  /** The advisory lock's name of a branch (hashed to its 64-bit key by the server). */
  #lockName(threadId: string, branchId: string): string {
    return JSON.stringify(["nodestep.lease", this.schema, threadId, branchId]);
  }

  async #unlock(client: pg.PoolClient, threadId: string, branchId: string): Promise<void> {
    try {
      await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [
        this.#lockName(threadId, branchId),
      ]);
    } catch (e) {
      this.#endSession(client, e);
      throw e;
    }
  }

  /** Run lease operations one after another. */
  #leaseOp<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.#leaseOps.then(fn);
    this.#leaseOps = p.catch(() => {});
    return p;
  }

  /** The lease session, checked out of the pool when no lease is held. */
  async #leaseSession(): Promise<pg.PoolClient> {
    if (this.#leaseClient) return this.#leaseClient;
    const client = await this.#pool.connect();
    const onError = (e: Error) => this.#endSession(client, e);
    const onEnd = () => this.#endSession(client, new Error("the lease session ended"));
    client.on("error", onError);
    client.on("end", onEnd);
    // The pool hands the same client out again: its listeners go when it goes back.
    this.#unlistenSession = () => {
      if (typeof client.removeListener !== "function") return; // a structural pool's client
      client.removeListener("error", onError);
      client.removeListener("end", onEnd);
    };
    this.#leaseClient = client;
    return client;
  }

  /** Take the lease session's listeners off its client (before it goes back to the pool). */
  #unlisten(): void {
    const unlisten = this.#unlistenSession;
    this.#unlistenSession = null;
    unlisten?.();
  }

  /** Give the lease session back to the pool when it holds no lease. */
  #idleSession(): void {
    const client = this.#leaseClient;
    if (client && this.#held.size === 0) {
      this.#leaseClient = null;
      this.#unlisten();
      client.release();
    }
  }

  /** The lease session failed: every lease it held is lost (their renewals answer `false`). */
  #endSession(client: pg.PoolClient, error: unknown): void {
    if (this.#leaseClient !== client) return;
    const lost = [...this.#held];
    for (const [k, owner] of lost) this.#lost.add(`${k}\u0000${owner}`);
    this.#held.clear();
    this.#leaseClient = null;
    this.#unlisten();
    client.release(error instanceof Error ? error : new Error(String(error)));
    for (const [k, owner] of lost) {
      const [threadId, branchId] = k.split("\u0000") as [string, string];
      for (const listener of [...this.#lostListeners]) {
        try {
          listener(threadId, branchId, owner);
        } catch {
          // A listener's failure is its own; the others are still told.
        }
      }
    }
  }
}

/** Ask the holder of the branch's unexpired lease to stop: the owner asked, or `null`. */
export async function requestPostgresStop(
  c: PgStore,
  threadId: string,
  branchId: string,
  by: string,
): Promise<string | null> {
  const res = await c.pool.query<{ owner: string }>(
    `UPDATE ${c.t.leases} SET stop_by = $3 WHERE thread_id = $1 AND branch_id = $2 AND expires_at > ${NOW_MS} RETURNING owner`,
    [threadId, branchId, by],
  );
  return res.rows[0]?.owner ?? null;
}

/** The run that asked `owner` to stop, or `null`. */
export async function postgresStopRequested(
  c: PgStore,
  threadId: string,
  branchId: string,
  owner: string,
): Promise<string | null> {
  const res = await c.pool.query<{ stop_by: string | null }>(
    `SELECT stop_by FROM ${c.t.leases} WHERE thread_id = $1 AND branch_id = $2 AND owner = $3`,
    [threadId, branchId, owner],
  );
  return res.rows[0]?.stop_by ?? null;
}
