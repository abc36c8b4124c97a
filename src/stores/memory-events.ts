/**
 * A `MemoryStateStore`'s events: appending to a branch, reading a branch with its parent
 * chain, and one event by id, over its {@link MemData}. The store checks that it is open.
 *
 * @module
 */
import {
  checkSeq,
  checkThreadId,
  concurrentWrite,
  decodeEvent,
  type EventRow,
  encodeEvents,
  eventRowBytes,
  MAIN_BRANCH,
  parseEventId,
  planRead,
  readBounds,
  unknownBranch,
} from "./internal.js";
import { findBranch, lastSeqOf, type MemBranch, type MemData, newBranch } from "./memory-data.js";
import { pushRow, rowAt, rowsBetween } from "./memory-rows.js";
import type { NewEvent, StoredEvent } from "./types.js";

/**
 * Append `events` to the branch at `expectedLastSeq`, stamped `createdAt`; see
 * `StateStore.append`. A first append to "main" makes the thread.
 * @throws ConcurrentWriteError, UnknownBranchError, StateStoreError (non-JSON data, with
 *   `field`); nothing is written when it throws.
 */
export function appendEvents(
  data: MemData,
  threadId: string,
  branchId: string,
  events: NewEvent[],
  expectedLastSeq: number,
  createdAt: () => number,
): StoredEvent[] {
  const rows: EventRow[] = [];
  storeEvents(data, threadId, branchId, events, expectedLastSeq, createdAt, rows);
  const out: StoredEvent[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = decodeEvent(threadId, branchId, rows[i]!);
  return out;
}

/**
 * {@link appendEvents} without the stored events made back from the rows (no parse of their
 * data): how many events it stored; the rows stored, in order, are added to `rows` when given
 * (without it, no row object is kept: the counted append's case).
 * @throws as {@link appendEvents}; nothing is written when it throws.
 */
export function storeEvents(
  data: MemData,
  threadId: string,
  branchId: string,
  events: NewEvent[],
  expectedLastSeq: number,
  createdAt: () => number,
  rows: EventRow[] | null = null,
): number {
  checkThreadId(threadId);
  checkSeq(expectedLastSeq, "expectedLastSeq", threadId, branchId);
  const encoded = encodeEvents(threadId, branchId, events);
  const thread = data.threads.get(threadId);
  let branch = findBranch(thread, branchId);
  if (!branch) {
    if (branchId !== MAIN_BRANCH) throw unknownBranch(threadId, branchId);
    if (expectedLastSeq !== 0) throw concurrentWrite(threadId, branchId, expectedLastSeq, 0);
    if (encoded.length === 0) return 0;
    branch = newBranch(branchId, null);
    if (thread) thread.push(branch);
    else data.threads.set(threadId, [branch]);
  }
  const lastSeq = lastSeqOf(branch);
  if (lastSeq !== expectedLastSeq) {
    throw concurrentWrite(threadId, branchId, expectedLastSeq, lastSeq);
  }
  if (encoded.length === 0) return 0;
  const at = createdAt();
  for (let i = 0; i < encoded.length; i++) {
    const e = encoded[i]!;
    // (The counted append keeps no row: the encoded event is pushed as it is.)
    pushRow(branch, e, at);
    if (rows) {
      const { type, runId, step, taskId, node } = e;
      rows.push({
        seq: lastSeq + 1 + i,
        type,
        runId,
        step,
        taskId,
        node,
        data: e.data,
        createdAt: at,
      });
    }
    const bytes = eventRowBytes(threadId, branchId, e);
    branch.bytes += bytes;
    data.eventBytes += bytes;
  }
  branch.updatedAt = at;
  return encoded.length;
}

/**
 * Events of a branch, its parent chain's first, within `options`; see `StateStore.read`.
 * @throws UnknownBranchError for an unknown branch other than "main" (an unknown thread on
 *   "main" gives `[]`); StateStoreError for bad options.
 */
export function readEvents(
  data: MemData,
  threadId: string,
  branchId: string,
  options?: { afterSeq?: number; uptoSeq?: number },
): StoredEvent[] {
  checkThreadId(threadId);
  const { afterSeq, uptoSeq } = readBounds(threadId, branchId, options);
  const thread = data.threads.get(threadId);
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

/** One event by id (`thread/branch/seq`), or `null` when there is none. */
export function eventById(data: MemData, eventId: string): StoredEvent | null {
  const p = parseEventId(eventId);
  if (!p) return null;
  const b = findBranch(data.threads.get(p.threadId), p.branchId);
  if (!b || p.seq <= b.start || p.seq > lastSeqOf(b)) return null;
  return decodeEvent(p.threadId, p.branchId, rowAt(b, p.seq - b.start - 1, p.seq));
}
