/**
 * `SqliteStateStore`: the event log in one SQLite file (better-sqlite3), the embedded default
 * on disk.
 *
 * @module
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
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
  type EventRow,
  encodeEvents,
  encodeSnapshot,
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
  utf8Bytes,
} from "../../stores/internal.js";
import { isGone, thisProcess } from "../../stores/liveness.js";
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
import { listSqliteBranches } from "./sqlite-branches.js";

/** Version of the tables this code reads and writes; kept in the `meta` table. */
export const SQLITE_SCHEMA_VERSION = 1;

/** What the `meta` table says the file is. */
const FORMAT = "nodestep-state-store";

/** Options of {@link SqliteStateStore}. */
export interface SqliteStateStoreOptions {
  /** The database file, created when missing (with its directory); `":memory:"` for a private in-memory database. */
  path: string;
  /**
   * How hard a commit waits for the disk. `"NORMAL"` (default): in WAL mode, an acknowledged
   * append survives the process being killed (SIGKILL, crash), but the last commits may be lost
   * if the machine loses power or the OS crashes. `"FULL"`: every commit is synced to disk
   * before `append` resolves, and survives power loss too, at the cost of one fsync per append.
   */
  synchronous?: "NORMAL" | "FULL";
  /** How long a write waits for another process's write lock before failing, in ms (default 5,000). */
  busyTimeoutMs?: number;
}

interface BranchRow {
  parent_branch: string | null;
  parent_seq: number | null;
  last_seq: number;
}

interface LeaseRow {
  owner: string;
  expires_at: number;
  host: string | null;
  pid: number | null;
  started: string | null;
}

interface DbEventRow {
  seq: number;
  type: string;
  run_id: string;
  step: number | null;
  task_id: string | null;
  node: string | null;
  data: string;
  created_at: number;
}

const TABLES = ["meta", "branches", "events", "snapshots", "leases"];

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE branches (
  thread_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  parent_branch TEXT,
  parent_seq INTEGER,
  last_seq INTEGER NOT NULL,
  updated_at INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (thread_id, branch_id)
);
CREATE TABLE events (
  thread_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  run_id TEXT NOT NULL,
  step INTEGER,
  task_id TEXT,
  node TEXT,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (thread_id, branch_id, seq)
);
CREATE TABLE snapshots (
  thread_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  PRIMARY KEY (thread_id, branch_id)
);
CREATE TABLE leases (
  thread_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  owner TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  host TEXT,
  pid INTEGER,
  started TEXT,
  stop_by TEXT,
  PRIMARY KEY (thread_id, branch_id)
);
`;

/**
 * Columns added to `leases` after version 1 was first released (added to older files on open):
 * the holder's machine and process, and `stop_by` (the run that asked the holder to stop).
 */
const LEASE_HOLDER_COLUMNS = ["host TEXT", "pid INTEGER", "started TEXT", "stop_by TEXT"];

const EVENT_COLUMNS = "seq, type, run_id, step, task_id, node, data, created_at";

/**
 * A {@link StateStore} in one SQLite file, through better-sqlite3.
 *
 * The file is in WAL mode; each append is one `BEGIN IMMEDIATE` transaction of prepared
 * statements, which checks `expectedLastSeq` against the `branches` row (never by scanning the
 * events), so several processes can share one file and exactly one of two racing writers wins.
 * With the default `synchronous: "NORMAL"`, an append that resolved survives SIGKILL of the
 * process; `"FULL"` also survives power loss.
 *
 * Event data is stored as JSON text, byte for byte what `JSON.stringify` wrote. Opening a file
 * written with another schema version, or reading a damaged row, raises `StateStoreError`; the
 * store never returns a silently wrong or emptied history.
 *
 * better-sqlite3 is synchronous: every method does its work before its promise settles, and
 * blocks the event loop for the time of the query (microseconds to milliseconds).
 *
 * @throws StateStoreError from the constructor when the file cannot be opened, is not a SQLite
 *   database, is not a nodestep store, or was written by another schema version.
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
export class SqliteStateStore implements StateStore {
  /** The database file this store was opened on. */
  readonly path: string;
  #db: Database.Database | null;
  readonly #s: ReturnType<typeof prepare>;
  readonly #appendTx: (
    threadId: string,
    branchId: string,
    events: ReturnType<typeof encodeEvents>,
    expectedLastSeq: number,
  ) => StoredEvent[];
  readonly #leaseTx: (threadId: string, branchId: string, owner: string, ttlMs: number) => boolean;
  readonly #readTx: (
    threadId: string,
    branchId: string,
    afterSeq: number,
    uptoSeq: number,
  ) => StoredEvent[];

  /**
   * Open (or create) the store's file and its tables.
   * @throws StateStoreError when the file cannot be opened or holds an incompatible schema.
   */
  constructor(options: SqliteStateStoreOptions) {
    if (!options || typeof options.path !== "string" || options.path === "") {
      throw new StateStoreError("SqliteStateStore needs a { path } to a database file");
    }
    this.path = options.path;
    const sync = options.synchronous ?? "NORMAL";
    if (sync !== "NORMAL" && sync !== "FULL") {
      throw new StateStoreError(`synchronous must be "NORMAL" or "FULL", got ${String(sync)}`);
    }
    let db: Database.Database | undefined;
    try {
      if (options.path !== ":memory:") makeDirectory(options.path);
      db = new Database(options.path);
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
      db.pragma("journal_mode = WAL");
      db.pragma(`synchronous = ${sync}`);
      setUpSchema(db, options.path);
    } catch (e) {
      db?.close();
      if (e instanceof StateStoreError) throw e;
      throw new StateStoreError(
        `Cannot open the SQLite state store at ${options.path}: ${(e as Error).message}.${sqliteHint(e)}`,
        { cause: e },
      );
    }
    this.#db = db;
    const s = prepare(db);
    this.#s = s;

    this.#appendTx = db
      .transaction(
        (
          threadId: string,
          branchId: string,
          events: ReturnType<typeof encodeEvents>,
          expected: number,
        ): StoredEvent[] => {
          if (events.length === 0) {
            checkExpected(s, threadId, branchId, expected);
            return [];
          }
          const n = events.length;
          const createdAt = Date.now();
          // The key columns' bytes, counted once for every row (see eventRowBytes).
          const keyBytes = utf8Bytes(threadId) + utf8Bytes(branchId);
          let bytes = n * keyBytes;
          for (let i = 0; i < n; i++) bytes += events[i]!.bytes;
          // The sequence check and the branch's advance in one statement (no read first): it
          // changes no row when the branch is elsewhere or does not exist yet, and then the
          // branch is read to say which (the transaction rolls the rest back when that throws).
          if (
            s.advanceBranch.run(expected + n, createdAt, bytes, threadId, branchId, expected)
              .changes !== 1
          ) {
            checkExpected(s, threadId, branchId, expected);
            // A "main" that does not exist yet at 0: its row, already at its new last seq.
            s.insertBranch.run(threadId, branchId, expected + n, createdAt, bytes);
          }
          const out: StoredEvent[] = new Array(n);
          for (let i = 0; i < n; i++) {
            const e = events[i]!;
            const seq = expected + 1 + i;
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
            );
            const row: EventRow = { seq, ...e, createdAt };
            out[i] = decodeEvent(threadId, branchId, row);
          }
          return out;
        },
      )
      .immediate.bind(null);

    this.#leaseTx = db
      .transaction((threadId: string, branchId: string, owner: string, ttlMs: number): boolean => {
        const now = Date.now();
        const held = s.getLease.get(threadId, branchId) as LeaseRow | undefined;
        if (held && held.owner !== owner && held.expires_at > now && !isGone(held)) return false;
        const me = thisProcess();
        s.putLease.run(
          threadId,
          branchId,
          owner,
          Math.ceil(now + ttlMs),
          me.host,
          me.pid,
          me.started,
        );
        return true;
      })
      .immediate.bind(null);

    this.#readTx = db
      .transaction(
        (threadId: string, branchId: string, afterSeq: number, uptoSeq: number): StoredEvent[] => {
          const chain = loadChain(s, threadId, branchId);
          if (!chain) {
            if (branchId === MAIN_BRANCH) return [];
            throw unknownBranch(threadId, branchId);
          }
          const { segments, from, to } = planRead(chain, afterSeq, uptoSeq);
          const out: StoredEvent[] = [];
          for (const seg of segments) {
            const rows = s.readRange.raw(true).all(threadId, seg.branchId, seg.after, seg.upto);
            for (const row of rows as RawEventRow[]) {
              out.push(decodeEvent(threadId, seg.branchId, fromRawRow(row)));
            }
          }
          checkContiguous(threadId, branchId, out, from, to);
          return out;
        },
      )
      .deferred.bind(null);
  }

  /**
   * Append events to a branch in one transaction; see {@link StateStore.append}.
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
    this.#open();
    checkThreadId(threadId);
    checkSeq(expectedLastSeq, "expectedLastSeq", threadId, branchId);
    const encoded = encodeEvents(threadId, branchId, events);
    return this.#run(threadId, branchId, () =>
      this.#appendTx(threadId, branchId, encoded, expectedLastSeq),
    );
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
    this.#open();
    checkThreadId(threadId);
    const { afterSeq, uptoSeq } = readBounds(threadId, branchId, options);
    return this.#run(threadId, branchId, () => this.#readTx(threadId, branchId, afterSeq, uptoSeq));
  }

  /** The branch, or `null` when it does not exist. @throws StateStoreError for a closed store. */
  async getBranch(threadId: string, branchId: string): Promise<BranchInfo | null> {
    this.#open();
    return this.#run(threadId, branchId, () => {
      const row = this.#s.getBranch.get(threadId, branchId) as BranchRow | undefined;
      return row ? toBranchInfo(threadId, branchId, row) : null;
    });
  }

  /** The thread's branches, in creation order; see {@link StateStore.listBranches}. */
  async listBranches(threadId: string): Promise<BranchInfo[]> {
    this.#open();
    return this.#run(threadId, undefined, () => listSqliteBranches(this.#db!, threadId));
  }

  /**
   * One event by id, or `null`.
   * @throws StateStoreError for a damaged row or a closed store.
   */
  async getEvent(eventId: string): Promise<StoredEvent | null> {
    this.#open();
    const p = parseEventId(eventId);
    if (!p) return null;
    return this.#run(p.threadId, p.branchId, () => {
      const row = this.#s.getEvent.get(p.threadId, p.branchId, p.seq) as DbEventRow | undefined;
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
    const s = this.#s;
    return this.#run(threadId, newBranchIdArg, () => {
      if (!p || p.threadId !== threadId || !s.eventExists.get(threadId, p.branchId, p.seq)) {
        throw unknownEvent(threadId, fromEventId);
      }
      let id = newBranchIdArg;
      if (id === undefined) {
        do id = newBranchId();
        while (s.getBranch.get(threadId, id));
      }
      if (s.insertBranchIfNew.run(threadId, id, p.branchId, p.seq, p.seq).changes !== 1) {
        throw branchExists(threadId, id);
      }
      return {
        threadId,
        branchId: id,
        parent: { branchId: p.branchId, seq: p.seq },
        lastSeq: p.seq,
      };
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
    this.#run(threadId, branchId, () => {
      const changed = this.#s.saveSnapshot.run(
        threadId,
        branchId,
        snapshot.seq,
        data,
        bytes,
        threadId,
        branchId,
        snapshot.seq,
      ).changes;
      if (changed === 0) {
        const b = this.#s.getBranch.get(threadId, branchId) as BranchRow | undefined;
        if (!b) throw unknownBranch(threadId, branchId);
        throw snapshotBeyondEnd(threadId, branchId, snapshot.seq, b.last_seq);
      }
    });
  }

  /**
   * The branch's latest snapshot, or `null`.
   * @throws StateStoreError for a damaged snapshot or a closed store.
   */
  async loadSnapshot(threadId: string, branchId: string): Promise<Snapshot | null> {
    this.#open();
    return this.#run(threadId, branchId, () => {
      const row = this.#s.loadSnapshot.get(threadId, branchId) as
        | { seq: number; data: string }
        | undefined;
      return row ? decodeSnapshot(threadId, branchId, row.seq, row.data) : null;
    });
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
    this.#open();
    checkLease(threadId, branchId, owner, ttlMs);
    return this.#run(threadId, branchId, () => {
      // The common case in one statement (no lease yet, this owner's, or an expired one);
      // a lease another owner holds goes through the transaction, which takes it over only
      // when its holder is gone.
      const now = Date.now();
      const me = thisProcess();
      const taken = this.#s.takeLease.run(
        threadId,
        branchId,
        owner,
        Math.ceil(now + ttlMs),
        me.host,
        me.pid,
        me.started,
        now,
      ).changes;
      return taken === 1 || this.#leaseTx(threadId, branchId, owner, ttlMs);
    });
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
    this.#open();
    checkLease(threadId, branchId, owner, ttlMs);
    return this.#run(
      threadId,
      branchId,
      () =>
        this.#s.renewLease.run(Math.ceil(Date.now() + ttlMs), threadId, branchId, owner).changes ===
        1,
    );
  }

  /** Give the lease back; a no-op when `owner` does not hold it. @throws StateStoreError for a closed store. */
  async releaseLease(threadId: string, branchId: string, owner: string): Promise<void> {
    this.#open();
    this.#run(threadId, branchId, () => this.#s.releaseLease.run(threadId, branchId, owner));
  }

  /**
   * Ask the holder of the branch's unexpired lease to stop at its next superstep boundary
   * (see {@link StateStore.requestStop}): one UPDATE of its `leases` row, which every process
   * sharing the file reads.
   * @returns the owner asked, or `null` when no unexpired lease is held.
   * @throws StateStoreError for an empty `by` or a closed store.
   */
  async requestStop(threadId: string, branchId: string, by: string): Promise<string | null> {
    this.#open();
    checkStopArgs(threadId, branchId, "by", by);
    return this.#run(threadId, branchId, () => {
      const row = this.#s.requestStop.get(by, threadId, branchId, Date.now()) as
        | { owner: string }
        | undefined;
      return row?.owner ?? null;
    });
  }

  /** The run that asked `owner` to stop, or `null` (see {@link StateStore.stopRequested}). */
  async stopRequested(threadId: string, branchId: string, owner: string): Promise<string | null> {
    this.#open();
    checkStopArgs(threadId, branchId, "owner", owner);
    return this.#run(threadId, branchId, () => {
      const row = this.#s.stopRequested.get(threadId, branchId, owner) as
        | { stop_by: string | null }
        | undefined;
      return row?.stop_by ?? null;
    });
  }

  /**
   * Threads with their branch ids (creation order), most recently updated first (ties by
   * thread id); all of them, or the page `options` asks for (one query for the page).
   * @throws StateStoreError for a bad `limit` or `offset`, or a closed store.
   */
  async listThreads(options?: ListThreadsOptions): Promise<ThreadInfo[]> {
    this.#open();
    const { limit, offset } = listBounds(options);
    return this.#run(undefined, undefined, () => {
      if (limit !== Number.POSITIVE_INFINITY || offset !== 0) {
        const page = this.#s.listPage.all(
          limit === Number.POSITIVE_INFINITY ? -1 : limit,
          offset,
        ) as { thread_id: string; updated_at: number }[];
        return page.map((r) => ({
          threadId: r.thread_id,
          branches: (
            this.#s.threadBranches.all(r.thread_id, 0, 0, "") as { branch_id: string }[]
          ).map((b) => b.branch_id),
          updatedAt: r.updated_at,
        }));
      }
      const threads = new Map<string, ThreadInfo>();
      for (const r of this.#s.listBranches.iterate()) {
        const row = r as { thread_id: string; branch_id: string; updated_at: number };
        let t = threads.get(row.thread_id);
        if (!t) {
          t = { threadId: row.thread_id, branches: [], updatedAt: 0 };
          threads.set(row.thread_id, t);
        }
        t.branches.push(row.branch_id);
        t.updatedAt = Math.max(t.updatedAt, row.updated_at);
      }
      return [...threads.values()].sort(byUpdatedAt);
    });
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
    this.#open();
    const children = deleteChildren(threadId, options);
    const s = this.#s;
    const prefix = `${threadId}:`;
    // substr counts characters (code points), not UTF-16 units.
    const args = [threadId, children ? 1 : 0, [...prefix].length, prefix] as const;
    const rows = this.#run(
      threadId,
      undefined,
      () => s.threadBranches.all(...args) as { thread_id: string; branch_id: string }[],
    ).filter((r) => isDeleted(r.thread_id, threadId, children));
    const branches = rows.map((r) => [r.thread_id, r.branch_id] as const);
    return underLeases(this, branches, () =>
      this.#run(threadId, undefined, () =>
        this.#db!.transaction(() => {
          s.deleteEvents.run(...args);
          s.deleteSnapshots.run(...args);
          s.deleteBranches.run(...args);
          return [...new Set(rows.map((r) => r.thread_id))];
        }).immediate(),
      ),
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
    this.#open();
    this.#run(undefined, undefined, () => {
      this.#db!.pragma("wal_checkpoint(TRUNCATE)");
      this.#db!.exec("VACUUM");
      this.#db!.pragma("wal_checkpoint(TRUNCATE)");
    });
  }

  /**
   * Logical bytes stored: for each event the UTF-8 bytes of its data JSON and text columns plus
   * 8 per number, and the same for snapshots (kept per branch, so this reads one row per
   * branch). Page slack, indexes and the WAL are not counted; see {@link fileSizeBytes}.
   */
  async sizeBytes(): Promise<number> {
    this.#open();
    return this.#run(undefined, undefined, () => (this.#s.sizeBytes.get() as { n: number }).n);
  }

  /**
   * Bytes the store takes on disk now: the database file plus its `-wal` file (0 for `":memory:"`).
   * @throws StateStoreError for a closed store.
   */
  async fileSizeBytes(): Promise<number> {
    this.#open();
    let n = 0;
    for (const f of [this.path, `${this.path}-wal`]) {
      try {
        n += statSync(f).size;
      } catch {
        // missing file: 0 bytes
      }
    }
    return this.path === ":memory:" ? 0 : n;
  }

  /**
   * Copy what the write-ahead log holds into the database file and truncate the log to 0 bytes
   * (`PRAGMA wal_checkpoint(TRUNCATE)`), as closing does. Useful before copying the file or
   * measuring it. A checkpoint that readers in other connections hold back stops where they
   * are and leaves the rest for the next one.
   * @throws StateStoreError for a closed store.
   */
  async checkpoint(): Promise<void> {
    this.#open();
    this.#run(undefined, undefined, () => this.#db!.pragma("wal_checkpoint(TRUNCATE)"));
  }

  /** Close the file (checkpointing the WAL); later calls throw `StateStoreError`. Closing twice is a no-op. */
  async close(): Promise<void> {
    const db = this.#db;
    if (!db) return;
    this.#db = null;
    db.close();
  }

  #open(): void {
    if (!this.#db) throw closedError("SqliteStateStore");
  }

  /** Run `fn`, turning a SQLite error into `StateStoreError` (ours pass through). */
  #run<T>(threadId: string | undefined, branchId: string | undefined, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof StateStoreError) throw e;
      throw new StateStoreError(
        `SQLite state store ${this.path} failed${threadId === undefined ? "" : ` on thread "${threadId}"`}: ${(e as Error).message}.${sqliteHint(e)}`,
        { threadId, branchId, cause: e },
      );
    }
  }
}

/** What to do about a SQLite error, by its code (`""` when there is nothing to add). */
function sqliteHint(e: unknown): string {
  const code = String((e as { code?: unknown }).code ?? "");
  if (code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB")
    return " The file is damaged or not a SQLite database; restore it from a backup or use another path.";
  if (code === "SQLITE_BUSY")
    return " Another process held the write lock too long; retry or raise busyTimeoutMs.";
  if (code.startsWith("SQLITE_READONLY"))
    return " The file or its directory is read-only: reading works, writing does not; open the store on a file this process can write.";
  if (code.startsWith("SQLITE_CANTOPEN"))
    return " The path must name a file (not a directory) in a directory this process can write.";
  return "";
}

function prepare(db: Database.Database) {
  return {
    getBranch: db.prepare(
      "SELECT parent_branch, parent_seq, last_seq FROM branches WHERE thread_id = ? AND branch_id = ?",
    ),
    insertBranch: db.prepare(
      "INSERT INTO branches (thread_id, branch_id, parent_branch, parent_seq, last_seq, updated_at, bytes) VALUES (?, ?, NULL, NULL, ?, ?, ?)",
    ),
    insertBranchIfNew: db.prepare(
      "INSERT INTO branches (thread_id, branch_id, parent_branch, parent_seq, last_seq) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    ),
    advanceBranch: db.prepare(
      "UPDATE branches SET last_seq = ?, updated_at = ?, bytes = bytes + ? WHERE thread_id = ? AND branch_id = ? AND last_seq = ?",
    ),
    insertEvent: db.prepare(
      `INSERT INTO events (thread_id, branch_id, ${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    readRange: db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE thread_id = ? AND branch_id = ? AND seq > ? AND seq <= ? ORDER BY seq`,
    ),
    getEvent: db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE thread_id = ? AND branch_id = ? AND seq = ?`,
    ),
    eventExists: db.prepare(
      "SELECT 1 AS x FROM events WHERE thread_id = ? AND branch_id = ? AND seq = ?",
    ),
    saveSnapshot: db.prepare(
      `INSERT INTO snapshots (thread_id, branch_id, seq, data, bytes)
       SELECT ?, ?, ?, ?, ? FROM branches WHERE thread_id = ? AND branch_id = ? AND last_seq >= ?
       ON CONFLICT (thread_id, branch_id) DO UPDATE SET seq = excluded.seq, data = excluded.data, bytes = excluded.bytes`,
    ),
    loadSnapshot: db.prepare(
      "SELECT seq, data FROM snapshots WHERE thread_id = ? AND branch_id = ?",
    ),
    getLease: db.prepare(
      "SELECT owner, expires_at, host, pid, started FROM leases WHERE thread_id = ? AND branch_id = ?",
    ),
    takeLease: db.prepare(
      `INSERT INTO leases (thread_id, branch_id, owner, expires_at, host, pid, started) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (thread_id, branch_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
         host = excluded.host, pid = excluded.pid, started = excluded.started,
         stop_by = CASE WHEN leases.owner = excluded.owner THEN leases.stop_by ELSE NULL END
       WHERE leases.owner = excluded.owner OR leases.expires_at <= ?`,
    ),
    putLease: db.prepare(
      `INSERT INTO leases (thread_id, branch_id, owner, expires_at, host, pid, started) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (thread_id, branch_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
         host = excluded.host, pid = excluded.pid, started = excluded.started,
         stop_by = CASE WHEN leases.owner = excluded.owner THEN leases.stop_by ELSE NULL END`,
    ),
    threadBranches: db.prepare(
      "SELECT thread_id, branch_id FROM branches WHERE thread_id = ? OR (? = 1 AND substr(thread_id, 1, ?) = ?) ORDER BY thread_id, rowid",
    ),
    deleteEvents: db.prepare(
      "DELETE FROM events WHERE thread_id = ? OR (? = 1 AND substr(thread_id, 1, ?) = ?)",
    ),
    deleteBranches: db.prepare(
      "DELETE FROM branches WHERE thread_id = ? OR (? = 1 AND substr(thread_id, 1, ?) = ?)",
    ),
    deleteSnapshots: db.prepare(
      "DELETE FROM snapshots WHERE thread_id = ? OR (? = 1 AND substr(thread_id, 1, ?) = ?)",
    ),
    listPage: db.prepare(
      `SELECT thread_id, max(updated_at) AS updated_at FROM branches GROUP BY thread_id
       ORDER BY updated_at DESC, thread_id LIMIT ? OFFSET ?`,
    ),
    renewLease: db.prepare(
      "UPDATE leases SET expires_at = ? WHERE thread_id = ? AND branch_id = ? AND owner = ?",
    ),
    releaseLease: db.prepare(
      "DELETE FROM leases WHERE thread_id = ? AND branch_id = ? AND owner = ?",
    ),
    requestStop: db.prepare(
      "UPDATE leases SET stop_by = ? WHERE thread_id = ? AND branch_id = ? AND expires_at > ? RETURNING owner",
    ),
    stopRequested: db.prepare(
      "SELECT stop_by FROM leases WHERE thread_id = ? AND branch_id = ? AND owner = ?",
    ),
    listBranches: db.prepare(
      "SELECT thread_id, branch_id, updated_at FROM branches ORDER BY rowid",
    ),
    sizeBytes: db.prepare(
      "SELECT (SELECT coalesce(sum(bytes), 0) FROM branches) + (SELECT coalesce(sum(bytes), 0) FROM snapshots) AS n",
    ),
  };
}

/** Create the tables in an empty file, or check that the file holds this schema version. */
function setUpSchema(db: Database.Database, path: string): void {
  db.transaction(() => {
    const present = (
      db
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${TABLES.map(() => "?").join(", ")})`,
        )
        .all(...TABLES) as { name: string }[]
    ).map((r) => r.name);
    if (present.length === 0) {
      db.exec(SCHEMA);
      const put = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
      put.run("format", FORMAT);
      put.run("schema_version", String(SQLITE_SCHEMA_VERSION));
      return;
    }
    if (!present.includes("meta")) {
      throw new StateStoreError(
        `${path} is not a nodestep state store: it has tables (${present.join(", ")}) but no meta table. Use another file.`,
      );
    }
    const meta = new Map(
      (db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map(
        (r) => [r.key, r.value],
      ),
    );
    if (meta.get("format") !== FORMAT) {
      throw new StateStoreError(
        `${path} is not a nodestep state store (its meta table says format ${JSON.stringify(meta.get("format") ?? null)}). Use another file.`,
      );
    }
    const version = meta.get("schema_version");
    if (version !== String(SQLITE_SCHEMA_VERSION)) {
      throw new StateStoreError(
        `${path} was written with state store schema version ${version ?? "(none)"}; this nodestep reads version ${SQLITE_SCHEMA_VERSION}. Migrate the file to version ${SQLITE_SCHEMA_VERSION} (see docs/stores.md, "Schema versions"), or open it with the nodestep version that wrote it. Nothing was changed.`,
      );
    }
    const missing = TABLES.filter((t) => !present.includes(t));
    if (missing.length > 0) {
      throw new StateStoreError(
        `${path} is a damaged nodestep state store: table(s) ${missing.join(", ")} are missing. Restore it from a backup.`,
      );
    }
    // Files written before leases recorded their holder get the columns (readers that do not
    // know them ignore them).
    const columns = new Set(
      (db.prepare("SELECT name FROM pragma_table_info('leases')").all() as { name: string }[]).map(
        (r) => r.name,
      ),
    );
    for (const c of LEASE_HOLDER_COLUMNS) {
      if (!columns.has(c.split(" ")[0]!)) db.exec(`ALTER TABLE leases ADD COLUMN ${c}`);
    }
  }).immediate();
}

/**
 * Inside an append's transaction: throw unless the branch is at `expected`, or is a "main" that
 * does not exist yet and `expected` is 0 (then the caller creates it).
 * @throws UnknownBranchError for a missing branch other than "main"; ConcurrentWriteError.
 */
function checkExpected(
  s: ReturnType<typeof prepare>,
  threadId: string,
  branchId: string,
  expected: number,
): void {
  const branch = s.getBranch.get(threadId, branchId) as BranchRow | undefined;
  if (!branch) {
    if (branchId !== MAIN_BRANCH) throw unknownBranch(threadId, branchId);
    if (expected !== 0) throw concurrentWrite(threadId, branchId, expected, 0);
  } else if (branch.last_seq !== expected) {
    throw concurrentWrite(threadId, branchId, expected, branch.last_seq);
  }
}

/** The branch and its parents, branch first; `null` when the branch does not exist. */
function loadChain(
  s: ReturnType<typeof prepare>,
  threadId: string,
  branchId: string,
): ChainLink[] | null {
  const chain: ChainLink[] = [];
  let id: string | null = branchId;
  while (id !== null) {
    const row = s.getBranch.get(threadId, id) as BranchRow | undefined;
    if (!row) {
      if (chain.length === 0) return null;
      throw new StateStoreError(
        `Thread "${threadId}" branch "${branchId}" is damaged: its ancestor branch "${id}" is missing. Restore the store from a backup.`,
        { threadId, branchId },
      );
    }
    chain.push({
      branchId: id,
      parentBranch: row.parent_branch,
      parentSeq: row.parent_seq,
      lastSeq: row.last_seq,
    });
    if (chain.length > 10_000) {
      throw new StateStoreError(
        `Thread "${threadId}" has a cycle of branches; the store is damaged.`,
        {
          threadId,
          branchId,
        },
      );
    }
    id = row.parent_branch;
  }
  return chain;
}

function toBranchInfo(threadId: string, branchId: string, row: BranchRow): BranchInfo {
  return {
    threadId,
    branchId,
    parent:
      row.parent_branch === null ? null : { branchId: row.parent_branch, seq: row.parent_seq ?? 0 },
    lastSeq: row.last_seq,
  };
}

/** A row of `readRange` in raw mode: the columns of EVENT_COLUMNS, in order (fewer objects than named rows). */
type RawEventRow = [
  number,
  string,
  string,
  number | null,
  string | null,
  string | null,
  string,
  number,
];

function fromRawRow(r: RawEventRow): EventRow {
  return {
    seq: r[0],
    type: r[1],
    runId: r[2],
    step: r[3],
    taskId: r[4],
    node: r[5],
    data: r[6],
    createdAt: r[7],
  };
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

/** Makes the directory of a database file; a part of it that is a file is named. */
function makeDirectory(path: string): void {
  const dir = dirname(resolve(path));
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "EEXIST" && code !== "ENOTDIR") throw e;
    throw new StateStoreError(
      `Cannot open the SQLite state store at ${path}: its directory ${dir} cannot be made because a part of that path is a file, not a directory`,
      { cause: e },
    );
  }
}
