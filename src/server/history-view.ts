/**
 * The studio's history: a branch's events as readable entries, each with the nodes it
 * belongs to, a one-line summary (the same as `nodestep history` prints) and the change of
 * the state it made, folded from the stored events alone in one pass.
 *
 * @module
 */
import { eventSummary } from "../cli/history-format.js";
import { emptyPosition, foldEvents, type ThreadPosition } from "../graph/thread-state.js";
import type { StateDefinition } from "../state/define-state.js";
import type { StoredEvent } from "../stores/types.js";
import { DEFAULT_MAX_CHANGES, diffJson } from "./json-diff.js";
import type { HistoryEntry } from "./wire-types.js";

export type { HistoryEntry } from "./wire-types.js";

/** Options of {@link historyEntries}. */
export interface HistoryViewOptions {
  /** At most this many changes in one entry's diff; default 200 (`DEFAULT_MAX_CHANGES`). */
  maxChanges?: number;
}

const names = (pos: ThreadPosition): string[] => pos.tasks.map((t) => t.name);

function nodesOf(e: StoredEvent, before: ThreadPosition): string[] {
  if (e.node !== null) return [e.node];
  const d = (typeof e.data === "object" && e.data !== null ? e.data : {}) as Record<
    string,
    unknown
  >;
  switch (e.type) {
    case "step_committed":
      return before.step === e.step ? names(before) : [];
    case "state_updated":
      return typeof d.asNode === "string" ? [d.asNode] : [];
    default:
      return [];
  }
}

/**
 * A branch's events (oldest first, as `graph.history` gives them) as history entries. The
 * state is folded event by event from an empty thread with the graph's state definition, the
 * way `getState({ eventId })` folds it, so the diff of each entry is exactly the difference of
 * `getState` at the event before and at this one.
 *
 * @param def - the graph's state definition (`graph.state`), `null` for a plain-object state.
 * @throws what folding throws for a log the definition cannot read (a reducer's error).
 * @example historyEntries(graph.state, await graph.history("t1"))[1]
 * // { id: "t1/main/2", type: "step_committed", nodes: ["think"], summary: "ai: Hello", diff: [...] ... }
 */
export function historyEntries(
  def: StateDefinition | null,
  events: readonly StoredEvent[],
  options: HistoryViewOptions = {},
): HistoryEntry[] {
  const maxChanges = options.maxChanges ?? DEFAULT_MAX_CHANGES;
  let pos = emptyPosition(def);
  const out: HistoryEntry[] = [];
  for (const e of events) {
    const next = foldEvents(def, pos, [e]);
    const { changes, truncated } = diffJson(pos.state, next.state, { maxChanges });
    out.push({
      id: e.id,
      branchId: e.branchId,
      seq: e.seq,
      type: e.type,
      runId: e.runId,
      step: e.step,
      nodes: nodesOf(e, pos),
      summary: eventSummary(e),
      createdAt: e.createdAt,
      diff: changes,
      diffTruncated: truncated,
    });
    pos = next;
  }
  return out;
}
