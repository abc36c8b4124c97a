/**
 * The `error` event of a queued run's stream (a run the worker failed, or one the workers gave
 * up on); its `end` data is `runEndData`'s (src/middleware/run-end-data.ts), as a server's.
 *
 * @module
 */
import type { Redis } from "ioredis";
import { appendRunEvent, type RunKeys, type RunStreamLimits, takeRun } from "./run-channel.js";

/** The data of an `error` event, as the server's error bodies: `{ error: { type, message } }`. */
export interface RunErrorBody {
  error: {
    /** The error's class name (`error.name`; `"Error"` when it has none). */
    type: string;
    /** The error's message. */
    message: string;
  };
}

/** The `error` event's data of `e` (a non-`Error` is turned into one with `String(e)`). */
export function errorBody(e: unknown): RunErrorBody {
  const error = e instanceof Error ? e : new Error(String(e));
  return { error: { type: error.name || "Error", message: error.message } };
}

/**
 * End the stream of run `runId`, whose job failed before its worker could (it stalled more
 * often than `maxStalledCount`), with a `RunAbandonedError` `error` event written by
 * `<workerId>:failed`. Does nothing when the run has ended already.
 */
export async function endAbandoned(
  redis: Redis,
  keys: RunKeys,
  limits: RunStreamLimits,
  workerId: string,
  runId: string,
  error: Error,
): Promise<void> {
  const owner = `${workerId}:failed`;
  const taken = await takeRun(redis, keys, runId, owner, limits.ttlMs);
  if ("ended" in taken) return;
  await appendRunEvent(
    redis,
    keys,
    runId,
    owner,
    "error",
    {
      error: {
        type: "RunAbandonedError",
        message: `Run "${runId}" was given up by the workers: ${error.message} (its worker died more often than maxStalledCount allows); its thread keeps the supersteps it committed`,
      },
    },
    limits,
    "error",
  );
}
