/**
 * A run taken over from a dead (or closing) worker: how far the run got in the store, and how
 * long to wait while the thread is still leased to the worker that had it.
 *
 * @module
 */
import { RunCancelledError } from "../../errors/index.js";
import type { StoredEvent } from "../../stores/types.js";

/**
 * The error a closing worker stops a run with when it hands the run back to the queue (its
 * `close()` ran out of `drainMs`): a `RunCancelledError` whose message names the queued run,
 * `Run "<runId>" was handed back to the queue by its closing worker; another worker continues
 * it`. The engine stores it as the stopped run's `run_failed` (`{ error: { name, message } }`),
 * so that a worker taking the run over knows from the store alone that this end is a hand-over
 * (see {@link isHandOver}), even when the closing worker died before it wrote `handedOverAt`.
 *
 * @param runId - the queued run's id (the server's, not a take-over's `<runId>~<n>`).
 * @param reason - the abort reason it replaces, kept as its `cause`.
 * @example
 * ```ts
 * handOverError("run-1").message; // 'Run "run-1" was handed back to the queue by its closing worker; another worker continues it'
 * ```
 */
export function handOverError(runId: string, reason?: unknown): RunCancelledError {
  return new RunCancelledError(
    `Run "${runId}" was handed back to the queue by its closing worker; another worker continues it`,
    { cause: reason },
  );
}

/**
 * Whether the stored `run_failed` data `data` is the hand-over of run `runId` (the error of
 * {@link handOverError}: name `"RunCancelledError"`, exactly its message). Pure.
 */
export function isHandOver(data: unknown, runId: string): boolean {
  const error = (data as { error?: { name?: unknown; message?: unknown } } | null)?.error;
  const expected = handOverError(runId);
  return error?.name === expected.name && error.message === expected.message;
}

/**
 * What the store says of a run a worker takes over (see {@link storedRunEnd}):
 * - `"not-started"`: no `run_started` after the run's start; the run starts as queued;
 * - `"finished"`: it has a `run_finished`: the dead worker finished it but not its stream;
 * - `"failed"`: it has a `run_failed`: `type` and `message` are the stored error's `name` and
 *   `message` (`"Error"` and `""` where the event has none);
 * - `"stopped"`: it started and has no end (killed), or its end is a hand-over (see
 *   {@link isHandOver}): it continues from its last committed superstep.
 */
export type StoredRunEnd =
  | { kind: "not-started" }
  | { kind: "finished" }
  | { kind: "failed"; type: string; message: string }
  | { kind: "stopped" };

/**
 * How far run `runId` got, from the events stored after its start (`after`, in seq order):
 * its end is a `run_finished` or `run_failed` after its last `run_started` that is not a
 * hand-over. A hand-over is a `run_failed` whose error is {@link handOverError}'s for `runId`,
 * or any `run_failed` at or before `handedOverAt` (the branch's last seq the closing worker
 * recorded in the job when it handed the run back; `-1` when it recorded none: the worker
 * died first, or never handed the run back). Pure.
 *
 * @example
 * ```ts
 * storedRunEnd([{ type: "run_started", seq: 4 }, { type: "run_finished", seq: 6 }], -1, "run-1"); // { kind: "finished" }
 * ```
 */
export function storedRunEnd(
  after: readonly Pick<StoredEvent, "type" | "seq" | "data">[],
  handedOverAt: number,
  runId: string,
): StoredRunEnd {
  let lastStart = -1;
  for (let i = 0; i < after.length; i++) if (after[i]!.type === "run_started") lastStart = i;
  if (lastStart < 0) return { kind: "not-started" };
  const ended = after
    .slice(lastStart)
    .find(
      (e) =>
        e.seq > handedOverAt &&
        (e.type === "run_finished" || (e.type === "run_failed" && !isHandOver(e.data, runId))),
    );
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
