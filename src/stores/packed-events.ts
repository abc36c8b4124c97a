/**
 * Reading many events as one JSON text: a store that can build, in its query, the text
 * `[[seq, type, runId, step, taskId, node, createdAt, data], …]` (each row's columns quoted as
 * JSON, its data column as stored) hands it to {@link unpackEvents}, which parses it once and
 * checks every row, instead of one row object and one `JSON.parse` per event. A cold load reads
 * its tail this way (SQLite's `group_concat`, PostgreSQL's `string_agg`).
 *
 * Anything that does not check out (text that is not JSON, a row of another shape, a seq out
 * of order, an unknown type) makes {@link unpackEvents} return `null`: the store then reads
 * the same rows one by one (`decodeEvent`), which names the damaged row in its error. So the
 * packed read changes what a read costs, never what it returns or how it fails.
 *
 * Internal: not part of the public API.
 *
 * @module
 */
import { EVENT_TYPES } from "./internal.js";
import type { EventType, StoredEvent } from "./types.js";

/** Columns of a packed row, in order (see {@link unpackEvents}). */
const ROW_LENGTH = 8;

/**
 * The events of a packed text of `branchId`'s rows with seqs `from + 1 … from + count`, or
 * `null` when the text is not exactly that (see the module's doc: the caller then reads the
 * rows one by one). `text` `null` stands for no rows.
 *
 * @param text - `[[seq, type, runId, step, taskId, node, createdAt, data], …]`, seq ascending.
 * @returns the events, as `decodeEvent` makes them (same keys, same order), or `null`.
 * @example
 * ```ts
 * unpackEvents("t", "main", '[[1,"run_finished","r1",null,null,null,1700000000000,{}]]', 0, 1);
 * // → [{ id: "t/main/1", threadId: "t", branchId: "main", seq: 1, …, data: {} }]
 * ```
 */
export function unpackEvents(
  threadId: string,
  branchId: string,
  text: string | null,
  from: number,
  count: number,
): StoredEvent[] | null {
  if (text === null) return count === 0 ? [] : null;
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(rows) || rows.length !== count) return null;
  const prefix = `${threadId}/${branchId}/`;
  const out: StoredEvent[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const r = rows[i] as unknown[];
    if (!Array.isArray(r) || r.length !== ROW_LENGTH) return null;
    const seq = r[0];
    const type = r[1];
    const runId = r[2];
    const step = r[3];
    const taskId = r[4];
    const node = r[5];
    const createdAt = r[6];
    if (
      seq !== from + 1 + i ||
      typeof type !== "string" ||
      !EVENT_TYPES.has(type) ||
      typeof runId !== "string" ||
      (step !== null && typeof step !== "number") ||
      (taskId !== null && typeof taskId !== "string") ||
      (node !== null && typeof node !== "string") ||
      typeof createdAt !== "number" ||
      !Number.isFinite(createdAt)
    ) {
      return null;
    }
    out[i] = {
      id: prefix + seq,
      threadId,
      branchId,
      seq,
      createdAt,
      type: type as EventType,
      runId,
      step,
      taskId,
      node,
      data: r[7] as StoredEvent["data"],
    };
  }
  return out;
}
