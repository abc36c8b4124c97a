/**
 * Events and snapshots checked and encoded as JSON text for storage, decoded back when read,
 * and the logical byte sizes of their rows. Internal (see `internal.ts`).
 *
 * @module
 */
import { StateStoreError } from "../errors/index.js";
import { findNonJson } from "../json/index.js";
import { checkSeq, eventId } from "./ids.js";
import { show } from "./show-value.js";
import type { EventType, NewEvent, Snapshot, StoredEvent } from "./types.js";

/** Every event type of `EventType`, for run-time checks of written and read rows. */
export const EVENT_TYPES: ReadonlySet<string> = new Set<EventType>([
  "run_started",
  "task_finished",
  "task_interrupted",
  "task_cache",
  "step_committed",
  "model_request",
  "model_response",
  "tool_result",
  "run_finished",
  "run_failed",
  "state_updated",
  "rolled_back",
]);

/** Bytes counted for each number column of a row (seq, step, created at). */
const NUMBER_BYTES = 8;

/** An event checked and encoded for storage: `data` is its JSON text, `bytes` its logical size. */
export interface EncodedEvent {
  type: EventType;
  runId: string;
  step: number | null;
  taskId: string | null;
  node: string | null;
  /** The event's data as JSON text. */
  data: string;
  /** Logical bytes of the row (see {@link eventRowBytes}). */
  bytes: number;
}

/** A row of the event log as a store reads it back. */
export interface EventRow {
  seq: number;
  type: string;
  runId: string;
  step: number | null;
  taskId: string | null;
  node: string | null;
  data: string;
  createdAt: number;
}

/**
 * UTF-8 byte length of a string. A short ASCII string (an event type, a run id, a node name)
 * is counted here: its length, without a call into the runtime (`Buffer.byteLength`), which
 * counts every other string.
 */
export function utf8Bytes(s: string): number {
  const n = s.length;
  if (n > SHORT_TEXT) return Buffer.byteLength(s, "utf8");
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s, "utf8");
  return n;
}

/** Strings up to this length are checked for ASCII before `Buffer.byteLength` is asked. */
const SHORT_TEXT = 64;

/**
 * Logical bytes of one event row: the UTF-8 bytes of its text columns (thread id, branch id,
 * type, run id, task id, node, data JSON) plus 8 bytes for each of its three numbers.
 */
export function eventRowBytes(threadId: string, branchId: string, e: EncodedEvent): number {
  return e.bytes + utf8Bytes(threadId) + utf8Bytes(branchId);
}

/** Logical bytes of a snapshot row: thread id, branch id, data JSON, and 8 for its seq. */
export function snapshotRowBytes(threadId: string, branchId: string, data: string): number {
  return utf8Bytes(threadId) + utf8Bytes(branchId) + utf8Bytes(data) + NUMBER_BYTES;
}

/**
 * Check the events to append and encode their data as JSON text.
 * @throws StateStoreError naming the field at fault (`events[2].data.messages[0].content`).
 */
export function encodeEvents(
  threadId: string,
  branchId: string,
  events: readonly NewEvent[],
): EncodedEvent[] {
  if (!Array.isArray(events)) {
    throw new StateStoreError(`events must be an array, got ${show(events)}`, {
      threadId,
      branchId,
      field: "events",
    });
  }
  const out: EncodedEvent[] = new Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as NewEvent | undefined;
    if (e === null || typeof e !== "object") {
      const at = `events[${i}]`;
      throw new StateStoreError(
        `Cannot append to thread "${threadId}" branch "${branchId}": ${at} is not an event object`,
        { threadId, branchId, field: at },
      );
    }
    if (!EVENT_TYPES.has(e.type))
      throw badEvent(threadId, branchId, i, "type", `is not an event type: ${show(e.type)}`);
    if (typeof e.runId !== "string")
      throw badEvent(threadId, branchId, i, "runId", "must be a string");
    if (!wellFormed(e.runId)) throw badEvent(threadId, branchId, i, "runId", NOT_WELL_FORMED);
    if (e.step !== null && !(Number.isSafeInteger(e.step) && e.step >= 0)) {
      throw badEvent(threadId, branchId, i, "step", "must be an integer ≥ 0 or null");
    }
    if (e.taskId !== null) {
      if (typeof e.taskId !== "string")
        throw badEvent(threadId, branchId, i, "taskId", "must be a string or null");
      if (!wellFormed(e.taskId)) throw badEvent(threadId, branchId, i, "taskId", NOT_WELL_FORMED);
    }
    if (e.node !== null) {
      if (typeof e.node !== "string")
        throw badEvent(threadId, branchId, i, "node", "must be a string or null");
      if (!wellFormed(e.node)) throw badEvent(threadId, branchId, i, "node", NOT_WELL_FORMED);
    }
    const problem = findNonJson(e.data, `events[${i}].data`);
    if (problem) {
      throw new StateStoreError(
        `Cannot append to thread "${threadId}" branch "${branchId}": ${problem.path}: ${problem.problem}. Only JSON data can be stored.`,
        { threadId, branchId, field: problem.path },
      );
    }
    const data = JSON.stringify(e.data);
    const bytes =
      utf8Bytes(e.type) +
      utf8Bytes(e.runId) +
      (e.taskId === null ? 0 : utf8Bytes(e.taskId)) +
      (e.node === null ? 0 : utf8Bytes(e.node)) +
      utf8Bytes(data) +
      3 * NUMBER_BYTES;
    out[i] = {
      type: e.type,
      runId: e.runId,
      step: e.step,
      taskId: e.taskId,
      node: e.node,
      data,
      bytes,
    };
  }
  return out;
}

/**
 * Why a text column with a lone surrogate is refused: SQLite and PostgreSQL store it as
 * something else (read back as U+FFFD characters), so the event would not read back as written.
 */
const NOT_WELL_FORMED = "must be well-formed text (no lone surrogates)";

/** Whether `s` has no lone surrogate. */
function wellFormed(s: string): boolean {
  return (s as string & { isWellFormed(): boolean }).isWellFormed();
}

/** The error of event `i`'s `field` (a function of its own: no closure per event appended). */
function badEvent(
  threadId: string,
  branchId: string,
  i: number,
  field: string,
  problem: string,
): StateStoreError {
  const at = `events[${i}]`;
  return new StateStoreError(
    `Cannot append to thread "${threadId}" branch "${branchId}": ${at}.${field} ${problem}`,
    { threadId, branchId, field: `${at}.${field}` },
  );
}

/**
 * Check a snapshot and encode its data as JSON text.
 * @throws StateStoreError naming the field at fault (`snapshot.data.messages[0]`).
 */
export function encodeSnapshot(threadId: string, branchId: string, snapshot: Snapshot): string {
  if (snapshot === null || typeof snapshot !== "object") {
    throw new StateStoreError(`A snapshot must be an object { seq, data }`, {
      threadId,
      branchId,
      field: "snapshot",
    });
  }
  checkSeq(snapshot.seq, "snapshot.seq", threadId, branchId);
  const problem = findNonJson(snapshot.data, "snapshot.data");
  if (problem) {
    throw new StateStoreError(
      `Cannot save a snapshot of thread "${threadId}" branch "${branchId}": ${problem.path}: ${problem.problem}. Only JSON data can be stored.`,
      { threadId, branchId, field: problem.path },
    );
  }
  return JSON.stringify(snapshot.data);
}

/**
 * Turn a stored row back into a `StoredEvent`, parsing its data.
 * @throws StateStoreError naming the thread, branch and seq when the row is damaged.
 */
export function decodeEvent(threadId: string, branchId: string, row: EventRow): StoredEvent {
  let data: StoredEvent["data"];
  try {
    data = JSON.parse(row.data);
  } catch (e) {
    throw damagedEvent(threadId, branchId, row, "its data is not valid JSON", e);
  }
  if (!EVENT_TYPES.has(row.type))
    throw damagedEvent(threadId, branchId, row, `unknown event type ${show(row.type)}`);
  if (typeof row.createdAt !== "number" || !Number.isFinite(row.createdAt)) {
    throw damagedEvent(threadId, branchId, row, "its creation time is not a number");
  }
  return {
    id: eventId(threadId, branchId, row.seq),
    threadId,
    branchId,
    seq: row.seq,
    createdAt: row.createdAt,
    type: row.type as EventType,
    runId: row.runId,
    step: row.step,
    taskId: row.taskId,
    node: row.node,
    data,
  };
}

/**
 * The event `e` as stored at `seq`, built from what the store wrote (as {@link decodeEvent}
 * builds it from a row: same fields, same order; the type is one {@link encodeEvents}
 * checked), its data parsed back from its JSON so that the caller's objects and the stored
 * event share nothing. For the stores' answer to an append (no row read back).
 */
export function encodedAsStored(
  threadId: string,
  branchId: string,
  seq: number,
  createdAt: number,
  e: EncodedEvent,
): StoredEvent {
  return {
    id: eventId(threadId, branchId, seq),
    threadId,
    branchId,
    seq,
    createdAt,
    type: e.type,
    runId: e.runId,
    step: e.step,
    taskId: e.taskId,
    node: e.node,
    data: JSON.parse(e.data),
  };
}

/** The error of a damaged stored row (a function of its own: no closure per event read). */
function damagedEvent(
  threadId: string,
  branchId: string,
  row: EventRow,
  what: string,
  cause?: unknown,
): StateStoreError {
  return new StateStoreError(
    `Event ${row.seq} of thread "${threadId}" branch "${branchId}" is damaged: ${what}. The store was changed outside nodestep or corrupted; restore it from a backup.`,
    { threadId, branchId, field: "data", cause },
  );
}

/**
 * Parse a snapshot's JSON text.
 * @throws StateStoreError when it is not valid JSON.
 */
export function decodeSnapshot(
  threadId: string,
  branchId: string,
  seq: number,
  data: string,
): Snapshot {
  try {
    return { seq, data: JSON.parse(data) };
  } catch (e) {
    throw new StateStoreError(
      `The snapshot of thread "${threadId}" branch "${branchId}" (after event ${seq}) is damaged: its data is not valid JSON. Delete it or restore the store from a backup.`,
      { threadId, branchId, field: "snapshot.data", cause: e },
    );
  }
}
