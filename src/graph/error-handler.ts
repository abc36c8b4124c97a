/**
 * Node error handlers: `node(fn, { onError })` and the graph's default `onError` turn a
 * node's failure, after its retries are used up, into an update or a `Command` (LangGraph
 * Python's `error_handler`). Never for interrupts or a cancelled run. The failure is recorded
 * with the task's result (`error: { name, message }`); a handler that throws fails the run
 * with `GraphExecutionError` whose `cause` is an `AggregateError` of both errors.
 *
 * @module
 */
import { GraphExecutionError, NodeTimeoutError } from "../errors/index.js";
import { copyState } from "../state/state-copy.js";
import type { CompiledNode } from "./compile.js";
import type { StepRun, TaskResult, TaskSpec } from "./engine-types.js";
import { interpret } from "./interpret.js";
import type { NodeReturn } from "./node.js";

/** What an error handler is told besides the error and the state. */
export interface ErrorHandlerContext {
  /** The graph's name. */
  graph: string;
  /** The failed node. */
  node: string;
  /** Its superstep. */
  step: number;
  /** Its task id. */
  taskId: string;
}

/**
 * A node's error handler: the error (after retries), the state the node received (its own
 * copy, a `Send` payload over it) and where it failed; returns what the node would have
 * returned instead (an update, a `Command` routing within the node's `goto`, nothing), sync
 * or async.
 */
export type ErrorHandler<S = Record<string, unknown>> = {
  // A method's parameters are bivariant, as `Node.handler`'s are: a node of a narrower state
  // is still a node.
  handle(error: Error, state: S, ctx: ErrorHandlerContext): NodeReturn<S> | Promise<NodeReturn<S>>;
}["handle"];

/** A recorded failure: the error's name and message. */
export interface TaskError {
  name: string;
  message: string;
}

/**
 * Run `task` (a task's run under its policies) and, when it fails with an error the handler
 * may handle, settle the failure through `handler` into a done result carrying `error`.
 */
export function withErrorHandler(
  run: StepRun,
  t: TaskSpec,
  cn: CompiledNode,
  handler: ErrorHandler,
  task: () => TaskResult | Promise<TaskResult>,
): TaskResult | Promise<TaskResult> {
  let r: TaskResult | Promise<TaskResult>;
  try {
    r = task();
  } catch (e) {
    return handle(run, t, cn, handler, e);
  }
  if (r instanceof Promise) return r.catch((e) => handle(run, t, cn, handler, e));
  return r;
}

async function handle(
  run: StepRun,
  t: TaskSpec,
  cn: CompiledNode,
  handler: ErrorHandler,
  error: unknown,
): Promise<TaskResult> {
  const { graph, opts, pos, step } = run;
  // A cancelled run, or a failure that is not an Error (kept as the cause of a
  // GraphExecutionError already), is not handled; a timeout is, once the run still goes on.
  if (opts.signal.aborted && !(error instanceof NodeTimeoutError)) throw error;
  if (!(error instanceof Error)) throw error;
  const input = copyState(pos.state, t.payload);
  let ret: unknown;
  try {
    ret = await handler(error, input, { graph: graph.name, node: t.name, step, taskId: t.id });
  } catch (e) {
    throw new GraphExecutionError(
      `Node "${t.name}" of graph "${graph.name}" failed (${error.name}: ${error.message}) and its onError handler threw too (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}); both are in the cause`,
      {
        graph: graph.name,
        node: t.name,
        step,
        cause: new AggregateError(
          [error, e],
          `node "${t.name}": the error and its handler's error`,
        ),
      },
    );
  }
  const done = interpret(run, cn, t, input, ret);
  return { ...done, error: { name: error.name, message: error.message } };
}
