/**
 * The events of one branch of a `MemoryStateStore`, kept compactly: one flat array with
 * {@link STRIDE} slots an event (no object per event), the seq implied by the position, the
 * creation time as ms after the branch's first event (a small integer, kept unboxed). On
 * Node 20 x64 an idle thread then costs its events' JSON text plus about 128 heap bytes an
 * event, the text's own string included (an object per event cost about 166;
 * memory-footprint.test.ts).
 *
 * @module
 */
import type { EventRow } from "./internal.js";

/** Slots per event: type, runId, step, taskId, node, createdAt − epoch, data (JSON text). */
const STRIDE = 7;

/** A branch's own events, in seq order. */
export interface RowLog {
  /** {@link STRIDE} slots per event. */
  slots: (string | number | null)[];
  /** Creation time of the branch's first event, in ms (the base of the stored times). */
  epoch: number;
}

/** An empty log. */
export function emptyRows(): RowLog {
  return { slots: [], epoch: 0 };
}

/** How many events the log holds. */
export function rowCount(log: RowLog): number {
  return log.slots.length / STRIDE;
}

/** Add the event `row` (its `seq` is the next one: not stored). */
export function pushRow(log: RowLog, row: Omit<EventRow, "seq">): void {
  if (log.slots.length === 0) log.epoch = row.createdAt;
  log.slots.push(
    row.type,
    row.runId,
    row.step,
    row.taskId,
    row.node,
    row.createdAt - log.epoch,
    row.data,
  );
}

/** The `i`-th event (0-based) as a row with seq `seq`. */
export function rowAt(log: RowLog, i: number, seq: number): EventRow {
  const s = log.slots;
  const at = i * STRIDE;
  return {
    seq,
    type: s[at] as string,
    runId: s[at + 1] as string,
    step: s[at + 2] as number | null,
    taskId: s[at + 3] as string | null,
    node: s[at + 4] as string | null,
    createdAt: log.epoch + (s[at + 5] as number),
    data: s[at + 6] as string,
  };
}
