/**
 * Busy-thread policies ("double texting"): what a run does when another run holds its
 * thread's branch (its lease). See docs/busy-threads.md.
 *
 * - `"reject"` (default): fail at once with `ThreadBusyError`.
 * - `"enqueue"`: wait for the lease, polling it, for at most `onBusyTimeoutMs`.
 * - `"interrupt"`: ask the holder to stop at its next superstep boundary (a stop request
 *   recorded with the lease in the store, `StateStore.requestStop`), then wait as `"enqueue"`.
 * - `"rollback"`: as `"interrupt"`; the run then undoes the stopped run (`rollback.ts`), as
 *   its first write, which stays if the run is then refused (`thread-run-start.ts`).
 *
 * Everything goes through the store, so runs in different processes sharing a SQLite file or
 * a PostgreSQL schema see each other's leases and requests.
 *
 * @module
 */
import {
  GraphConfigError,
  RunCancelledError,
  ThreadBusyError,
  ValueError,
} from "../errors/index.js";
import type { StateStore } from "../stores/types.js";

/**
 * What a run does when its thread's branch is busy (another run holds its lease), the run
 * option `onBusy`: `"reject"` (fail with `ThreadBusyError`), `"enqueue"` (wait for the other
 * run to end), `"interrupt"` (ask it to stop at its next superstep boundary, then run),
 * `"rollback"` (as `"interrupt"`, then undo the stopped run, before anything else is judged:
 * the undo stays when the new run's input is refused). LangGraph Platform:
 * `multitaskStrategy`. See docs/busy-threads.md.
 *
 * @example
 * ```ts
 * const policy: BusyPolicy = "enqueue";
 * await graph.invoke({ question: "and tomorrow?" }, { threadId: "t1", onBusy: policy });
 * ```
 */
export type BusyPolicy = "reject" | "enqueue" | "interrupt" | "rollback";

/** Every {@link BusyPolicy}, in the order the docs list them (`["reject", "enqueue", "interrupt", "rollback"]`). */
export const BUSY_POLICIES = [
  "reject",
  "enqueue",
  "interrupt",
  "rollback",
] as const satisfies readonly BusyPolicy[];

/** How long `"enqueue"`, `"interrupt"` and `"rollback"` wait for the lease by default, in ms (`onBusyTimeoutMs`). */
export const DEFAULT_BUSY_TIMEOUT_MS = 30_000;

/** The largest `onBusyTimeoutMs` accepted, in ms (one hour); more is a `ValueError`. */
export const MAX_BUSY_TIMEOUT_MS = 3_600_000;

/** The first and the longest pause between two tries of a waiting run, in ms (doubling). */
export const BUSY_POLL_MS = { first: 5, max: 100 } as const;

/**
 * Check `onBusy` and `onBusyTimeoutMs` of a run's options.
 * @throws ValueError naming the option and what it accepts.
 */
export function checkBusyOptions(graph: string, onBusy: unknown, timeoutMs: unknown): void {
  if (onBusy !== undefined && !(BUSY_POLICIES as readonly unknown[]).includes(onBusy)) {
    throw new ValueError(
      `Graph "${graph}": onBusy must be one of ${BUSY_POLICIES.map((p) => `"${p}"`).join(", ")}, got ${typeof onBusy === "string" ? `"${onBusy}"` : String(onBusy)}`,
    );
  }
  if (timeoutMs === undefined) return;
  if (
    typeof timeoutMs !== "number" ||
    !Number.isInteger(timeoutMs) ||
    timeoutMs < 0 ||
    timeoutMs > MAX_BUSY_TIMEOUT_MS
  ) {
    throw new ValueError(
      `Graph "${graph}": onBusyTimeoutMs must be an integer from 0 to ${MAX_BUSY_TIMEOUT_MS} (ms), got ${String(timeoutMs)}`,
    );
  }
  if (onBusy === undefined || onBusy === "reject") {
    throw new ValueError(
      `Graph "${graph}": onBusyTimeoutMs is how long onBusy "enqueue", "interrupt" or "rollback" waits; give one of them with it`,
    );
  }
}

/** Where and how a run takes its branch's lease. */
export interface LeaseRequest {
  store: StateStore;
  graphName: string;
  threadId: string;
  branchId: string;
  runId: string;
  leaseTtlMs: number;
  policy: BusyPolicy;
  /** For `"enqueue"`, `"interrupt"` and `"rollback"`: how long to wait, in ms. */
  timeoutMs: number;
  signal: AbortSignal | null;
}

/** A lease taken: when the try that took it was sent, and the runs asked to stop on the way. */
export interface LeaseTaken {
  /** `performance.now()` when the successful acquire was sent. */
  sent: number;
  /** The owners `"interrupt"` or `"rollback"` asked to stop, in order (empty for the others). */
  stopped: string[];
}

/**
 * Take the branch's lease as `policy` says.
 * @throws ThreadBusyError when the branch is busy and the policy is `"reject"`, or the wait
 *   passed `timeoutMs`; GraphConfigError for `"interrupt"` or `"rollback"` on a store without
 *   stop requests;
 *   RunCancelledError when `signal` has fired before the first try (`… was cancelled before it
 *   took thread "<id>" (branch "<id>")`) or fires while waiting (`… was cancelled while it
 *   waited for thread …`).
 */
export async function takeLease(req: LeaseRequest): Promise<LeaseTaken> {
  const { store, threadId, branchId, runId, leaseTtlMs, policy } = req;
  const stops = policy === "interrupt" || policy === "rollback";
  if (stops && (!store.requestStop || !store.stopRequested)) {
    throw new GraphConfigError(
      `Graph "${req.graphName}": onBusy "${policy}" needs a state store that records stop requests (requestStop and stopRequested); this one has none. Use MemoryStateStore, SqliteStateStore or PostgresStateStore, or onBusy "enqueue"`,
      { graph: req.graphName },
    );
  }
  const stopped: string[] = [];
  const started = performance.now();
  let pause: number = BUSY_POLL_MS.first;
  for (let tries = 0; ; tries++) {
    if (req.signal?.aborted) {
      // Before the first try it never waited (the thread may well be free).
      throw new RunCancelledError(
        tries === 0
          ? `The run of graph "${req.graphName}" was cancelled before it took thread "${threadId}" (branch "${branchId}")`
          : `The run of graph "${req.graphName}" was cancelled while it waited for thread "${threadId}" (branch "${branchId}", onBusy "${policy}")`,
        { graph: req.graphName, cause: req.signal.reason },
      );
    }
    if (stops) {
      const asked = await store.requestStop!(threadId, branchId, runId);
      if (asked !== null && asked !== runId && !stopped.includes(asked)) stopped.push(asked);
    }
    const sent = performance.now();
    if (await store.acquireLease(threadId, branchId, runId, leaseTtlMs)) return { sent, stopped };
    if (policy === "reject") {
      throw new ThreadBusyError(
        `Thread "${threadId}" (branch "${branchId}") is already running; graph "${req.graphName}" cannot start a second run on it until the first ends (or its lease of ${leaseTtlMs} ms expires); pass onBusy: "enqueue" to wait for it, "interrupt" to stop it or "rollback" to undo it (docs/busy-threads.md)`,
        { threadId, branchId },
      );
    }
    const waited = performance.now() - started;
    if (waited >= req.timeoutMs) {
      throw new ThreadBusyError(
        `Thread "${threadId}" (branch "${branchId}") was still running after graph "${req.graphName}" waited ${req.timeoutMs} ms for it (onBusy "${policy}"); nothing was run. Raise onBusyTimeoutMs (at most ${MAX_BUSY_TIMEOUT_MS}), or try again later`,
        { threadId, branchId },
      );
    }
    await sleep(Math.min(pause, req.timeoutMs - waited), req.signal);
    pause = Math.min(pause * 2, BUSY_POLL_MS.max);
  }
}

/** Wait `ms`, or less when `signal` fires (the loop then throws). */
function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener("abort", done, { once: true });
  });
}
