/**
 * A `"stable"` child's position follows from what its parent committed, not from what the
 * child's own runs wrote: the child's thread is written by the child's run before the parent
 * commits the superstep that called it, so a parent commit that is lost (a failed append, a
 * kill, an `"exit"` run lost whole) leaves child runs the parent never knew of.
 *
 * Each child run made by a subgraph records its parent's task (`parentTask`, see
 * `parentTaskKey`: thread, branch, task id `"<superstep>:<n>"`) in its `run_started`,
 * `run_finished` and `run_failed` events. Before a stable call runs the child, the position
 * the parent knows is worked out ({@link stableTarget}):
 * - the call paused before (its task's cache holds `childPaused` and `childEvent`, stored with
 *   the parent's pause): the child's event where it paused;
 * - the call started before (its cache holds `childBefore`, stored before the child ran):
 *   the child's event before that first attempt;
 * - else the parent has no record of this call: the child's last event that no run of the
 *   parent's branch made from this superstep on (a run of a superstep the parent has not
 *   committed yet is one it lost; runs of earlier supersteps, of other branches or of no
 *   parent are kept).
 *
 * When the child's last event is not that one, the child's run first appends a `rolled_back`
 * event ({@link planRewind}, the format of `rollback.ts`) holding the position as of it: the
 * lost runs stay in the history, and the fold goes on from the position the parent knows.
 *
 * @module
 */
import { isPlainObject, type JsonObject, type JsonValue } from "../json/index.js";
import type { StateDefinition } from "../state/define-state.js";
import type { NewEvent, StateStore, StoredEvent } from "../stores/types.js";
import type { RollbackData } from "./rollback.js";
import { emptyPosition, foldEvents, type ThreadPosition } from "./thread-state.js";
import type { RunOptions } from "./types.js";

/** Child runs of a stable subgraph → the event their branch goes back to first (`null`: empty). */
const rewinds = new WeakMap<RunOptions, string | null>();

/** Mark the options of a child run: before it runs, its branch goes back to `target` (see {@link planRewind}). */
export function markRewind(options: RunOptions, target: string | null): void {
  rewinds.set(options, target);
}

/** The event a child run's branch goes back to first, or `undefined` for none (see {@link markRewind}). */
export function rewindOf(options: RunOptions): string | null | undefined {
  return rewinds.has(options) ? rewinds.get(options) : undefined;
}

/** The events of a run that carry its parent's task. */
const TAGGED: ReadonlySet<NewEvent["type"]> = new Set([
  "run_started",
  "run_finished",
  "run_failed",
]);

/** `data` of an event of `type`, with the parent's task `parentTask` when it is a run's start or end. */
export function withParentTask(
  type: NewEvent["type"],
  data: JsonValue,
  parentTask: string | null,
): JsonValue {
  if (parentTask === null || !TAGGED.has(type) || !isPlainObject(data)) return data;
  return { ...data, parentTask };
}

/** The parent's call recorded in a run's event: thread, branch and superstep, or `null`. */
function parentCallOf(e: StoredEvent | undefined): [string, string, number] | null {
  const key = isPlainObject(e?.data) ? e.data.parentTask : undefined;
  if (typeof key !== "string") return null;
  try {
    const parsed = JSON.parse(key) as unknown;
    if (!Array.isArray(parsed) || parsed.length !== 3) return null;
    const [thread, branch, task] = parsed as unknown[];
    if (typeof thread !== "string" || typeof branch !== "string" || typeof task !== "string")
      return null;
    const step = Number(task.slice(0, task.indexOf(":")));
    return Number.isInteger(step) ? [thread, branch, step] : null;
  } catch {
    return null;
  }
}

/** The parent's task, as the child's runs see it. */
export interface ParentCall {
  threadId: string;
  branchId: string;
  step: number;
}

/**
 * The child's last event on `threadId`'s `branchId` (`head`) and the one its parent knows
 * (`target`, see the module's rules); `null` for no event.
 */
export async function stableTarget(
  store: StateStore,
  threadId: string,
  branchId: string,
  parent: ParentCall,
  cache: JsonObject,
): Promise<{ head: string | null; target: string | null }> {
  const b = await store.getBranch(threadId, branchId);
  const [last] =
    b && b.lastSeq > 0 ? await store.read(threadId, branchId, { afterSeq: b.lastSeq - 1 }) : [];
  const head = last?.id ?? null;
  if (cache.childPaused === true && typeof cache.childEvent === "string")
    return { head, target: cache.childEvent };
  if (typeof cache.childBefore === "string" || cache.childBefore === null)
    return { head, target: cache.childBefore };
  const lost = (e: StoredEvent | undefined): boolean => {
    const call = parentCallOf(e);
    return (
      call !== null &&
      call[0] === parent.threadId &&
      call[1] === parent.branchId &&
      call[2] >= parent.step
    );
  };
  if (last === undefined) return { head, target: null };
  if ((last.type === "run_finished" || last.type === "run_failed") && !lost(last))
    return { head, target: head };
  // The last run may be one the parent lost (or was cut off): its start says whose it was.
  const events = await store.read(threadId, branchId, { uptoSeq: last.seq });
  const starts = new Map<string, StoredEvent>();
  for (const e of events) if (e.type === "run_started") starts.set(e.runId, e);
  let i = events.length - 1;
  while (i >= 0 && lost(starts.get(events[i]!.runId))) i--;
  return { head, target: i >= 0 ? events[i]!.id : null };
}

/**
 * The rewind of a child run's branch, whose position is `tp`, to `target` (as a
 * `rolled_back` event's data, see `rollback.ts`): `null` when the branch is there already or
 * `target` is not in its history. Reads the branch's events and folds those up to `target`.
 */
export async function planRewind(
  store: StateStore,
  def: StateDefinition | null,
  threadId: string,
  branchId: string,
  tp: ThreadPosition,
  target: string | null | undefined,
): Promise<RollbackData | null> {
  if (target === undefined || tp.lastEventId === target) return null;
  const events = await store.read(threadId, branchId, { uptoSeq: tp.lastSeq });
  const at = target === null ? -1 : events.findIndex((e) => e.id === target);
  if (target !== null && at < 0) return null;
  const runs = [...new Set(events.slice(at + 1).map((e) => e.runId))];
  const before = foldEvents(def, emptyPosition(def), events.slice(0, at + 1));
  const { lastSeq: _seq, lastEventId: _id, ...rest } = before;
  return {
    runs,
    toEventId: target,
    // As JSON (absent fields dropped), as the fold reads it back.
    position: JSON.parse(JSON.stringify(rest)) as JsonObject,
  };
}
