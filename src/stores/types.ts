/**
 * The state store contract: an append-only event log per thread and branch.
 *
 * A thread has branches (`"main"` first); a branch is an append-only list of events, each
 * numbered by `seq` (1, 2, 3 … on a branch without a parent). A fork is a branch that points
 * at (parent branch, seq) and numbers its own events from `seq + 1`: reading it yields the
 * parent's events up to that point, then its own. Nothing is copied.
 *
 * The engine writes only what changed: a finished task's update, a committed superstep, an
 * interrupt, the end of a run. Snapshots (one per branch, replaced) make loading a snapshot
 * plus the tail. Everything stored is JSON.
 *
 * @module
 */
import type { JsonValue } from "../json/index.js";

/** The kinds of events the engine appends. */
export type EventType =
  | "run_started"
  | "task_finished"
  | "task_interrupted"
  | "task_cache"
  | "step_committed"
  | "model_request"
  | "model_response"
  | "tool_result"
  | "run_finished"
  | "run_failed"
  | "state_updated"
  | "rolled_back";

/** An event to append. `data` is JSON; the store refuses anything else with `StateStoreError`. */
export interface NewEvent {
  type: EventType;
  runId: string;
  /** Superstep the event belongs to, when it belongs to one. */
  step: number | null;
  /** Task the event belongs to, when it belongs to one. */
  taskId: string | null;
  /** Node the event belongs to, when it belongs to one. */
  node: string | null;
  data: JsonValue;
}

/** A stored event. */
export interface StoredEvent extends NewEvent {
  /** Unique id of the event in the store: `"<threadId>/<branchId>/<seq>"`. */
  id: string;
  threadId: string;
  /** The branch the event was written on (for a fork, parent events keep their own branch id). */
  branchId: string;
  /** Position on the branch it was written on. */
  seq: number;
  /** When it was written, in ms since the epoch. */
  createdAt: number;
}

/** A branch of a thread. */
export interface BranchInfo {
  threadId: string;
  branchId: string;
  /** Where a fork starts: events of `parent.branchId` up to and including `parent.seq`. */
  parent: { branchId: string; seq: number } | null;
  /** Seq of the last event on this branch (its own or, before any, the fork point; 0 when empty). */
  lastSeq: number;
}

/** A thread, for listings. */
export interface ThreadInfo {
  threadId: string;
  branches: string[];
  /** Time of the last event, in ms since the epoch. */
  updatedAt: number;
}

/**
 * A page of {@link StateStore.listThreads}: threads in the listing's order (most recently
 * updated first, ties by thread id), skipping `offset` of them and returning at most `limit`.
 * Offsets count threads as the store holds them at the time of the call, so a thread updated
 * between two pages can move from one page to another.
 */
export interface ListThreadsOptions {
  /** At most this many threads (an integer ≥ 1; default: all). */
  limit?: number;
  /** Skip this many threads first (an integer ≥ 0; default 0). */
  offset?: number;
}

/** Options of {@link StateStore.deleteThread}. */
export interface DeleteThreadOptions {
  /**
   * Also delete the thread's child threads: every thread whose id starts with
   * `"<threadId>:"` — the threads of its subgraphs and sub-agents, which are named
   * `"<parent>:<name>"` or `"<parent>:<name>:<hex>"`, and theirs in turn (default `false`).
   * Only use it when no thread of your own is named that way.
   */
  children?: boolean;
}

/** What {@link StateStore.appendLeased} answers. */
export interface LeasedAppend {
  /** The stored events, with their ids and seqs (`[]` when `held` is `false`). */
  events: StoredEvent[];
  /** Whether the owner still held the lease (and so the events were written and the lease extended). */
  held: boolean;
  /** The run that asked the owner to stop (see {@link StateStore.requestStop}), or `null`. */
  stopBy: string | null;
}

/** A snapshot of a branch's state after the event `seq`. */
export interface Snapshot {
  seq: number;
  /** The folded state and whatever else the engine needs to resume without replaying. */
  data: JsonValue;
}

/**
 * Where events live. Implementations: `MemoryStateStore`, `SqliteStateStore` (`nodestep/sqlite`),
 * `PostgresStateStore` (`nodestep/postgres`). A user-written store runs the same contract suite.
 */
export interface StateStore {
  /**
   * Append events to a branch in one transaction, creating the thread and `"main"` branch on first write.
   *
   * @param expectedLastSeq - the branch's `lastSeq` the writer last saw; when it differs the
   *   append fails with `ConcurrentWriteError` and nothing is written (optimistic concurrency).
   * The events are read before `append` returns its promise (encoded, or copied): a change the
   * caller makes to them afterwards, even before the promise settles, never reaches the log.
   *
   * @returns the stored events, with their ids and seqs.
   * @throws ConcurrentWriteError, StateStoreError (non-JSON data, closed store, unknown branch other than "main").
   */
  append(
    threadId: string,
    branchId: string,
    events: NewEvent[],
    expectedLastSeq: number,
  ): Promise<StoredEvent[]>;

  /**
   * Events of a branch in order, the parent chain's events first for a fork.
   * @param options.afterSeq - only events with a greater seq (on the chain's order).
   * @param options.uptoSeq - only events up to this seq of `branchId` (or of the chain).
   * @returns `[]` for a thread that does not exist on "main"; throws `UnknownBranchError` for an unknown other branch.
   * @throws TypeError for options that are not an object or have another key
   *   (`read: unknown option "after"; the options are "afterSeq", "uptoSeq"`).
   */
  read(
    threadId: string,
    branchId: string,
    options?: { afterSeq?: number; uptoSeq?: number },
  ): Promise<StoredEvent[]>;

  /** The branch, or `null` when it does not exist. */
  getBranch(threadId: string, branchId: string): Promise<BranchInfo | null>;

  /**
   * Every branch of a thread, in the order they were created (so `"main"` first), each as
   * {@link getBranch} answers it: `{ threadId, branchId, parent: { branchId, seq } | null,
   * lastSeq }`. One query on a database (the branches' rows only, no events).
   * LangGraph has no branch listing; its forks are checkpoints of one thread.
   * @returns `[]` for a thread that does not exist, an invalid thread id included (`""`, one
   *   with a NUL character or a lone surrogate: no thread can have it; not an error, as
   *   `getBranch` answers `null` for it).
   * @throws StateStoreError for a closed store (and, on a database, a failed query).
   * @example
   * ```ts
   * await store.listBranches("t1");
   * // [{ threadId: "t1", branchId: "main", parent: null, lastSeq: 4 },
   * //  { threadId: "t1", branchId: "b-1", parent: { branchId: "main", seq: 2 }, lastSeq: 3 }]
   * ```
   */
  listBranches(threadId: string): Promise<BranchInfo[]>;

  /** One event by id, or `null`. */
  getEvent(eventId: string): Promise<StoredEvent | null>;

  /**
   * A new branch of `threadId` that starts after the event `fromEventId` (which may be on any
   * branch of the thread). Copies nothing.
   * @throws UnknownEventError when the event is not in this thread.
   */
  createBranch(threadId: string, fromEventId: string, newBranchId?: string): Promise<BranchInfo>;

  /** Keep a snapshot of the branch after event `seq`, replacing the previous one. */
  saveSnapshot(threadId: string, branchId: string, snapshot: Snapshot): Promise<void>;

  /** The branch's latest snapshot, or `null`. */
  loadSnapshot(threadId: string, branchId: string): Promise<Snapshot | null>;

  /**
   * Take the branch's single-writer lease for `owner` (a run id) for `ttlMs`; `true` when taken.
   * A lease held by another owner and not expired makes it return `false` at once.
   */
  acquireLease(threadId: string, branchId: string, owner: string, ttlMs: number): Promise<boolean>;

  /**
   * Optional (a run falls back to {@link acquireLease}): extend `owner`'s lease on the branch
   * to `ttlMs` from now, also one whose time to live already ran out, as long as no other
   * owner took it since: `true` when the lease is still `owner`'s and was extended, `false`
   * when another owner holds it, or it was given back or deleted (nobody holds it: it is not
   * taken anew). One atomic step (a single statement on SQL stores), so that a lease another
   * writer takes over is never extended for its former owner. A run renews through it, by
   * timer and before an append once its lease lapsed by its own clock (a run that kept the
   * event loop busy), and stops with `LeaseLostError` when it answers `false`.
   * @throws StateStoreError for an empty owner, a ttl ≤ 0 or a closed store (and, on a
   *   database, a failed query).
   */
  renewLease?(threadId: string, branchId: string, owner: string, ttlMs: number): Promise<boolean>;

  /**
   * Optional: `true` when this store already knows that `owner`'s lease on the branch is gone
   * (for PostgreSQL, the database session whose advisory lock held it ended). Synchronous and
   * cheap: a run asks it before each append and each renewal, and stops with
   * `LeaseLostError` at once instead of waiting for its next renewal.
   */
  leaseLost?(threadId: string, branchId: string, owner: string): boolean;

  /**
   * Optional: call `listener` as soon as this store learns that a lease it holds is gone (for
   * PostgreSQL, when the database session whose advisory lock held it reports an error or
   * ends), with the lease's thread, branch and owner; returns a function that removes the
   * listener. A run listens for its own lease and stops at once (its `ctx.signal` fires with
   * `LeaseLostError`), not at its next append or renewal. A store that cannot know leaves it out.
   */
  onLeaseLost?(listener: (threadId: string, branchId: string, owner: string) => void): () => void;

  /**
   * Optional (needed by the busy-thread policies `"interrupt"` and `"rollback"`, see
   * docs/busy-threads.md): ask the run that holds the branch's lease to stop at its next
   * superstep boundary. The request is recorded with the lease, so a run in another process
   * sharing the store sees it; it is dropped when that lease is released, expires and is taken
   * over, or is taken by another owner. A later request replaces an earlier one.
   *
   * @param by - the id of the run that asks (a non-empty string).
   * @returns the owner asked to stop, or `null` when no unexpired lease is held.
   * @throws StateStoreError for an empty `by` or a closed store.
   */
  requestStop?(threadId: string, branchId: string, by: string): Promise<string | null>;

  /**
   * Optional (with {@link requestStop}): the id of the run that asked `owner` to stop, or
   * `null` when none did (or `owner` no longer holds the lease). A run on a thread asks it
   * at a superstep commit (alongside the commit's append), at most once every 25 ms.
   */
  stopRequested?(threadId: string, branchId: string, owner: string): Promise<string | null>;

  /**
   * Optional (a run falls back to {@link append} with {@link renewLease} and
   * {@link stopRequested}): append as the holder of the branch's lease, in one step — on a
   * database, one statement, so one round trip. When `lease.owner` still holds the lease (also
   * one whose time to live ran out, as long as no other owner took it since) it is extended to
   * `lease.ttlMs` from now and the events are appended as {@link append} does; when it does
   * not, nothing is written or extended and `held` is `false`. `stopBy` is what
   * {@link stopRequested} would answer for `owner` (read in the same step).
   *
   * A run uses it for every append: each superstep's write then checks the sequence, keeps
   * the lease and reads a stop request together.
   * @returns the stored events (`[]` when `held` is `false`), `held`, and `stopBy`.
   * @throws what {@link append} throws (`ConcurrentWriteError` when the branch is not at
   *   `expectedLastSeq` and the lease is held), and StateStoreError for an empty owner or a
   *   ttl ≤ 0.
   */
  appendLeased?(
    threadId: string,
    branchId: string,
    events: NewEvent[],
    expectedLastSeq: number,
    lease: { owner: string; ttlMs: number },
  ): Promise<LeasedAppend>;

  /**
   * Give the lease back; a no-op when `owner` does not hold it.
   * @throws StateStoreError for a bad thread or branch id, or an owner that is not a non-empty
   *   string.
   */
  releaseLease(threadId: string, branchId: string, owner: string): Promise<void>;

  /**
   * Threads, most recently updated first (ties by thread id), all of them or one page.
   * @throws StateStoreError for a `limit` that is not an integer ≥ 1 or an `offset` that is not
   *   an integer ≥ 0.
   */
  listThreads(options?: ListThreadsOptions): Promise<ThreadInfo[]>;

  /**
   * Delete a thread: every branch, event, snapshot and lease of it (the results a run saved
   * for its tasks — node caches, tool results — are events and go with them), and with
   * `children: true` its child threads too. Afterwards the store holds nothing of it, and a
   * write to `threadId` starts a new thread. It takes each branch's lease first, so a thread
   * with a run going on is not deleted.
   * @returns the ids of the threads deleted, in id order (`[]` when there was none).
   * @throws ThreadBusyError when a run holds the lease of one of its branches (nothing is
   *   deleted; "is running"), or another deletion of the thread on the same store object does
   *   ("is being deleted by another deleteThread call"); StateStoreError for an invalid thread
   *   id or a closed store.
   */
  deleteThread(threadId: string, options?: DeleteThreadOptions): Promise<string[]>;

  /** Total bytes of event data and snapshots stored (for benchmarks and docs). */
  sizeBytes(): Promise<number>;

  /** Release connections and files; later calls throw `StateStoreError`. */
  close(): Promise<void>;
}
