/**
 * `ModelCallLimitMiddleware`: the model-call budget of a run and its resumes.
 *
 * @module
 */
import type { ChatRequest } from "../chat/types.js";
import { ModelCallLimitError, ValueError } from "../errors/index.js";
import type { Middleware, ModelMiddlewareContext, RunEndInfo } from "./types.js";

/** Options of {@link ModelCallLimitMiddleware}. */
export interface ModelCallLimitOptions {
  /** Model calls allowed per run and its resumes; a non-negative integer. */
  maxModelCalls: number;
}

/** The middleware made by {@link ModelCallLimitMiddleware}. */
export interface ModelCallLimitMiddleware extends Middleware {
  readonly name: "ModelCallLimitMiddleware";
  /** The budget. */
  readonly maxModelCalls: number;
  /** Counts the call; throws `ModelCallLimitError` past the budget. */
  beforeModel(request: ChatRequest, ctx: ModelMiddlewareContext): undefined;
  /** Model calls counted so far for a run id (`originRunId`). */
  used(runId: string): number;
  /** Drops the budget of the run that ended (`run.originRunId`): nothing can resume it. */
  onRunEnd(run: RunEndInfo): void;
  /** How many budgets it holds: runs that are going on, paused, failed or stopped (at most 10,000). */
  tracked(): number;
}

/**
 * How many runs' budgets a limiter holds; past that the oldest is forgotten first. A completed
 * run's budget is dropped when it ends (`onRunEnd`), and so is a run's without a thread however
 * it ends (nothing can resume it).
 */
const MAX_TRACKED = 10_000;

interface Budget {
  count: number;
  /** Per task: the run it last ran in, its calls counted, and where a re-run is in replaying them. */
  tasks: Map<string, { runId: string; calls: number; replay: number; seen: number }>;
}

/**
 * Limit the model calls of one run and its resumes.
 *
 * Its `beforeModel` hook counts every call; the call that would go past `maxModelCalls` throws
 * `ModelCallLimitError` (`"Model call limit reached: at most <n> model calls per run ..."`),
 * which fails the run: unlike a denied tool call, there is nothing to tell the model.
 *
 * Counting: per run and its resumes, keyed by `ctx.node.originRunId`, in a map held by this
 * middleware instance, so a resume shares the budget of the run it continues and a new run on
 * the thread starts a fresh one; a run's budget ends when the run completes, or a run without a thread ends (`onRunEnd`). A task that runs again on resume (same task id, a later run)
 * repeats the calls it made before it paused; those are not counted twice. The count lives in
 * this process. Place it first, so no other hook runs for a refused call.
 *
 * @param options - `{ maxModelCalls }`.
 * @throws ValueError when `maxModelCalls` is not a non-negative integer.
 * @example
 * ```ts
 * const agent = buildReactAgent(chat, { tools, middleware: [ModelCallLimitMiddleware({ maxModelCalls: 10 })] });
 * ```
 */
export function ModelCallLimitMiddleware(options: ModelCallLimitOptions): ModelCallLimitMiddleware {
  const max = (options as Partial<ModelCallLimitOptions> | null | undefined)?.maxModelCalls;
  if (typeof max !== "number" || !Number.isInteger(max) || max < 0) {
    throw new ValueError(
      `ModelCallLimitMiddleware: maxModelCalls must be a non-negative integer, got ${typeof max === "number" ? String(max) : typeof max}`,
    );
  }
  const budgets = new Map<string, Budget>();

  function budgetFor(key: string): Budget {
    let b = budgets.get(key);
    if (b === undefined) {
      b = { count: 0, tasks: new Map() };
      budgets.set(key, b);
      if (budgets.size > MAX_TRACKED) {
        const oldest = budgets.keys().next().value;
        if (oldest !== undefined) budgets.delete(oldest);
      }
    }
    return b;
  }

  return {
    name: "ModelCallLimitMiddleware",
    maxModelCalls: max,
    beforeModel(_request: ChatRequest, ctx: ModelMiddlewareContext): undefined {
      const n = ctx.node;
      const b = budgetFor(n.originRunId);
      let task = b.tasks.get(n.taskId);
      if (task === undefined) {
        task = { runId: n.runId, calls: 0, replay: 0, seen: 0 };
        b.tasks.set(n.taskId, task);
      } else if (task.runId !== n.runId) {
        task.runId = n.runId;
        task.replay = task.calls;
        task.seen = 0;
      }
      task.seen++;
      if (task.seen <= task.replay) return undefined;
      if (b.count >= max) {
        throw new ModelCallLimitError(
          `Model call limit reached: at most ${max} model call${max === 1 ? "" : "s"} per run (node "${n.node}" of graph "${n.graphName}", run ${n.originRunId})`,
          { maxModelCalls: max, runId: n.originRunId, node: n.node },
        );
      }
      b.count++;
      task.calls++;
      return undefined;
    },
    used(runId: string): number {
      return budgets.get(runId)?.count ?? 0;
    },
    onRunEnd(run: RunEndInfo): void {
      budgets.delete(run.originRunId);
    },
    tracked(): number {
      return budgets.size;
    },
  };
}
