/**
 * A run taken over from a dead (or closing) worker: how far the run got in the store, and how
 * long to wait while the thread is still leased to the worker that had it.
 *
 * @module
 */
import type { StoredEvent } from "../../stores/types.js";

/**
 * What the store says of a run a worker takes over (see {@link storedRunEnd}):
 * - `"not-started"`: no `run_started` after the run's start; the run starts as queued;
 * - `"finished"`: it has a `run_finished`: the dead worker finished it but not its stream;
 * - `"failed"`: it has a `run_failed`: `type` and `message` are the stored error's `name` and
 *   `message` (`"Error"` and `""` where the event has none);
 * - `"stopped"`: it started and has no end (killed, handed back): it continues from its last
 *   committed superstep.
 */
export type StoredRunEnd =
  | { kind: "not-started" }
  | { kind: "finished" }
  | { kind: "failed"; type: string; message: string }
  | { kind: "stopped" };

/**
 * How far a run got, from the events stored after its start (`after`, in seq order): its end
 * is a `run_finished` or `run_failed` after its last `run_started`, and after `handedOverAt`
 * (the branch's last seq when a closing worker handed the run back: that stopped run's
 * `run_failed` is not the run's end; `-1` when it was never handed back). Pure.
 *
 * @example
 * ```ts
 * storedRunEnd([{ type: "run_started", seq: 4 }, { type: "run_finished", seq: 6 }], -1); // { kind: "finished" }
 * ```
 */
export function storedRunEnd(
  after: readonly Pick<StoredEvent, "type" | "seq" | "data">[],
  handedOverAt: number,
): StoredRunEnd {
  let lastStart = -1;
  for (let i = 0; i < after.length; i++) if (after[i]!.type === "run_started") lastStart = i;
  if (lastStart < 0) return { kind: "not-started" };
  const ended = after
    .slice(lastStart)
    .find((e) => (e.type === "run_finished" || e.type === "run_failed") && e.seq > handedOverAt);
  if (ended === undefined) return { kind: "stopped" };
  if (ended.type === "run_finished") return { kind: "finished" };
  const stored = (ended.data as { error?: { name?: unknown; message?: unknown } } | null)?.error;
  return {
    kind: "failed",
    type: typeof stored?.name === "string" ? stored.name : "Error",
    message: typeof stored?.message === "string" ? stored.message : "",
  };
}

/** How a taken-over run waits for a thread still leased to the worker that had it. */
export interface BusyRetry {
  /** The first delay, in ms; it doubles on each retry. */
  firstDelayMs: number;
  /** The longest delay, in ms. */
  maxDelayMs: number;
  /** How many times the job goes back to the queue before the run fails with `ThreadBusyError`. */
  limit: number;
}

/**
 * The delay, in ms, before retry `n` (0 for the first) of a taken-over run whose thread is
 * still leased: `firstDelayMs * 2^n`, at most `maxDelayMs`; `null` once `n` reaches `limit`
 * (the run then fails).
 *
 * @example
 * ```ts
 * busyRetryDelay({ firstDelayMs: 200, maxDelayMs: 5_000, limit: 100 }, 3); // 1600
 * ```
 */
export function busyRetryDelay(retry: BusyRetry, n: number): number | null {
  if (n >= retry.limit) return null;
  return Math.min(retry.firstDelayMs * 2 ** n, retry.maxDelayMs);
}
