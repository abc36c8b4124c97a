/**
 * `PostgresStateStore`: the event log in PostgreSQL (pg), for many processes and machines
 * sharing threads.
 *
 * @module
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { StateStoreError } from "../../errors/index.js";
import {
  branchExists,
  byUpdatedAt,
  type ChainLink,
  checkBranchId,
  checkContiguous,
  checkLease,
  checkSeq,
  checkStopArgs,
  checkThreadId,
  closedError,
  concurrentWrite,
  decodeEvent,
  decodeSnapshot,
  deleteChildren,
  type EncodedEvent,
  type EventRow,
  encodeEvents,
  encodeSnapshot,
  eventRowBytes,
  isDeleted,
  listBounds,
  MAIN_BRANCH,
  newBranchId,
  parseEventId,
  planRead,
  readBounds,
  snapshotBeyondEnd,
  snapshotRowBytes,
  underLeases,
  unknownBranch,
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
import type { PostgresPool } from "./pool.js";
import { listPostgresBranches } from "./postgres-branches.js";

/** Version of the tables this code reads and writes; kept in the schema's `meta` table. */
export const POSTGRES_SCHEMA_VERSION = 1;

const FORMAT = "nodestep-state-store";
const TABLES = ["meta", "branches", "events", "snapshots", "leases"];
/** Largest seq a PostgreSQL `integer` column holds. */
const MAX_SEQ = 2_147_483_647;
/** The database's clock in ms since the epoch (leases use it, so machines agree). */
const NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/** Options of {@link PostgresStateStore}. */
export interface PostgresStateStoreOptions {
  /** `postgres://user:password@host:port/database`; used to make a pool when `pool` is not given. */
  connectionString?: string;
  /**
   * The PostgreSQL schema that holds the store's tables, created when missing (default
   * `"nodestep"`). Letters, digits and `_`, not starting with a digit, at most 63 characters.
   * A schema of the store's own: `public`, `information_schema` and `pg_*` are refused (in any
   * letter case).
   */
  schema?: string;
  /**
   * A pool to use instead of making one (a pg `Pool`; typed structurally, see
   * {@link PostgresPool}); the store then does not end it on `close()`. The store does not
   * change the pool's type parsers or settings.
   */
  pool?: PostgresPool;
}

interface BranchRow {
  branch_id: string;
  parent_branch: string | null;
  parent_seq: number | null;
  last_seq: number;
}

interface DbEventRow {
  branch_id: string;
  seq: number;
  type: string;
  run_id: string;
  step: number | null;
  task_id: string | null;
  node: string | null;
  data: string;
  created_at: number;
}

const EVENT_COLUMNS =
  "e.branch_id, e.seq, e.type, e.run_id, e.step, e.task_id, e.node, e.data, e.created_at::float8 AS created_at";

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
  readonly #t: { [K in "meta" | "branches" | "events" | "snapshots" | "leases"]: string };
  #ready: Promise<void> | null = null;
  #closed = false;
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

  /**
   * Make the store; nothing is sent to the server until the first call.
   * @throws StateStoreError for an invalid schema name, a system schema (`pg_*`,
   *   `information_schema`) or `public`, or when neither `connectionString` nor `pool` is given.
   */
  constructor(options: PostgresStateStoreOptions) {
    const schema = options?.schema ?? "nodestep";
    if (typeof schema !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new StateStoreError(
        `Invalid PostgreSQL schema name ${JSON.stringify(schema)}: use letters, digits and _, not starting with a digit, at most 63 characters`,
      );
    }
    const lower = schema.toLowerCase();
    if (lower.startsWith("pg_") || lower === "information_schema") {
      throw new StateStoreError(
        `PostgreSQL schema "${schema}" is a system schema; the state store creates its tables (${TABLES.join(", ")}) in a schema of its own: pick another name, such as "nodestep" (the default)`,
      );
    }
    if (lower === "public") {
      throw new StateStoreError(
        `PostgreSQL schema "${schema}" is the database's shared default schema; the state store creates its tables (${TABLES.join(", ")}) in a schema of its own, so that they never mix with the application's: pick another name, such as "nodestep" (the default)`,
      );
    }
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
      this.#ready = this.#setUp().catch((e: unknown) => {
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
    return this.#run(threadId, branchId, async () => {
      if (encoded.length === 0) {
        let stopBy: string | null = null;
        if (lease) {
          const renewed = await this.#pool.query<{ stop_by: string | null }>(
            `UPDATE ${this.#t.leases} SET expires_at = ${NOW_MS} + $4::bigint
               WHERE thread_id = $1 AND branch_id = $2 AND owner = $3 RETURNING stop_by`,
            [threadId, branchId, lease.owner, Math.ceil(lease.ttlMs)],
          );
          if (renewed.rowCount !== 1) return { events: [], held: false, stopBy: null };
          stopBy = renewed.rows[0]!.stop_by;
        }
        const b = await this.#branch(threadId, branchId);
        if (!b) {
          if (branchId !== MAIN_BRANCH) throw unknownBranch(threadId, branchId);
          if (expectedLastSeq !== 0) throw concurrentWrite(threadId, branchId, expectedLastSeq, 0);
        } else if (b.last_seq !== expectedLastSeq) {
          throw concurrentWrite(threadId, branchId, expectedLastSeq, b.last_seq);
        }
        return { events: [], held: true, stopBy };
      }
      const createdAt = Date.now();
      let bytes = 0;
      for (const e of encoded) bytes += eventRowBytes(threadId, branchId, e);
      const first = branchId === MAIN_BRANCH && expectedLastSeq === 0;
      const values: unknown[] = [
        threadId,
        branchId,
        expectedLastSeq,
        expectedLastSeq + encoded.length,
        createdAt,
        bytes,
      ];
      if (encoded.length === 1) {
        const e = encoded[0]!;
        values.push(e.type, e.runId, e.step, e.taskId, e.node, e.data);
      } else {
        values.push(
          encoded.map((e) => e.type),
          encoded.map((e) => e.runId),
          encoded.map((e) => e.step),
          encoded.map((e) => e.taskId),
          encoded.map((e) => e.node),
          encoded.map((e) => e.data),
        );
      }
      if (lease) values.push(lease.owner, Math.ceil(lease.ttlMs));
      const text = this.#appendSql(first, encoded.length === 1, lease !== null);
      const res = await this.#pool.query<{ n: number; held: boolean; stop_by: string | null }>({
        name: statementName(text),
        text,
        values,
      });
      const row = res.rows[0]!;
      if (lease && !row.held) return { events: [], held: false, stopBy: null };
      if (row.n !== encoded.length) {
        const b = await this.#branch(threadId, branchId);
        if (!b && branchId !== MAIN_BRANCH) throw unknownBranch(threadId, branchId);
        throw concurrentWrite(threadId, branchId, expectedLastSeq, b?.last_seq ?? 0);
      }
      return {
        events: encoded.map((e, i) =>
          stored(threadId, branchId, expectedLastSeq + 1 + i, e, createdAt),
        ),
        held: true,
        stopBy: lease ? row.stop_by : null,
      };
    });
  }

  /**
   * The append statement: (with a lease) extend the owner's lease row, advance the branch when
   * it is at the expected seq (and the lease was the owner's), insert the events; answers the
   * number inserted, whether the lease was held and its `stop_by`. Parameters: $1 thread, $2
   * branch, $3 expected seq, $4 new last seq, $5 created at, $6 bytes, $7–$12 the event
   * columns (scalars for one event, arrays for several), $13 owner, $14 ttl ms.
   */
  #appendSql(first: boolean, single: boolean, leased: boolean): string {
    const t = this.#t;
    const gate = leased ? " AND EXISTS (SELECT 1 FROM lease)" : "";
    const advance = first
      ? `INSERT INTO ${t.branches} AS b (thread_id, branch_id, parent_branch, parent_seq, last_seq, updated_at, bytes)
             SELECT $1::text, $2::text, NULL, NULL, $4::int, $5::bigint, $6::bigint WHERE true${gate}
             ON CONFLICT (thread_id, branch_id) DO UPDATE
               SET last_seq = EXCLUDED.last_seq, updated_at = EXCLUDED.updated_at, bytes = b.bytes + EXCLUDED.bytes
               WHERE b.last_seq = $3::int
             RETURNING 1`
      : `UPDATE ${t.branches} SET last_seq = $4::int, updated_at = $5::bigint, bytes = bytes + $6::bigint
             WHERE thread_id = $1::text AND branch_id = $2::text AND last_seq = $3::int${gate}
             RETURNING 1`;
    const insert = single
      ? `INSERT INTO ${t.events} (thread_id, branch_id, seq, type, run_id, step, task_id, node, data, created_at)
         SELECT $1::text, $2::text, $3::int + 1, $7::text, $8::text, $9::int, $10::text, $11::text, $12::text, $5::bigint
         WHERE EXISTS (SELECT 1 FROM advanced)
         RETURNING 1`
      : `INSERT INTO ${t.events} (thread_id, branch_id, seq, type, run_id, step, task_id, node, data, created_at)
         SELECT $1::text, $2::text, $3::int + u.ord, u.type, u.run_id, u.step, u.task_id, u.node, u.data, $5::bigint
         FROM unnest($7::text[], $8::text[], $9::int[], $10::text[], $11::text[], $12::text[])
           WITH ORDINALITY AS u(type, run_id, step, task_id, node, data, ord)
         WHERE EXISTS (SELECT 1 FROM advanced)
         RETURNING 1`;
    const lease = leased
      ? `lease AS (
           UPDATE ${t.leases} SET expires_at = ${NOW_MS} + $14::bigint
           WHERE thread_id = $1::text AND branch_id = $2::text AND owner = $13::text
           RETURNING stop_by
         ), `
      : "";
    return `WITH ${lease}advanced AS (${advance}), inserted AS (${insert})
       SELECT (SELECT count(*) FROM inserted)::int AS n, ${
         leased
           ? "EXISTS (SELECT 1 FROM lease) AS held, (SELECT stop_by FROM lease) AS stop_by"
           : "true AS held, NULL::text AS stop_by"
       }`;
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
    return this.#run(threadId, branchId, async () => {
      const t = this.#t;
      const chainRows = (
        await this.#pool.query<BranchRow>(
          `WITH RECURSIVE chain AS (
             SELECT branch_id, parent_branch, parent_seq, last_seq, 0 AS depth
             FROM ${t.branches} WHERE thread_id = $1 AND branch_id = $2
             UNION ALL
             SELECT p.branch_id, p.parent_branch, p.parent_seq, p.last_seq, c.depth + 1
             FROM ${t.branches} p JOIN chain c ON p.thread_id = $1 AND p.branch_id = c.parent_branch
             WHERE c.depth < 10000
           )
           SELECT branch_id, parent_branch, parent_seq, last_seq FROM chain ORDER BY depth`,
          [threadId, branchId],
        )
      ).rows;
      if (chainRows.length === 0) {
        if (branchId === MAIN_BRANCH) return [];
        throw unknownBranch(threadId, branchId);
      }
      const top = chainRows[chainRows.length - 1]!;
      if (top.parent_branch !== null) {
        throw new StateStoreError(
          `Thread "${threadId}" branch "${branchId}" is damaged: its ancestor branch "${top.parent_branch}" is missing. Restore the store from a backup.`,
          { threadId, branchId },
        );
      }
      const chain: ChainLink[] = chainRows.map((r) => ({
        branchId: r.branch_id,
        parentBranch: r.parent_branch,
        parentSeq: r.parent_seq,
        lastSeq: r.last_seq,
      }));
      const { segments, from, to } = planRead(chain, afterSeq, uptoSeq);
      if (segments.length === 0) return [];
      const rows = (
        await this.#pool.query<DbEventRow>(
          `SELECT ${EVENT_COLUMNS}
           FROM unnest($2::text[], $3::int[], $4::int[]) AS s(branch_id, lo, hi)
           JOIN ${t.events} e ON e.thread_id = $1 AND e.branch_id = s.branch_id AND e.seq > s.lo AND e.seq <= s.hi
           ORDER BY e.seq`,
          [
            threadId,
            segments.map((s) => s.branchId),
            segments.map((s) => s.after),
            segments.map((s) => s.upto),
          ],
        )
      ).rows;
      const out = rows.map((r) => decodeEvent(threadId, r.branch_id, toEventRow(r)));
      checkContiguous(threadId, branchId, out, from, to);
      return out;
    });
  }

  /** The branch, or `null` when it does not exist. @throws StateStoreError for a closed store or a database error. */
  async getBranch(threadId: string, branchId: string): Promise<BranchInfo | null> {
    this.#open();
    await this.ready();
    return this.#run(threadId, branchId, async () => {
      const b = await this.#branch(threadId, branchId);
      if (!b) return null;
      return {
        threadId,
        branchId,
        parent:
          b.parent_branch === null ? null : { branchId: b.parent_branch, seq: b.parent_seq ?? 0 },
        lastSeq: b.last_seq,
      };
    });
  }

  /** The thread's branches, in creation order; see {@link StateStore.listBranches}. */
  async listBranches(threadId: string): Promise<BranchInfo[]> {
    this.#open();
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
    return this.#run(p.threadId, p.branchId, async () => {
      const res = await this.#pool.query<DbEventRow>(
        `SELECT ${EVENT_COLUMNS} FROM ${this.#t.events} e WHERE e.thread_id = $1 AND e.branch_id = $2 AND e.seq = $3`,
        [p.threadId, p.branchId, p.seq],
      );
      const row = res.rows[0];
      return row ? decodeEvent(p.threadId, p.branchId, toEventRow(row)) : null;
    });
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
    return this.#run(threadId, newBranchIdArg, async () => {
      const t = this.#t;
      for (let attempt = 0; ; attempt++) {
        const id = newBranchIdArg ?? newBranchId();
        const res = await this.#pool.query(
          `INSERT INTO ${t.branches} (thread_id, branch_id, parent_branch, parent_seq, last_seq)
           SELECT $1::text, $2::text, $3::text, $4::int, $4::int
           WHERE EXISTS (SELECT 1 FROM ${t.events} WHERE thread_id = $1 AND branch_id = $3 AND seq = $4)
           ON CONFLICT DO NOTHING
           RETURNING 1`,
          [threadId, id, p.branchId, p.seq],
        );
        if (res.rowCount === 1) {
          return {
            threadId,
            branchId: id,
            parent: { branchId: p.branchId, seq: p.seq },
            lastSeq: p.seq,
          };
        }
        const exists = await this.#pool.query(
          `SELECT 1 FROM ${t.events} WHERE thread_id = $1 AND branch_id = $2 AND seq = $3`,
          [threadId, p.branchId, p.seq],
        );
        if (exists.rowCount === 0) throw unknownEvent(threadId, fromEventId);
        if (newBranchIdArg !== undefined || attempt >= 5) throw branchExists(threadId, id);
      }
    });
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
    await this.#run(threadId, branchId, async () => {
      const t = this.#t;
      const res = await this.#pool.query(
        `INSERT INTO ${t.snapshots} (thread_id, branch_id, seq, data, bytes)
         SELECT $1::text, $2::text, $3::int, $4::text, $5::bigint FROM ${t.branches}
         WHERE thread_id = $1 AND branch_id = $2 AND last_seq >= $3
         ON CONFLICT (thread_id, branch_id) DO UPDATE
           SET seq = EXCLUDED.seq, data = EXCLUDED.data, bytes = EXCLUDED.bytes`,
        [threadId, branchId, Math.min(snapshot.seq, MAX_SEQ), data, bytes],
      );
      if (res.rowCount === 0) {
        const b = await this.#branch(threadId, branchId);
        if (!b) throw unknownBranch(threadId, branchId);
        throw snapshotBeyondEnd(threadId, branchId, snapshot.seq, b.last_seq);
      }
    });
  }

  /** The branch's latest snapshot, or `null`. @throws StateStoreError for a damaged snapshot or a closed store. */
  async loadSnapshot(threadId: string, branchId: string): Promise<Snapshot | null> {
    this.#open();
    await this.ready();
    return this.#run(threadId, branchId, async () => {
      const res = await this.#pool.query<{ seq: number; data: string }>(
        `SELECT seq, data FROM ${this.#t.snapshots} WHERE thread_id = $1 AND branch_id = $2`,
        [threadId, branchId],
      );
      const row = res.rows[0];
      return row ? decodeSnapshot(threadId, branchId, row.seq, row.data) : null;
    });
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
      this.#leaseOp(async () => {
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
      }),
    );
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
    let fresh = false;
    if (heldBy === undefined) {
      const r = await client.query<{ ok: boolean }>(
        "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok",
        [this.#lockName(threadId, branchId)],
      );
      fresh = r.rows[0]!.ok;
    }
    const t = this.#t;
    // `fresh`: nobody held the lock, so a holder that had it (`l.locked`) is gone.
    const res = await client.query(
      `INSERT INTO ${t.leases} AS l (thread_id, branch_id, owner, expires_at, locked)
           VALUES ($1, $2, $3, ${NOW_MS} + $4::bigint, $5::boolean)
           ON CONFLICT (thread_id, branch_id) DO UPDATE
             SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, locked = EXCLUDED.locked,
               stop_by = CASE WHEN l.owner = EXCLUDED.owner THEN l.stop_by ELSE NULL END
             WHERE l.owner = EXCLUDED.owner OR l.expires_at <= ${NOW_MS} OR ($6::boolean AND l.locked)
           RETURNING 1`,
      [threadId, branchId, owner, Math.ceil(ttlMs), fresh || heldBy !== undefined, fresh],
    );
    if (res.rowCount === 1) {
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
  leaseLost(threadId: string, branchId: string, owner: string): boolean {
    return this.#lost.has(`${threadId}\u0000${branchId}\u0000${owner}`);
  }

  /**
   * Call `listener` with a lease's thread, branch and owner as soon as the session holding its
   * lock reports an error or ends (the connection's `error` or `end` event; no query, no
   * polling). Returns the function that removes it. A run listens for its lease and stops at
   * once (see {@link StateStore.onLeaseLost}).
   */
  onLeaseLost(listener: (threadId: string, branchId: string, owner: string) => void): () => void {
    this.#lostListeners.add(listener);
    return () => {
      this.#lostListeners.delete(listener);
    };
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
      this.#leaseOp(async () => {
        if (this.#lost.has(`${threadId}\u0000${branchId}\u0000${owner}`)) return false;
        const res = await this.#pool.query(
          `UPDATE ${this.#t.leases} SET expires_at = ${NOW_MS} + $4::bigint
             WHERE thread_id = $1 AND branch_id = $2 AND owner = $3 RETURNING 1`,
          [threadId, branchId, owner, Math.ceil(ttlMs)],
        );
        return res.rowCount === 1;
      }),
    );
  }

  /** Give the lease back; a no-op when `owner` does not hold it. @throws StateStoreError for a closed store. */
  async releaseLease(threadId: string, branchId: string, owner: string): Promise<void> {
    this.#open();
    await this.ready();
    await this.#run(threadId, branchId, () =>
      this.#leaseOp(async () => {
        const k = `${threadId}\u0000${branchId}`;
        this.#lost.delete(`${k}\u0000${owner}`);
        await this.#pool.query(
          `DELETE FROM ${this.#t.leases} WHERE thread_id = $1 AND branch_id = $2 AND owner = $3`,
          [threadId, branchId, owner],
        );
        const client = this.#leaseClient;
        if (client && this.#held.get(k) === owner) {
          this.#held.delete(k);
          await this.#unlock(client, threadId, branchId);
        }
        this.#idleSession();
      }),
    );
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
    return this.#run(threadId, branchId, async () => {
      const res = await this.#pool.query<{ owner: string }>(
        `UPDATE ${this.#t.leases} SET stop_by = $3 WHERE thread_id = $1 AND branch_id = $2 AND expires_at > ${NOW_MS} RETURNING owner`,
        [threadId, branchId, by],
      );
      return res.rows[0]?.owner ?? null;
    });
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
    return this.#run(threadId, branchId, async () => {
      const res = await this.#pool.query<{ stop_by: string | null }>(
        `SELECT stop_by FROM ${this.#t.leases} WHERE thread_id = $1 AND branch_id = $2 AND owner = $3`,
        [threadId, branchId, owner],
      );
      return res.rows[0]?.stop_by ?? null;
    });
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

  /**
   * Threads with their branch ids (creation order), most recently updated first (ties by
   * thread id); all of them, or the page `options` asks for (one query for the page).
   * @throws StateStoreError for a bad `limit` or `offset`, a closed store or a database error.
   */
  async listThreads(options?: ListThreadsOptions): Promise<ThreadInfo[]> {
    this.#open();
    const { limit, offset } = listBounds(options);
    await this.ready();
    return this.#run(undefined, undefined, async () => {
      const t = this.#t;
      const paged = limit !== Number.POSITIVE_INFINITY || offset !== 0;
      const res = await this.#pool.query<{
        thread_id: string;
        branch_id: string;
        updated_at: number;
      }>(
        paged
          ? `WITH page AS (
               SELECT thread_id, max(updated_at) AS u FROM ${t.branches} GROUP BY thread_id
               ORDER BY u DESC, thread_id COLLATE "C" LIMIT $1 OFFSET $2
             )
             SELECT b.thread_id, b.branch_id, b.updated_at::float8 AS updated_at
             FROM ${t.branches} b JOIN page p USING (thread_id) ORDER BY b.ord`
          : `SELECT thread_id, branch_id, updated_at::float8 AS updated_at FROM ${t.branches} ORDER BY ord`,
        paged ? [limit === Number.POSITIVE_INFINITY ? null : limit, offset] : [],
      );
      const threads = new Map<string, ThreadInfo>();
      for (const row of res.rows) {
        let info = threads.get(row.thread_id);
        if (!info) {
          info = { threadId: row.thread_id, branches: [], updatedAt: 0 };
          threads.set(row.thread_id, info);
        }
        info.branches.push(row.branch_id);
        info.updatedAt = Math.max(info.updatedAt, row.updated_at);
      }
      return [...threads.values()].sort(byUpdatedAt);
    });
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
    const t = this.#t;
    const where = "thread_id = $1 OR ($2::boolean AND starts_with(thread_id, $3))";
    const args = [threadId, children, `${threadId}:`];
    const rows = (
      await this.#run(threadId, undefined, () =>
        this.#pool.query<{ thread_id: string; branch_id: string }>(
          `SELECT thread_id, branch_id FROM ${t.branches} WHERE ${where} ORDER BY thread_id COLLATE "C", ord`,
          args,
        ),
      )
    ).rows.filter((r) => isDeleted(r.thread_id, threadId, children));
    const branches = rows.map((r) => [r.thread_id, r.branch_id] as const);
    return underLeases(this, branches, () =>
      this.#run(threadId, undefined, async () => {
        const client = await this.#pool.connect();
        try {
          await client.query("BEGIN");
          for (const table of [t.events, t.snapshots, t.branches]) {
            await client.query(`DELETE FROM ${table} WHERE ${where}`, args);
          }
          await client.query("COMMIT");
        } catch (e) {
          await client.query("ROLLBACK").catch(() => {});
          throw e;
        } finally {
          client.release();
        }
        return [...new Set(rows.map((r) => r.thread_id))];
      }),
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
    return this.#run(undefined, undefined, async () => {
      const t = this.#t;
      const res = await this.#pool.query<{ n: number }>(
        `SELECT ((SELECT coalesce(sum(bytes), 0) FROM ${t.branches})
               + (SELECT coalesce(sum(bytes), 0) FROM ${t.snapshots}))::float8 AS n`,
      );
      return res.rows[0]!.n;
    });
  }

  /**
   * End the pool when the store made it (a pool passed in is left open); later calls throw
   * `StateStoreError`. Closing twice is a no-op.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
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
    if (this.#ownsPool) await this.#pool.end();
  }

  #open(): void {
    if (this.#closed) throw closedError("PostgresStateStore");
  }

  async #branch(threadId: string, branchId: string): Promise<BranchRow | undefined> {
    const res = await this.#pool.query<BranchRow>(
      `SELECT branch_id, parent_branch, parent_seq, last_seq FROM ${this.#t.branches} WHERE thread_id = $1 AND branch_id = $2`,
      [threadId, branchId],
    );
    return res.rows[0];
  }

  async #setUp(): Promise<void> {
    const t = this.#t;
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (e) {
      throw new StateStoreError(
        `Cannot connect to PostgreSQL for the state store (schema "${this.schema}"): ${(e as Error).message}`,
        { cause: e },
      );
    }
    try {
      await client.query("BEGIN");
      // One process at a time sets up a schema; the others wait and then see it done.
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
        `nodestep.state-store:${this.schema}`,
      ]);
      const present = (
        await client.query<{ table_name: string }>(
          "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name = ANY($2)",
          [this.schema, TABLES],
        )
      ).rows.map((r) => r.table_name);
      if (present.length === 0) {
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
        await client.query(`
          CREATE TABLE ${t.meta} (key text PRIMARY KEY, value text NOT NULL);
          CREATE TABLE ${t.branches} (
            thread_id text NOT NULL,
            branch_id text NOT NULL,
            parent_branch text,
            parent_seq integer,
            last_seq integer NOT NULL,
            updated_at bigint NOT NULL DEFAULT 0,
            bytes bigint NOT NULL DEFAULT 0,
            ord bigserial,
            PRIMARY KEY (thread_id, branch_id)
          );
          CREATE TABLE ${t.events} (
            thread_id text NOT NULL,
            branch_id text NOT NULL,
            seq integer NOT NULL,
            type text NOT NULL,
            run_id text NOT NULL,
            step integer,
            task_id text,
            node text,
            data text NOT NULL,
            created_at bigint NOT NULL,
            PRIMARY KEY (thread_id, branch_id, seq)
          );
          CREATE TABLE ${t.snapshots} (
            thread_id text NOT NULL,
            branch_id text NOT NULL,
            seq integer NOT NULL,
            data text NOT NULL,
            bytes bigint NOT NULL,
            PRIMARY KEY (thread_id, branch_id)
          );
          CREATE TABLE ${t.leases} (
            thread_id text NOT NULL,
            branch_id text NOT NULL,
            owner text NOT NULL,
            expires_at bigint NOT NULL,
            locked boolean NOT NULL DEFAULT false,
            stop_by text,
            PRIMARY KEY (thread_id, branch_id)
          );
        `);
        await client.query(
          `INSERT INTO ${t.meta} (key, value) VALUES ('format', $1), ('schema_version', $2)`,
          [FORMAT, String(POSTGRES_SCHEMA_VERSION)],
        );
      } else {
        this.#checkSchema(
          present,
          present.includes("meta")
            ? new Map(
                (
                  await client.query<{ key: string; value: string }>(
                    `SELECT key, value FROM ${t.meta}`,
                  )
                ).rows.map((r) => [r.key, r.value]),
              )
            : null,
        );
        // Schemas made before leases were tied to a session get the column (readers that do
        // not know it ignore it).
        const hasLocked = await client.query(
          "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'leases' AND column_name = 'locked'",
          [this.schema],
        );
        if (hasLocked.rowCount === 0) {
          await client.query(
            `ALTER TABLE ${t.leases} ADD COLUMN locked boolean NOT NULL DEFAULT false`,
          );
        }
        // And before runs could be asked to stop (busy-thread policies): `stop_by`.
        await client.query(`ALTER TABLE ${t.leases} ADD COLUMN IF NOT EXISTS stop_by text`);
      }
      await client.query("COMMIT");
    } catch (e) {
      await client.query("ROLLBACK").catch(() => {});
      if (e instanceof StateStoreError) throw e;
      throw new StateStoreError(
        `Cannot set up the PostgreSQL state store in schema "${this.schema}": ${(e as Error).message}`,
        { cause: e },
      );
    } finally {
      client.release();
    }
  }

  #checkSchema(present: string[], meta: Map<string, string> | null): void {
    const where = `PostgreSQL schema "${this.schema}"`;
    if (!meta) {
      throw new StateStoreError(
        `${where} is not a nodestep state store: it has tables (${present.join(", ")}) but no meta table. Use another schema.`,
      );
    }
    if (meta.get("format") !== FORMAT) {
      throw new StateStoreError(
        `${where} is not a nodestep state store (its meta table says format ${JSON.stringify(meta.get("format") ?? null)}). Use another schema.`,
      );
    }
    const version = meta.get("schema_version");
    if (version !== String(POSTGRES_SCHEMA_VERSION)) {
      throw new StateStoreError(
        `${where} was written with state store schema version ${version ?? "(none)"}; this nodestep reads version ${POSTGRES_SCHEMA_VERSION}. Migrate the schema to version ${POSTGRES_SCHEMA_VERSION} (see docs/stores.md, "Schema versions"), or use the nodestep version that wrote it. Nothing was changed.`,
      );
    }
    const missing = TABLES.filter((n) => !present.includes(n));
    if (missing.length > 0) {
      throw new StateStoreError(
        `${where} is a damaged nodestep state store: table(s) ${missing.join(", ")} are missing. Restore it from a backup.`,
      );
    }
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

const statementNames = new Map<string, string>();

/**
 * The name a statement is prepared under on each connection (pg prepares a named statement
 * once per connection, then sends only its parameters): a hash of its text, so that stores
 * of different schemas sharing a pool never clash.
 */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `nodestep_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

function stored(
  threadId: string,
  branchId: string,
  seq: number,
  e: EncodedEvent,
  createdAt: number,
): StoredEvent {
  return decodeEvent(threadId, branchId, { seq, ...e, createdAt });
}

function toEventRow(r: DbEventRow): EventRow {
  return {
    seq: r.seq,
    type: r.type,
    runId: r.run_id,
    step: r.step,
    taskId: r.task_id,
    node: r.node,
    data: r.data,
    createdAt: r.created_at,
  };
}
