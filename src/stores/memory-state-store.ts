/**
 * `MemoryStateStore`: the event log in the process's memory, for tests and short-lived agents.
 *
 * @module
 */
import {
  branchExists,
  byUpdatedAt,
  checkBranchId,
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
} from "./internal.js";
import {
  branchInfo,
  emptyData,
  findBranch,
  keyOf,
  lastSeqOf,
  type MemBranch,
  type MemData,
  newBranch,
} from "./memory-data.js";
import { acquire, askStop, release, renew, stopAsked } from "./memory-leases.js";
import { pushRow, rowAt, rowsBetween } from "./memory-rows.js";
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
 * process ends. Event data and snapshots are kept as JSON text, so a caller can never change
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
  }

  /**
   * @param options.now - clock in ms since the epoch (default `Date.now`), for event times and lease expiry.
   */
  constructor(options?: { now?: () => number }) {
    this.#now = options?.now ?? Date.now;
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
    checkThreadId(threadId);
    checkSeq(expectedLastSeq, "expectedLastSeq", threadId, branchId);
    const encoded = encodeEvents(threadId, branchId, events);
    const thread = this.#data.threads.get(threadId);
    let branch = findBranch(thread, branchId);
    if (!branch) {
      if (branchId !== MAIN_BRANCH) throw unknownBranch(threadId, branchId);
      if (expectedLastSeq !== 0) throw concurrentWrite(threadId, branchId, expectedLastSeq, 0);
      if (encoded.length === 0) return [];
      branch = newBranch(branchId, null);
      if (thread) thread.push(branch);
      else this.#data.threads.set(threadId, [branch]);
    }
    const lastSeq = lastSeqOf(branch);
    if (lastSeq !== expectedLastSeq) {
      throw concurrentWrite(threadId, branchId, expectedLastSeq, lastSeq);
    }
    if (encoded.length === 0) return [];
    const createdAt = this.#now();
    const out: StoredEvent[] = new Array(encoded.length);
    for (let i = 0; i < encoded.length; i++) {
      const e = encoded[i]!;
      const row: EventRow = {
        seq: lastSeq + 1 + i,
        type: e.type,
        runId: e.runId,
        step: e.step,
        taskId: e.taskId,
        node: e.node,
        data: e.data,
        createdAt,
      };
      pushRow(branch, row);
      const bytes = eventRowBytes(threadId, branchId, e);
      branch.bytes += bytes;
      this.#data.eventBytes += bytes;
      out[i] = decodeEvent(threadId, branchId, row);
    }
    branch.updatedAt = createdAt;
    return out;
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
    checkThreadId(threadId);
    const { afterSeq, uptoSeq } = readBounds(threadId, branchId, options);
    const thread = this.#data.threads.get(threadId);
    const branch = findBranch(thread, branchId);
    if (!thread || !branch) {
      if (branchId === MAIN_BRANCH) return [];
      throw unknownBranch(threadId, branchId);
    }
    const chain = [];
    for (let b: MemBranch | undefined = branch; b; ) {
      chain.push({
        branchId: b.branchId,
        parentBranch: b.parent?.branchId ?? null,
        parentSeq: b.parent?.seq ?? null,
        lastSeq: lastSeqOf(b),
      });
      b = b.parent ? findBranch(thread, b.parent.branchId) : undefined;
    }
    const { segments } = planRead(chain, afterSeq, uptoSeq);
    const out: StoredEvent[] = [];
    for (const s of segments) {
      const b = findBranch(thread, s.branchId)!;
      const rows = rowsBetween(b, s.after - b.start, s.upto - b.start, s.after + 1);
      for (const row of rows) out.push(decodeEvent(threadId, s.branchId, row));
    }
    return out;
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
    const p = parseEventId(eventId);
    if (!p) return null;
    const b = findBranch(this.#data.threads.get(p.threadId), p.branchId);
    if (!b || p.seq <= b.start || p.seq > lastSeqOf(b)) return null;
    return decodeEvent(p.threadId, p.branchId, rowAt(b, p.seq - b.start - 1, p.seq));
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
    checkThreadId(threadId);
    if (newBranchIdArg !== undefined) checkBranchId(threadId, newBranchIdArg);
    const p = parseEventId(fromEventId);
    const thread = this.#data.threads.get(threadId);
    const from = p && p.threadId === threadId ? findBranch(thread, p.branchId) : undefined;
    if (!p || !thread || !from || p.seq <= from.start || p.seq > lastSeqOf(from)) {
      throw unknownEvent(threadId, fromEventId);
    }
    let id = newBranchIdArg;
    if (id === undefined) {
      do id = newBranchId();
      while (findBranch(thread, id));
    } else if (findBranch(thread, id)) {
      throw branchExists(threadId, id);
    }
    const branch = newBranch(id, { branchId: p.branchId, seq: p.seq });
    thread.push(branch);
    return branchInfo(threadId, branch);
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
    const b = findBranch(this.#data.threads.get(threadId), branchId);
    if (!b) throw unknownBranch(threadId, branchId);
    const lastSeq = lastSeqOf(b);
    if (snapshot.seq > lastSeq) throw snapshotBeyondEnd(threadId, branchId, snapshot.seq, lastSeq);
    const key = keyOf(threadId, branchId);
    const old = this.#data.snapshots.get(key);
    const bytes = snapshotRowBytes(threadId, branchId, data);
    this.#data.snapshotBytes += bytes - (old?.bytes ?? 0);
    this.#data.snapshots.set(key, { seq: snapshot.seq, data, bytes });
  }

  /** The branch's latest snapshot, or `null`. @throws StateStoreError for a closed store. */
  async loadSnapshot(threadId: string, branchId: string): Promise<Snapshot | null> {
    this.#open();
    const s = this.#data.snapshots.get(keyOf(threadId, branchId));
    return s ? decodeSnapshot(threadId, branchId, s.seq, s.data) : null;
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

  /** Give the lease back; a no-op when `owner` does not hold it. @throws StateStoreError for a closed store. */
  async releaseLease(threadId: string, branchId: string, owner: string): Promise<void> {
    this.#open();
    release(this.#data, threadId, branchId, owner);
  }

  /**
   * Threads with their branch ids (creation order), most recently updated first (ties by
   * thread id); all of them, or the page `options` asks for.
   * @throws StateStoreError for a bad `limit` or `offset`, or a closed store.
   */
  async listThreads(options?: ListThreadsOptions): Promise<ThreadInfo[]> {
    this.#open();
    const { limit, offset } = listBounds(options);
    const out: ThreadInfo[] = [];
    for (const [threadId, t] of this.#data.threads) {
      let updatedAt = 0;
      for (const b of t) updatedAt = Math.max(updatedAt, b.updatedAt);
      out.push({ threadId, branches: t.map((b) => b.branchId), updatedAt });
    }
    out.sort(byUpdatedAt);
    return offset === 0 && limit >= out.length ? out : out.slice(offset, offset + limit);
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
    const children = deleteChildren(threadId, options);
    const ids = [...this.#data.threads.keys()]
      .filter((id) => isDeleted(id, threadId, children))
      .sort();
    const branches = ids.flatMap((id) =>
      this.#data.threads.get(id)!.map((b) => [id, b.branchId] as const),
    );
    return underLeases(this, branches, () => {
      for (const id of ids) {
        const t = this.#data.threads.get(id);
        if (!t) continue;
        for (const b of t) {
          this.#data.eventBytes -= b.bytes;
          const key = keyOf(id, b.branchId);
          const snap = this.#data.snapshots.get(key);
          if (snap) this.#data.snapshotBytes -= snap.bytes;
          this.#data.snapshots.delete(key);
        }
        this.#data.threads.delete(id);
      }
      return ids;
    });
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
