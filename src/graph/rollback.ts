/**
 * Busy-thread policy `"rollback"`: undo the runs a new run stopped, so that its input runs
 * on the thread as it was before them. See docs/busy-threads.md.
 *
 * The store's branches cannot be moved, so nothing is deleted: the new run appends one
 * `rolled_back` event that holds the position the branch had just before the first undone
 * run's `run_started` (its state, what ran next, pending interrupts, …), and the fold
 * (`foldEvents`) takes that position when it reaches the event. The undone runs' events stay
 * in the history, before it (auditable; `fork` from any of them still works), and
 * `getState(threadId, { eventId })` before the event still shows them.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/index.js";
import type { StateDefinition } from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import { emptyPosition, foldEvents, type ThreadPosition } from "./thread-state.js";

/** What a `rolled_back` event holds. */
export interface RollbackData {
  /** The runs undone, in the order they were stopped. */
  runs: string[];
  /** The last event kept (the one before the first undone run's `run_started`), or `null` for none. */
  toEventId: string | null;
  /** The position the fold goes back to (without `lastSeq` and `lastEventId`). */
  position: JsonObject;
}

/**
 * The rollback of `runs` on a branch: `null` when none of them started on it (nothing to
 * undo). Reads the branch's events and folds those before the first undone run.
 */
export async function planRollback(
  store: StateStore,
  def: StateDefinition | null,
  threadId: string,
  branchId: string,
  runs: readonly string[],
): Promise<RollbackData | null> {
  if (runs.length === 0) return null;
  const events = await store.read(threadId, branchId);
  const undone = new Set(runs);
  // The first run_started of an undone run written on this branch (a fork's parent events are
  // not this branch's to undo).
  const first = events.findIndex(
    (e) => e.type === "run_started" && e.branchId === branchId && undone.has(e.runId),
  );
  if (first < 0) return null;
  const before = foldEvents(def, emptyPosition(def), events.slice(0, first));
  const { lastSeq: _seq, lastEventId: _id, ...rest } = before;
  return {
    runs: [...runs],
    toEventId: first > 0 ? events[first - 1]!.id : null,
    // As JSON (absent fields dropped), as the fold reads it back.
    position: JSON.parse(JSON.stringify(rest)) as JsonObject,
  };
}

/**
 * The position after the `rolled_back` event written at `lastSeq` / `lastEventId`: what the
 * fold makes of it (`foldEvents`, case `"rolled_back"`).
 */
export function positionAfter(
  data: RollbackData,
  lastSeq: number,
  lastEventId: string | null,
): ThreadPosition {
  return {
    ...(structuredClone(data.position) as unknown as ThreadPosition),
    lastSeq,
    lastEventId,
  };
}

/** The data as the journal writes it. */
export function rollbackEventData(data: RollbackData): JsonObject {
  return data as unknown as { [key: string]: JsonValue };
}
