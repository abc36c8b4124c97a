/**
 * `runStreamWriter`: what one run job writes into its run's Redis Stream, as the run's owner.
 *
 * @module
 */
import type { Redis } from "ioredis";
import {
  appendRunEvent,
  type FinalStatus,
  type RunKeys,
  type RunStreamLimits,
} from "./run-channel.js";

/** A run job's writer of its run's stream (see {@link runStreamWriter}). */
export interface RunStreamWriter {
  /**
   * Append one event (`event`: the SSE event name, `payload`: its JSON data); `final` marks the
   * run ended with that status. Does not wait: the append is pending until {@link flush}.
   * Resolves with the event's id, or `-1` when another worker owns the run now (nothing was
   * written; {@link lost} is then `true`).
   */
  append(event: string, payload: unknown, final?: FinalStatus | null): Promise<number>;
  /** Wait for every pending append. Rejects with the first Redis error among them. */
  flush(): Promise<void>;
  /** `true` once an append found the run owned by another worker (it was taken over). */
  readonly lost: boolean;
}

/**
 * The writer of run `runId`'s stream for `owner` (`<worker id>:<job token>`): appends are
 * fenced by the owner (see `appendRunEvent`) and bounded by `limits`.
 *
 * @example
 * ```ts
 * const out = runStreamWriter(redis, keys, runId, owner, limits);
 * out.append("run", { threadId, branchId, runId });
 * out.append("end", end, "done");
 * await out.flush();
 * ```
 */
export function runStreamWriter(
  redis: Redis,
  keys: RunKeys,
  runId: string,
  owner: string,
  limits: RunStreamLimits,
): RunStreamWriter {
  const pending: Promise<number>[] = [];
  let lost = false;
  return {
    append(event, payload, final = null) {
      const p = appendRunEvent(redis, keys, runId, owner, event, payload, limits, final);
      p.then(
        (n) => {
          if (n === -1) lost = true;
        },
        () => {},
      );
      pending.push(p);
      return p;
    },
    async flush() {
      await Promise.all(pending.splice(0));
    },
    get lost() {
      return lost;
    },
  };
}
