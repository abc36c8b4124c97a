/**
 * A `MemoryStateStore`'s threads as a whole: new branches, snapshots, the list of threads and
 * deleting threads, over its {@link MemData}. The store checks that it is open.
 *
 * @module
 */
import { ThreadBusyError } from "../errors/index.js";
import {
  branchExists,
  byCodePoint,
  byUpdatedAt,
  checkBranchId,
  checkThreadId,
  decodeSnapshot,
  deleteChildren,
  encodeSnapshot,
  isDeleted,
  listBounds,
  MAX_DELETE_ATTEMPTS,
  newBranchId,
  parseEventId,
  snapshotBeyondEnd,
  snapshotRowBytes,
  underLeases,
  unknownBranch,
  unknownEvent,
} from "./internal.js";
import {
  branchInfo,
  findBranch,
  keyOf,
  lastSeqOf,
  type MemData,
  newBranch,
} from "./memory-data.js";
import type {
  BranchInfo,
  DeleteThreadOptions,
  ListThreadsOptions,
  Snapshot,
  StateStore,
  ThreadInfo,
} from "./types.js";

/**
 * A new branch after event `fromEventId`; see `StateStore.createBranch`.
 * @throws UnknownEventError when the event is not in this thread; StateStoreError when
 *   `newBranchIdArg` is taken or not a valid id.
 */
export function addBranch(
  data: MemData,
  threadId: string,
  fromEventId: string,
  newBranchIdArg?: string,
): BranchInfo {
  checkThreadId(threadId);
  if (newBranchIdArg !== undefined) checkBranchId(threadId, newBranchIdArg);
  const p = parseEventId(fromEventId);
  const thread = data.threads.get(threadId);
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
 * Keep `snapshot` as the branch's, replacing the previous one.
 * @throws UnknownBranchError; StateStoreError for non-JSON data (with `field`) or a seq past
 *   the branch's last event.
 */
export function putSnapshot(
  data: MemData,
  threadId: string,
  branchId: string,
  snapshot: Snapshot,
): void {
  checkThreadId(threadId);
  const text = encodeSnapshot(threadId, branchId, snapshot);
  const b = findBranch(data.threads.get(threadId), branchId);
  if (!b) throw unknownBranch(threadId, branchId);
  const lastSeq = lastSeqOf(b);
  if (snapshot.seq > lastSeq) throw snapshotBeyondEnd(threadId, branchId, snapshot.seq, lastSeq);
  const key = keyOf(threadId, branchId);
  const old = data.snapshots.get(key);
  const bytes = snapshotRowBytes(threadId, branchId, text);
  data.snapshotBytes += bytes - (old?.bytes ?? 0);
  data.snapshots.set(key, { seq: snapshot.seq, data: text, bytes });
}

/** The branch's snapshot, or `null`. */
export function getSnapshot(data: MemData, threadId: string, branchId: string): Snapshot | null {
  const s = data.snapshots.get(keyOf(threadId, branchId));
  return s ? decodeSnapshot(threadId, branchId, s.seq, s.data) : null;
}

/** Threads most recently updated first (ties by id), the page `options` asks for. */
export function threadList(data: MemData, options?: ListThreadsOptions): ThreadInfo[] {
  const { limit, offset } = listBounds(options);
  const out: ThreadInfo[] = [];
  for (const [threadId, t] of data.threads) {
    let updatedAt = 0;
    for (const b of t) updatedAt = Math.max(updatedAt, b.updatedAt);
    out.push({ threadId, branches: t.map((b) => b.branchId), updatedAt });
  }
  out.sort(byUpdatedAt);
  return offset === 0 && limit >= out.length ? out : out.slice(offset, offset + limit);
}

/**
 * Delete a thread (with `children: true` its child threads too) from `data`, unless a run
 * holds a lease of one of its branches (checked through `store`); see `StateStore.deleteThread`.
 * @returns the ids deleted, sorted.
 * @throws ThreadBusyError (nothing deleted); StateStoreError for an invalid thread id.
 */
export async function dropThreads(
  data: MemData,
  store: StateStore,
  threadId: string,
  options?: DeleteThreadOptions,
): Promise<string[]> {
  const children = deleteChildren(threadId, options);
  const list = () =>
    [...data.threads.keys()].filter((id) => isDeleted(id, threadId, children)).sort(byCodePoint);
  for (let attempt = 1; ; attempt++) {
    const ids = list();
    const branches = ids.flatMap((id) =>
      data.threads.get(id)!.map((b) => [id, b.branchId] as const),
    );
    const leased = new Set(branches.map(([id, b]) => keyOf(id, b)));
    const deleted = await underLeases(store, branches, () => {
      // The threads as they are now: a branch made since the listing (whose lease this
      // deletion does not hold) makes it start over; the threads deleted are those still here.
      const now = list();
      if (now.some((id) => data.threads.get(id)!.some((b) => !leased.has(keyOf(id, b.branchId)))))
        return null;
      for (const id of now) {
        for (const b of data.threads.get(id)!) {
          data.eventBytes -= b.bytes;
          const key = keyOf(id, b.branchId);
          const snap = data.snapshots.get(key);
          if (snap) data.snapshotBytes -= snap.bytes;
          data.snapshots.delete(key);
        }
        data.threads.delete(id);
      }
      return now;
    });
    if (deleted !== null) return deleted;
    if (attempt === MAX_DELETE_ATTEMPTS) {
      throw new ThreadBusyError(
        `Thread "${threadId}" got new branches while being deleted, ${MAX_DELETE_ATTEMPTS} times; nothing was deleted`,
        { threadId },
      );
    }
  }
}
