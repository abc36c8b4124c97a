/**
 * `MemoryStateStore`: the event log in the process's memory, for tests and short-lived agents.
 *
 * @module
 */

import type { CountedAppend } from "./counted-append.js";
import { checkLease, checkReleaseArgs, checkStopArgs, closedError } from "./internal.js";
import { branchInfo, emptyData, findBranch, type MemData } from "./memory-data.js";
import { appendEvents, eventById, readEvents, storeEvents } from "./memory-events.js";
import { acquire, askStop, release, renew, stopAsked } from "./memory-leases.js";
import { addBranch, dropThreads, getSnapshot, putSnapshot, threadList } from "./memory-threads.js";
import type {
  BranchInfo,
  DeleteThreadOptions,
  ListThreadsOptions,
  NewEvent,
  Snapshot,
  StateStore,
  StoredEvent,
  ThreadInfo,
} from "./types.js";

let makeView: (store: object) => MemoryStateStore | null;
let makeCounted: (store: object) => CountedAppend | null;

/** counted-append.ts's `COUNTED_APPEND` (the same registry symbol; that module is not imported). */
const COUNTED_APPEND = Symbol.for("nodestep.countedAppend");

/**
 * A new `MemoryStateStore` instance over the same data as `store`, as a second connection to
 * a database is: what one writes the other reads, leases included, and closing the view
 * leaves the data to `store`. For the cold test mode (test/setup/cold-mode.ts), which gives
 * every graph call a new store instance; not exported from `nodestep`.
 * @returns the view, or `null` when `store` is not a `MemoryStateStore`.
 * @example
 * ```ts
 * const view = memoryStoreView(store)!;
 * await view.read("t1", "main"); // the events appended through `store`
 * ```
 */
export function memoryStoreView(store: object): MemoryStateStore | null {
  return makeView(store);
}

/**
 * A {@link StateStore} that keeps every thread in the process's memory; it is gone when the
 * process ends. Event data and snapshots are kept as text (event data as its JSON with
 * frequent pieces written as one character each: memory-text.ts), so a caller can never change
 * stored history through an object it passed in or got back, and {@link sizeBytes} counts the
 * real JSON size.
 *
 * Every method runs to completion without awaiting anything, so concurrent calls inside one
 * process are serialized: of two appends with the same `expectedLastSeq`, the first wins and the
 * second fails with `ConcurrentWriteError`.
 *
 * @example
 * ```ts
 * import { MemoryStateStore } from "nodestep";
 * const store = new MemoryStateStore();
 * const [e] = await store.append("t1", "main", [
 *   { type: "run_started", runId: "r1", step: null, taskId: null, node: null, data: { input: "hi" } },
 * ], 0);
 * e.id; // "t1/main/1"
 * ```
 */
export class MemoryStateStore implements StateStore {
  /** Everything stored; shared with the views made by {@link memoryStoreView}. */
  #data: MemData = emptyData();
  /** Whether this instance made its data (a view's `close()` leaves the data alone). */
  #owner = true;
  #closed = false;
  readonly #now: () => number;

  static {
    makeView = (store) => {
      if (!(#data in store)) return null;
      const view = new MemoryStateStore({ now: store.#now });
      view.#data = store.#data;
      view.#owner = false;
      return view;
    };
    makeCounted = (store) => {
      if (!(#data in store) || store.append !== MemoryStateStore.prototype.append) return null;
      return (threadId, branchId, events, expectedLastSeq) => {
        store.#open();
        return storeEvents(store.#data, threadId, branchId, events, expectedLastSeq, store.#now);
      };
    };
  }

  /**
   * @param options.now - clock in ms since the epoch (default `Date.now`), for event times and lease expiry.
   */
  constructor(options?: { now?: () => number }) {
    // Date.now read at each call (not kept): a clock mocked after the store was made is used too.
    this.#now = options?.now ?? (() => Date.now());
  }

  /**
   * This store's counted append for the run's journal (see counted-append.ts), or `null`
   * unless `append`, the `append` the caller sees on the object it holds, is the class's own: a
   * subclass that overrides it, an instance whose `append` was replaced, or a wrapper (a
   * `Proxy`) that gives another must have that `append` called. Not part of the public API.
   */
  [COUNTED_APPEND](append: unknown): CountedAppend | null {
    return append === MemoryStateStore.prototype.append ? makeCounted(this) : null;
  }

  /**
   * Append events to a branch; see {@link StateStore.append}.
   * @throws ConcurrentWriteError when the branch is not at `expectedLastSeq`; UnknownBranchError
   *   for an unknown branch other than "main"; StateStoreError for non-JSON data (with `field`)
   *   or a closed store. Nothing is written when it throws.
   */
  async append(
    threadId: string,
    branchId: string,
    events: NewEvent[],
    expectedLastSeq: number,
  ): Promise<StoredEvent[]> {
    this.#open();
    return appendEvents(this.#data, threadId, branchId, events, expectedLastSeq, this.#now);
  }

  /**
   * Events of a branch, its parent chain's first; see {@link StateStore.read}.
   * @throws UnknownBranchError for an unknown branch other than "main" (an unknown thread on
   *   "main" gives `[]`); StateStoreError for a closed store or bad options.
   */
  async read(
    threadId: string,
    branchId: string,
    options?: { afterSeq?: number; uptoSeq?: number },
  ): Promise<StoredEvent[]> {
    this.#open();
    return readEvents(this.#data, threadId, branchId, options);
  }

  /** The branch, or `null` when it does not exist. @throws StateStoreError for a closed store. */
  async getBranch(threadId: string, branchId: string): Promise<BranchInfo | null> {
    this.#open();
    const b = findBranch(this.#data.threads.get(threadId), branchId);
    return b ? branchInfo(threadId, b) : null;
  }

  /** The thread's branches, in creation order; see {@link StateStore.listBranches}. */
  async listBranches(threadId: string): Promise<BranchInfo[]> {
    this.#open();
    return (this.#data.threads.get(threadId) ?? []).map((b) => branchInfo(threadId, b));
  }

  /** One event by id, or `null`. @throws StateStoreError for a closed store. */
  async getEvent(eventId: string): Promise<StoredEvent | null> {
    this.#open();
    return eventById(this.#data, eventId);
  }

  /**
   * A new branch after event `fromEventId`; see {@link StateStore.createBranch}.
   * @throws UnknownEventError when the event is not in this thread; StateStoreError when
   *   `newBranchId` is taken or not a valid id (empty or containing `/`).
   */
  async createBranch(
    threadId: string,
    fromEventId: string,
    newBranchIdArg?: string,
  ): Promise<BranchInfo> {
    this.#open();
    return addBranch(this.#data, threadId, fromEventId, newBranchIdArg);
  }

  /**
   * Keep a snapshot of the branch after event `snapshot.seq`, replacing the previous one.
   * @throws UnknownBranchError when the branch does not exist; StateStoreError for non-JSON data
   *   (with `field`), a seq past the branch's last event, or a closed store.
   */
  async saveSnapshot(threadId: string, branchId: string, snapshot: Snapshot): Promise<void> {
    this.#open();
    putSnapshot(this.#data, threadId, branchId, snapshot);
  }

  /** The branch's latest snapshot, or `null`. @throws StateStoreError for a closed store. */
  async loadSnapshot(threadId: string, branchId: string): Promise<Snapshot | null> {
    this.#open();
    return getSnapshot(this.#data, threadId, branchId);
  }

  /**
   * Take the branch's lease for `owner` for `ttlMs` ms; `true` when taken or extended (same
   * owner), `false` when another owner holds an unexpired lease. The branch need not exist yet.
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
    return acquire(this.#data, threadId, branchId, owner, ttlMs, this.#now());
  }

  /**
   * Extend `owner`'s lease to `ttlMs` ms from now, also one that expired, when it is still
   * `owner`'s; `false` when another owner holds it or nobody does (see
   * {@link StateStore.renewLease}).
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
    return renew(this.#data, threadId, branchId, owner, ttlMs, this.#now());
  }

  /**
   * Ask the holder of the branch's unexpired lease to stop at its next superstep boundary
   * (see {@link StateStore.requestStop}); views of this store see it.
   * @returns the owner asked, or `null` when no unexpired lease is held.
   * @throws StateStoreError for an empty `by` or a closed store.
   */
  async requestStop(threadId: string, branchId: string, by: string): Promise<string | null> {
    this.#open();
    checkStopArgs(threadId, branchId, "by", by);
    return askStop(this.#data, threadId, branchId, by, this.#now());
  }

  /** The run that asked `owner` to stop, or `null` (see {@link StateStore.stopRequested}). */
  async stopRequested(threadId: string, branchId: string, owner: string): Promise<string | null> {
    this.#open();
    checkStopArgs(threadId, branchId, "owner", owner);
    return stopAsked(this.#data, threadId, branchId, owner);
  }

  /** Give the lease back; a no-op when `owner` does not hold it. @throws StateStoreError for an empty owner, a bad id or a closed store. */
  async releaseLease(threadId: string, branchId: string, owner: string): Promise<void> {
    this.#open();
    checkReleaseArgs(threadId, branchId, owner);
    release(this.#data, threadId, branchId, owner);
  }

  /**
   * Threads with their branch ids (creation order), most recently updated first (ties by
   * thread id); all of them, or the page `options` asks for.
   * @throws StateStoreError for a bad `limit` or `offset`, or a closed store.
   */
  async listThreads(options?: ListThreadsOptions): Promise<ThreadInfo[]> {
    this.#open();
    return threadList(this.#data, options);
  }

  /**
   * Delete a thread (and with `children: true` its child threads): its branches, events,
   * snapshots and leases are dropped from memory, so nothing of it stays reachable; see
   * {@link StateStore.deleteThread}.
   * @throws ThreadBusyError when a run holds one of its branches' leases (nothing is deleted);
   *   StateStoreError for an invalid thread id or a closed store.
   */
  async deleteThread(threadId: string, options?: DeleteThreadOptions): Promise<string[]> {
    this.#open();
    return dropThreads(this.#data, this, threadId, options);
  }

  /**
   * Logical bytes stored: for each event the UTF-8 bytes of its data JSON and text fields plus
   * 8 per number, and for each snapshot its data JSON, ids and seq. Grows linearly with what is
   * appended.
   */
  async sizeBytes(): Promise<number> {
    this.#open();
    return this.#data.eventBytes + this.#data.snapshotBytes;
  }

  /**
   * Drop everything (a view made by {@link memoryStoreView} drops nothing: the data is its
   * store's); later calls throw `StateStoreError`. Closing twice is a no-op.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#owner) return;
    this.#data.threads.clear();
    this.#data.snapshots.clear();
    this.#data.leases.clear();
  }

  #open(): void {
    if (this.#closed) throw closedError("MemoryStateStore");
  }
}
