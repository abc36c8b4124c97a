/**
 * The end of a completed run, told to the graph's middleware (`Middleware.onRunEnd`), so that
 * what a middleware keeps per run and its resumes (a tool-call budget) ends with the run.
 *
 * @module
 */

/**
 * What `Middleware.onRunEnd` is told of a run that completed.
 * @example
 * ```ts
 * { graphName: "agent", runId: "run-1f2e-3", originRunId: "run-1f2e-3", threadId: "t1" }
 * ```
 */
export interface RunEndInfo {
  /** The graph that ran. */
  readonly graphName: string;
  /** The run that completed. */
  readonly runId: string;
  /** The run it continued (its own id unless it resumed a paused or failed run): the key of per-run budgets. */
  readonly originRunId: string;
  /** Its thread, or `null` for a run without one. */
  readonly threadId: string | null;
}

/**
 * Call the `onRunEnd` hook of every entry of `middleware` that has one, in order. What a hook
 * throws is ignored: the run has completed and its events are stored.
 */
export function notifyRunEnd(middleware: readonly unknown[], info: RunEndInfo): void {
  for (const mw of middleware) {
    if (typeof mw !== "object" || mw === null) continue;
    const hook = (mw as { onRunEnd?: unknown }).onRunEnd;
    if (typeof hook !== "function") continue;
    try {
      hook.call(mw, info);
    } catch {
      // A hook only drops what its middleware keeps per run; the run's result stands.
    }
  }
}
