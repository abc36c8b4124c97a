/**
 * `ToolLimitMiddleware`: the tool-call budget of a run and its resumes (`maxToolCalls`).
 *
 * @module
 */
import { ToolDeniedError, ValueError } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";
import type { Middleware, RunEndInfo, ToolMiddlewareContext } from "./types.js";

/** Options of {@link ToolLimitMiddleware}. */
export interface ToolLimitOptions {
  /** Tool calls allowed per run and its resumes; a non-negative integer (`0` denies every call). */
  maxToolCalls: number;
}

/** The middleware made by {@link ToolLimitMiddleware}. */
export interface ToolLimitMiddleware extends Middleware {
  readonly name: "ToolLimitMiddleware";
  /** The budget. */
  readonly maxToolCalls: number;
  /** Counts the call and throws `ToolDeniedError` past the budget. */
  beforeTool(args: JsonObject, ctx: ToolMiddlewareContext): undefined;
  /** Tool calls counted so far for a run (its `originRunId`; outside a graph, `""`). */
  used(key: string): number;
  /** Drops the budget of the run that ended (`run.originRunId`): nothing can resume it. */
  onRunEnd(run: RunEndInfo): void;
  /** How many budgets it holds: runs that are going on, paused, failed or stopped (at most 10,000). */
  tracked(): number;
}

/**
 * How many budgets a limiter holds; past that the oldest is forgotten first. A completed run's
 * budget is dropped when it ends (`onRunEnd`), and so is a run's without a thread however it
 * ends, so these are the runs that are going on, or on a thread paused, failed or were stopped
 * (any of which may be resumed).
 */
const MAX_TRACKED = 10_000;

interface Budget {
  count: number;
  /**
   * `"<taskId>#<toolCallId>"` → whether that call was allowed; a call seen again (on resume) is
   * not counted twice. The first call is held in `firstId` / `firstAllowed` and a map is made
   * only for a second one: most runs make few calls, and the budgets of paused or failed runs
   * stay until {@link MAX_TRACKED} newer ones push them out (a map each cost about 300 bytes a run).
   */
  firstId: string | null;
  firstAllowed: boolean;
  calls: Map<string, boolean> | null;
}

function seenCall(b: Budget, id: string): boolean | undefined {
  if (b.firstId === id) return b.firstAllowed;
  return b.calls?.get(id);
}

function recordCall(b: Budget, id: string, allowed: boolean): void {
  if (b.firstId === null) {
    b.firstId = id;
    b.firstAllowed = allowed;
  } else {
    b.calls ??= new Map();
    b.calls.set(id, allowed);
  }
}

/**
 * Limit the tool calls of one run and its resumes.
 *
 * Its `beforeTool` hook counts every call; the call that would go past `maxToolCalls` and
 * every one after it throw `ToolDeniedError` with the reason
 * `"Tool call limit reached: at most <n> tool calls per run"`, which the agent sends to the
 * model as the tool message. Place it first, so denied calls reach no other middleware
 * (`buildReactAgent` does).
 *
 * Counting: per run and its resumes (`ctx.toolContext.originRunId`; run ids are unique), in a map
 * held by this middleware instance, so a resume shares the budget of the run it continues and
 * a new run on the thread starts a fresh one (outside a graph, all calls of the instance share
 * one budget). A run's budget ends when the run completes (`onRunEnd`); a paused, failed or
 * stopped run keeps it for its resume. A tool call
 * already counted (same task id and tool call id: a call that runs again on resume) is not
 * counted twice and gets the same decision. Calls without a tool call id always count. The
 * count lives in this process: a run resumed in another process starts its count again. Parallel calls are counted
 * in the order their `beforeTool` hooks are reached.
 *
 * @param options - `{ maxToolCalls }`.
 * @throws ValueError when `maxToolCalls` is not a non-negative integer.
 * @example
 * ```ts
 * const limit = ToolLimitMiddleware({ maxToolCalls: 2 });
 * const ctx = ToolContext.empty({ middleware: [limit] });
 * await callTool(t, {}, ctx); await callTool(t, {}, ctx);
 * await callTool(t, {}, ctx); // ToolDeniedError: Tool call limit reached: at most 2 tool calls per run
 * ```
 */
export function ToolLimitMiddleware(options: ToolLimitOptions): ToolLimitMiddleware {
  const max = (options as Partial<ToolLimitOptions> | null | undefined)?.maxToolCalls;
  if (typeof max !== "number" || !Number.isInteger(max) || max < 0) {
    throw new ValueError(
      `ToolLimitMiddleware: maxToolCalls must be a non-negative integer, got ${typeof max === "number" ? String(max) : typeof max}`,
    );
  }
  const budgets = new Map<string, Budget>();
  const reason = `Tool call limit reached: at most ${max} tool call${max === 1 ? "" : "s"} per run`;

  function budgetFor(key: string): Budget {
    let b = budgets.get(key);
    if (b === undefined) {
      b = { count: 0, firstId: null, firstAllowed: false, calls: null };
      budgets.set(key, b);
      if (budgets.size > MAX_TRACKED) {
        const oldest = budgets.keys().next().value;
        if (oldest !== undefined) budgets.delete(oldest);
      }
    }
    return b;
  }

  function deny(ctx: ToolMiddlewareContext): never {
    throw new ToolDeniedError(`${reason} (tool "${ctx.tool.name}" was not called)`, {
      tool: ctx.tool.name,
      ...(ctx.toolCallId === null ? {} : { toolCallId: ctx.toolCallId }),
      reason,
    });
  }

  return {
    name: "ToolLimitMiddleware",
    maxToolCalls: max,
    beforeTool(_args: JsonObject, ctx: ToolMiddlewareContext): undefined {
      const tc = ctx.toolContext;
      const key = tc.originRunId ?? tc.runId ?? "";
      const b = budgetFor(key);
      const id = ctx.toolCallId === null ? null : `${tc.taskId}#${ctx.toolCallId}`;
      if (id !== null) {
        const seen = seenCall(b, id);
        if (seen === true) return undefined;
        if (seen === false) deny(ctx);
      }
      const allowed = b.count < max;
      if (allowed) b.count++;
      if (id !== null) recordCall(b, id, allowed);
      if (!allowed) deny(ctx);
      return undefined;
    },
    used(key: string): number {
      return budgets.get(key)?.count ?? 0;
    },
    onRunEnd(run: RunEndInfo): void {
      budgets.delete(run.originRunId);
    },
    tracked(): number {
      return budgets.size;
    },
  };
}
