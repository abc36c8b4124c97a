/**
 * The span of a tool call, by its tool context, so that `callTool` can record each attempt
 * on it (internal: set by the tool runner when the graph is traced, not exported).
 *
 * @module
 */
import type { Span } from "@opentelemetry/api";

/** The `execute_tool` span of a call, by the call's `ToolContext`. */
export const attemptSpans = new WeakMap<object, Span>();

/**
 * Record an attempt's outcome on the call's span: a `nodestep.attempt` event with
 * `nodestep.attempt` (1, 2 …) and, for a failed attempt, `exception.type` and
 * `exception.message`. A no-op for an untraced call.
 */
export function recordAttempt(ctx: object, attempt: number, error: unknown): void {
  const span = attemptSpans.get(ctx);
  if (span === undefined) return;
  span.addEvent("nodestep.attempt", {
    "nodestep.attempt": attempt,
    "nodestep.attempt.ok": error === undefined,
    ...(error === undefined
      ? {}
      : {
          "exception.type": error instanceof Error ? error.name : typeof error,
          "exception.message": error instanceof Error ? error.message : String(error),
        }),
  });
}
