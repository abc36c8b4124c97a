/**
 * The last event of a queued run's stream: its `end` (the thread's status and output) or its
 * `error` (a run the worker failed, or one the workers gave up on).
 *
 * @module
 */
import type { Redis } from "ioredis";
import type { Graph } from "../../graph/graph.js";
import { pickOutput } from "../../graph/io-schema.js";
import type { ThreadSnapshot } from "../../graph/thread-ops.js";
import type { StateDefinition } from "../../state/define-state.js";
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
 * The data of a run's `end` event, as the server's own: the thread's `status` after the run
 * (`"interrupted"` when it waits on an interrupt), its pending `interrupts`, the id of its last
 * stored event, and the state's output fields (the graph's `outputFields`, else all).
 */
export interface RunEndData
  extends Pick<
    ThreadSnapshot<Record<string, unknown>>,
    "status" | "interrupts" | "lastEventId" | "state"
  > {
  threadId: string;
  branchId: string;
}

/** The `end` event's data of a run of `graph` on the thread's branch, read from the store. */
export async function runEndData(
  graph: Graph<StateDefinition | null>,
  threadId: string,
  branchId: string,
): Promise<RunEndData> {
  const after = await graph.getState(threadId, { branchId });
  return {
    threadId,
    branchId,
    status: after.status,
    interrupts: after.interrupts,
    lastEventId: after.lastEventId,
    state: pickOutput(after.state, graph.outputFields),
  };
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
