/**
 * Shared checks and encodings of the built-in state stores (memory, SQLite, PostgreSQL).
 * Internal: not part of the public API; a user-written store may copy what it needs.
 *
 * @module
 */
import {
  ConcurrentWriteError,
  StateStoreError,
  ThreadBusyError,
  UnknownBranchError,
  UnknownEventError,
  ValueError,
} from "../errors/index.js";
import { findNonJson } from "../json/index.js";
import { nodeCrypto } from "../lazy.js";
import type {
  DeleteThreadOptions,
  EventType,
  ListThreadsOptions,
  NewEvent,
  Snapshot,
  StateStore,
  StoredEvent,
  ThreadInfo,
} from "./types.js";

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

/** The branch every thread starts with. */
export const MAIN_BRANCH = "main";

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

/** `"<threadId>/<branchId>/<seq>"`. */
export function eventId(threadId: string, branchId: string, seq: number): string {
  return `${threadId}/${branchId}/${seq}`;
}

/**
 * Split an event id into its parts. Branch ids never contain `/`, so the last two segments
 * are the branch and the seq and the rest is the thread id (which may contain `/`).
 * @returns `null` when the id is not of that form.
 */
export function parseEventId(
  id: string,
): { threadId: string; branchId: string; seq: number } | null {
  if (typeof id !== "string") return null;
  const last = id.lastIndexOf("/");
  if (last <= 0) return null;
  const mid = id.lastIndexOf("/", last - 1);
  if (mid <= 0) return null;
  const seqText = id.slice(last + 1);
  if (!/^[1-9][0-9]{0,15}$/.test(seqText)) return null;
  const seq = Number(seqText);
  if (!Number.isSafeInteger(seq)) return null;
  const branchId = id.slice(mid + 1, last);
  if (branchId === "") return null;
  return { threadId: id.slice(0, mid), branchId, seq };
}

/**
 * Whether `threadId` is one {@link checkThreadId} accepts: a read of an id no thread can have
 * answers "nothing" (`null`, `[]`) without asking the database (PostgreSQL refuses text with
 * a NUL character, and turns a lone surrogate into U+FFFD, another thread's id).
 */
export function isThreadId(threadId: unknown): boolean {
  return (
    typeof threadId === "string" &&
    threadId !== "" &&
    !threadId.includes("\u0000") &&
    (threadId as string & { isWellFormed(): boolean }).isWellFormed()
  );
}

/** Throw `StateStoreError` unless `threadId` is a non-empty string. */
export function checkThreadId(threadId: string): void {
  if (typeof threadId !== "string" || threadId === "") {
    throw new StateStoreError(`A thread id must be a non-empty string, got ${show(threadId)}`);
  }
  if (
    threadId.includes("\u0000") ||
    !(threadId as string & { isWellFormed(): boolean }).isWellFormed()
  ) {
    throw new StateStoreError(
      `A thread id must be well-formed text without NUL characters or lone surrogates, got ${JSON.stringify(threadId)}`,
    );
  }
}

/** Throw `StateStoreError` unless `branchId` is a non-empty string without `/`. */
export function checkBranchId(threadId: string, branchId: string): void {
  if (typeof branchId !== "string" || branchId === "" || branchId.includes("/")) {
    throw new StateStoreError(
      `A branch id must be a non-empty string without "/", got ${show(branchId)}`,
      { threadId },
    );
  }
}

/** Throw `StateStoreError` unless `n` is a safe integer ≥ 0; `what` names it in the message. */
export function checkSeq(n: unknown, what: string, threadId?: string, branchId?: string): void {
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw new StateStoreError(`${what} must be an integer ≥ 0, got ${show(n)}`, {
      threadId,
      branchId,
      field: what,
    });
  }
}

/** A new branch id: `b-` and 12 random hex digits. */
export function newBranchId(): string {
  return `b-${nodeCrypto().randomBytes(6).toString("hex")}`;
}

/** UTF-8 byte length of a string. */
export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

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
    const at = `events[${i}]`;
    const bad = (field: string, problem: string): StateStoreError =>
      new StateStoreError(
        `Cannot append to thread "${threadId}" branch "${branchId}": ${at}.${field} ${problem}`,
        { threadId, branchId, field: `${at}.${field}` },
      );
    if (e === null || typeof e !== "object") {
      throw new StateStoreError(
        `Cannot append to thread "${threadId}" branch "${branchId}": ${at} is not an event object`,
        { threadId, branchId, field: at },
      );
    }
    if (!EVENT_TYPES.has(e.type)) throw bad("type", `is not an event type: ${show(e.type)}`);
    if (typeof e.runId !== "string") throw bad("runId", "must be a string");
    if (e.step !== null && !(Number.isSafeInteger(e.step) && e.step >= 0)) {
      throw bad("step", "must be an integer ≥ 0 or null");
    }
    if (e.taskId !== null && typeof e.taskId !== "string") {
      throw bad("taskId", "must be a string or null");
    }
    if (e.node !== null && typeof e.node !== "string")
      throw bad("node", "must be a string or null");
    const problem = findNonJson(e.data, `${at}.data`);
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
  const damaged = (what: string, cause?: unknown): StateStoreError =>
    new StateStoreError(
      `Event ${row.seq} of thread "${threadId}" branch "${branchId}" is damaged: ${what}. The store was changed outside nodestep or corrupted; restore it from a backup.`,
      { threadId, branchId, field: "data", cause },
    );
  let data: StoredEvent["data"];
  try {
    data = JSON.parse(row.data);
  } catch (e) {
    throw damaged("its data is not valid JSON", e);
  }
  if (!EVENT_TYPES.has(row.type)) throw damaged(`unknown event type ${show(row.type)}`);
  if (typeof row.createdAt !== "number" || !Number.isFinite(row.createdAt)) {
    throw damaged("its creation time is not a number");
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

/** One part of a read: events of `branchId` with `after < seq ≤ upto`. */
export interface ReadSegment {
  branchId: string;
  after: number;
  upto: number;
}

/** A branch row as the chain resolution needs it. */
export interface ChainLink {
  branchId: string;
  parentBranch: string | null;
  parentSeq: number | null;
  lastSeq: number;
}

/**
 * The segments to read for a branch, root first, clipped to `afterSeq < seq ≤ uptoSeq`.
 *
 * The seqs of a chain are 1…lastSeq without a gap (each fork starts at its parent seq + 1),
 * so the result of a read is exactly the seqs `from + 1 … to` returned alongside.
 *
 * @param chain - the branch first, then its parent, its parent's parent…
 */
export function planRead(
  chain: readonly ChainLink[],
  afterSeq: number,
  uptoSeq: number,
): { segments: ReadSegment[]; from: number; to: number } {
  const segments: ReadSegment[] = [];
  let upto = chain[0]?.lastSeq ?? 0;
  const to = Math.min(upto, uptoSeq);
  for (const link of chain) {
    const after = link.parentSeq ?? 0;
    const lo = Math.max(after, afterSeq);
    const hi = Math.min(upto, uptoSeq);
    if (hi > lo) segments.push({ branchId: link.branchId, after: lo, upto: hi });
    upto = after;
  }
  segments.reverse();
  return { segments, from: Math.min(afterSeq, to), to };
}

/**
 * Check that a read returned the seqs `from + 1 … to` in order.
 * @throws StateStoreError when an event is missing (a damaged store).
 */
export function checkContiguous(
  threadId: string,
  branchId: string,
  events: readonly StoredEvent[],
  from: number,
  to: number,
): void {
  const want = Math.max(0, to - from);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.seq !== from + 1 + i) {
      throw new StateStoreError(
        `Thread "${threadId}" branch "${branchId}" is damaged: event ${from + 1 + i} is missing from the log (found ${e.id}). Restore the store from a backup.`,
        { threadId, branchId },
      );
    }
  }
  if (events.length !== want) {
    throw new StateStoreError(
      `Thread "${threadId}" branch "${branchId}" is damaged: event ${from + 1 + events.length} is missing from the log. Restore the store from a backup.`,
      { threadId, branchId },
    );
  }
}

/** The error for an unknown branch. */
export function unknownBranch(threadId: string, branchId: string): UnknownBranchError {
  return new UnknownBranchError(
    `Thread "${threadId}" has no branch "${branchId}". Branches other than "main" are made with createBranch.`,
    { threadId, branchId },
  );
}

/** The error for an unknown event. */
export function unknownEvent(threadId: string, id: string): UnknownEventError {
  return new UnknownEventError(
    `Thread "${threadId}" has no event "${id}". Event ids are "<threadId>/<branchId>/<seq>" as returned by append and read.`,
    { threadId, eventId: id },
  );
}

/** The error for a write whose `expectedLastSeq` is stale. */
export function concurrentWrite(
  threadId: string,
  branchId: string,
  expected: number,
  actual: number,
): ConcurrentWriteError {
  return new ConcurrentWriteError(
    `Branch "${branchId}" of thread "${threadId}" is at seq ${actual}, not ${expected}: another writer appended since this one read it. Nothing was written; reload the branch and retry.`,
    { threadId, branchId },
  );
}

/** The error for an explicit branch id that is taken. */
export function branchExists(threadId: string, branchId: string): StateStoreError {
  return new StateStoreError(
    `Thread "${threadId}" already has a branch "${branchId}"; choose another id or leave it out for a generated one.`,
    { threadId, branchId },
  );
}

/** The error for a call on a closed store. */
export function closedError(store: string): StateStoreError {
  return new StateStoreError(`The ${store} is closed; open a new one.`);
}

/** The error for a snapshot after the branch's last event. */
export function snapshotBeyondEnd(
  threadId: string,
  branchId: string,
  seq: number,
  lastSeq: number,
): StateStoreError {
  return new StateStoreError(
    `Cannot save a snapshot of thread "${threadId}" branch "${branchId}" after event ${seq}: the branch ends at ${lastSeq}.`,
    { threadId, branchId, field: "snapshot.seq" },
  );
}

/** Check a lease's owner and ttl. */
/**
 * The longest lease a store grants, in ms: 2^31 − 1 (about 24.8 days), the longest timer Node
 * keeps (a run renews its lease on a timer of a third of it), and well inside every store's
 * integer columns (PostgreSQL's `bigint` refuses `1e300`).
 */
export const MAX_LEASE_TTL_MS = 2_147_483_647;

export function checkLease(threadId: string, branchId: string, owner: string, ttlMs: number): void {
  checkThreadId(threadId);
  checkBranchId(threadId, branchId);
  if (typeof owner !== "string" || owner === "") {
    throw new StateStoreError(`A lease owner must be a non-empty string, got ${show(owner)}`, {
      threadId,
      branchId,
      field: "owner",
    });
  }
  if (
    typeof ttlMs !== "number" ||
    !Number.isFinite(ttlMs) ||
    ttlMs <= 0 ||
    ttlMs > MAX_LEASE_TTL_MS
  ) {
    throw new StateStoreError(
      `A lease ttlMs must be a positive number of ms up to ${MAX_LEASE_TTL_MS}, got ${show(ttlMs)}`,
      {
        threadId,
        branchId,
        field: "ttlMs",
      },
    );
  }
}

/**
 * Check the arguments of `requestStop` (`by`) and `stopRequested` (`owner`).
 * @throws StateStoreError for a bad thread id, branch id or run id.
 */
export function checkStopArgs(threadId: string, branchId: string, field: string, id: string): void {
  checkThreadId(threadId);
  checkBranchId(threadId, branchId);
  if (typeof id !== "string" || id === "") {
    throw new StateStoreError(
      `A stop request's ${field} must be a non-empty string, got ${show(id)}`,
      {
        threadId,
        branchId,
        field,
      },
    );
  }
}

/**
 * Read options checked, with defaults (`0` and `Infinity`).
 * @throws TypeError for options that are not an object, or with a key other than `afterSeq`
 *   and `uptoSeq` (`{ after: 2 }` would read everything): `read: unknown option "after"; the
 *   options are "afterSeq", "uptoSeq"`. StateStoreError for a bound that is not an integer ≥ 0.
 */
export function readBounds(
  threadId: string,
  branchId: string,
  options?: { afterSeq?: number; uptoSeq?: number },
): { afterSeq: number; uptoSeq: number } {
  if (options !== undefined) checkReadOptions(options);
  const afterSeq = options?.afterSeq ?? 0;
  const uptoSeq = options?.uptoSeq ?? Number.MAX_SAFE_INTEGER;
  checkSeq(afterSeq, "afterSeq", threadId, branchId);
  checkSeq(uptoSeq, "uptoSeq", threadId, branchId);
  return { afterSeq, uptoSeq };
}

/** Refuse read options that are not an object or have an unknown key (no allocation otherwise). */
function checkReadOptions(options: unknown): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(
      `read: options must be an object with "afterSeq" and/or "uptoSeq", got ${options === null ? "null" : Array.isArray(options) ? "an array" : show(options)}`,
    );
  }
  for (const key in options) {
    if (key !== "afterSeq" && key !== "uptoSeq") {
      throw new TypeError(`read: unknown option "${key}"; the options are "afterSeq", "uptoSeq"`);
    }
  }
}

function show(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "function") return "a function";
  try {
    return String(v);
  } catch {
    return typeof v;
  }
}

/** Order of `listThreads`: most recently updated first, then by thread id. */
export function byUpdatedAt(a: ThreadInfo, b: ThreadInfo): number {
  return (
    b.updatedAt - a.updatedAt || (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0)
  );
}

/** `listThreads` options checked: `limit` (Infinity when absent) and `offset` (0). */
export function listBounds(options: ListThreadsOptions | undefined): {
  limit: number;
  offset: number;
} {
  checkOptions("listThreads", options, ["limit", "offset"]);
  const limit = options?.limit;
  const offset = options?.offset;
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 1)) {
    throw new StateStoreError(`listThreads: limit must be an integer ≥ 1, got ${show(limit)}`, {
      field: "limit",
    });
  }
  if (offset !== undefined && !(Number.isSafeInteger(offset) && offset >= 0)) {
    throw new StateStoreError(`listThreads: offset must be an integer ≥ 0, got ${show(offset)}`, {
      field: "offset",
    });
  }
  return { limit: limit ?? Number.POSITIVE_INFINITY, offset: offset ?? 0 };
}

/**
 * Check a method's options object (`undefined` is none): an object with no keys but `known`.
 * @throws ValueError for options that are not an object, or an unknown key (a typo that
 *   would otherwise be ignored), as `graph.deleteThread` says it.
 */
export function checkOptions(method: string, options: unknown, known: readonly string[]): void {
  if (options === undefined) return;
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ValueError(`${method} options must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new ValueError(
        `unknown ${method} option "${key}"; ${known.length === 1 ? "the option is" : "the options are"} ${known.map((k) => `"${k}"`).join(", ")}`,
      );
    }
  }
}

/** `deleteThread` options checked: whether to delete child threads too. */
export function deleteChildren(
  threadId: string,
  options: DeleteThreadOptions | undefined,
): boolean {
  checkThreadId(threadId);
  checkOptions("deleteThread", options, ["children"]);
  const children = options?.children ?? false;
  if (typeof children !== "boolean") {
    throw new StateStoreError(`deleteThread: children must be a boolean, got ${show(children)}`, {
      threadId,
      field: "children",
    });
  }
  return children;
}

/** Whether `id` is `threadId` or (with `children`) one of its child threads. */
export function isDeleted(id: string, threadId: string, children: boolean): boolean {
  return id === threadId || (children && id.startsWith(`${threadId}:`));
}

/** How long a deletion holds the leases of the branches it deletes, in ms. */
const DELETE_LEASE_MS = 60_000;

/**
 * The branches whose leases a deletion of this process holds, by store object (counted:
 * `"<threadId>\u0000<branchId>"` → holders), so that a second deletion meeting one says so.
 */
const deleting = new WeakMap<object, Map<string, number>>();

/**
 * Take the lease of every `[threadId, branchId]` (by the store's own rules, which know dead
 * writers), run `remove`, then give the leases back, which deletes their rows (a lease left
 * by a dead writer was replaced by the deletion's own). A branch whose lease another owner
 * holds makes it throw `ThreadBusyError` before anything is removed: "is being deleted" when
 * the holder is another deletion on the same store object in this process, else "is
 * running" (the `StateStore` contract cannot say who holds a lease, so a deletion through
 * another store object or process reads as a run). (Leases of branches that do not exist
 * yet — a run about to write a thread's first event — are left alone.)
 */
export async function underLeases<T>(
  store: Pick<StateStore, "acquireLease" | "releaseLease">,
  branches: readonly (readonly [string, string])[],
  remove: () => T | Promise<T>,
): Promise<T> {
  const owner = `delete-${nodeCrypto().randomBytes(8).toString("hex")}`;
  const taken: (readonly [string, string])[] = [];
  let held = deleting.get(store);
  if (held === undefined) {
    held = new Map();
    deleting.set(store, held);
  }
  const mine = held;
  const key = (t: string, b: string) => `${t}\u0000${b}`;
  try {
    for (const [t, b] of branches) {
      if (!(await store.acquireLease(t, b, owner, DELETE_LEASE_MS))) {
        throw new ThreadBusyError(
          (mine.get(key(t, b)) ?? 0) > 0
            ? `Thread "${t}" (branch "${b}") is being deleted by another deleteThread call; this one deleted nothing`
            : `Thread "${t}" (branch "${b}") is running; it cannot be deleted until the run ends (or its lease expires)`,
          { threadId: t, branchId: b },
        );
      }
      taken.push([t, b]);
      mine.set(key(t, b), (mine.get(key(t, b)) ?? 0) + 1);
    }
    return await remove();
  } finally {
    for (const [t, b] of taken) {
      const n = (mine.get(key(t, b)) ?? 1) - 1;
      if (n > 0) mine.set(key(t, b), n);
      else mine.delete(key(t, b));
      await store.releaseLease(t, b, owner).catch(() => {});
    }
  }
}
