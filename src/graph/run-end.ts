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
 * throws is ignored: the run has completed and its events are stored. A hook that returns a
 * promise (an `async` one) is not awaited, and its rejection is ignored too (never an unhandled
 * rejection, which would end a Node process run with the default `--unhandled-rejections`).
 */
export function notifyRunEnd(middleware: readonly unknown[], info: RunEndInfo): void {
  for (const mw of middleware) {
    if (typeof mw !== "object" || mw === null) continue;
    const hook = (mw as { onRunEnd?: unknown }).onRunEnd;
    if (typeof hook !== "function") continue;
    try {
      const out: unknown = hook.call(mw, info);
      if (
        typeof out === "object" &&
        out !== null &&
        typeof (out as Promise<unknown>).then === "function"
      )
        (out as Promise<unknown>).then(undefined, () => {});
    } catch {
      // A hook only drops what its middleware keeps per run; the run's result stands.
    }
  }
}
