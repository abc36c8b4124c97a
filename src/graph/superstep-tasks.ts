/**
 * A superstep's tasks once known: several run concurrently ({@link runTasksConcurrently}, the
 * engine runs a single task itself), and each finished task's update is streamed and given to
 * the journal ({@link afterTask}). The several-task path is a function of its own so that a
 * superstep of one task (an agent's every step) allocates none of its closures and state.
 *
 * @module
 */
import { LeaseLostError, NodeTimeoutError, RunCancelledError } from "../errors/index.js";
import type {
  EngineGraph,
  EngineRunOptions,
  StepRun,
  TaskResult,
  TaskSpec,
} from "./engine-types.js";
import { frozenValue } from "./frozen-value.js";
import { runTask } from "./run-task.js";
import { emitTaskFailed, emitTaskResult, emitTaskStart } from "./stream-modes.js";
import type { StreamEvent } from "./types.js";

/** The error a run ends with when its signal fired: the signal's own reason when it is one of ours. */
export function cancelled(graph: EngineGraph, signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (
    reason instanceof RunCancelledError ||
    reason instanceof NodeTimeoutError ||
    reason instanceof LeaseLostError
  )
    return reason;
  return new RunCancelledError(`Run of graph "${graph.name}" was cancelled`, {
    graph: graph.name,
    cause: reason,
  });
}

/**
 * Run `toRun` (two tasks or more) of superstep `run.step` concurrently; each finishes into
 * `results`. The first failure fires the siblings' signal (the superstep's own, joined to the
 * run's) and ends the superstep with that failure.
 * @throws the first task's failure, or the run's cancellation.
 */
export function runTasksConcurrently(
  run: StepRun,
  toRun: readonly TaskSpec[],
  results: Map<string, TaskResult>,
  watch: boolean,
): Promise<void> {
  const { graph, pos, opts, step } = run;
  const stop = new AbortController();
  const siblings: StepRun = { ...run, opts: { ...opts, signal: stop.signal } };
  return new Promise<void>((resolve, reject) => {
    let left = toRun.length;
    let failed = false;
    const onAbort = () => {
      stop.abort(opts.signal.reason);
      if (!failed) {
        failed = true;
        reject(cancelled(graph, opts.signal));
      }
    };
    opts.signal.addEventListener("abort", onAbort, { once: true });
    const fail = (e: unknown, t: TaskSpec) => {
      if (failed) return;
      failed = true;
      opts.signal.removeEventListener("abort", onAbort);
      stop.abort(
        new RunCancelledError(
          `Run of graph "${graph.name}" stopped: node "${t.name}" (task ${t.id}) failed`,
          { graph: graph.name, cause: e },
        ),
      );
      reject(e);
    };
    const done = () => {
      if (--left === 0 && !failed) {
        opts.signal.removeEventListener("abort", onAbort);
        resolve();
      }
    };
    // A task's result goes into the map as soon as it is known; a synchronous node's result
    // (and its pending write, when the journal has nothing to await) costs no promise.
    const finish = (t: TaskSpec, res: TaskResult) => {
      if (failed) return;
      results.set(t.id, res);
      if (watch) emitTaskResult(opts, step, t, res);
      let after: Promise<void> | void;
      try {
        after = afterTask(opts, step, t, res);
      } catch (e) {
        fail(e, t);
        return;
      }
      if (after) after.then(done, (e) => fail(e, t));
      else done();
    };
    // With maxConcurrency below the task count, a finished task's slot starts the next one
    // (in task order; a loop, not recursion, so synchronous nodes use no stack).
    const limit = opts.maxConcurrency ?? 0;
    const limited = limit > 0 && limit < toRun.length;
    let next = 0;
    let running = 0;
    let pumping = false;
    const failTask = (e: unknown, t: TaskSpec) => {
      if (watch && !failed) emitTaskFailed(opts, step, t, e);
      fail(e, t);
    };
    const start = (t: TaskSpec): boolean => {
      let r: TaskResult | Promise<TaskResult>;
      if (watch) emitTaskStart(opts, step, t, pos.state);
      try {
        r = runTask(siblings, t);
      } catch (e) {
        failTask(e, t);
        return false;
      }
      if (r instanceof Promise)
        r.then(
          (res) => {
            if (limited) release();
            finish(t, res);
          },
          (e) => failTask(e, t),
        );
      else {
        if (limited) release();
        finish(t, r);
      }
      return true;
    };
    const pump = () => {
      if (pumping) return;
      pumping = true;
      while (!failed && next < toRun.length && running < limit) {
        running++;
        if (!start(toRun[next++]!)) break;
      }
      pumping = false;
    };
    const release = () => {
      running--;
      pump();
    };
    if (limited) pump();
    else for (const t of toRun) if (!start(t)) return;
  });
}

/** Emit a finished task's update and give the journal its pending write (a promise only when it has one). */
export function afterTask(
  opts: EngineRunOptions,
  step: number,
  t: TaskSpec,
  r: TaskResult,
  defer = false,
): Promise<void> | void {
  // A Command.PARENT is neither an update of this graph nor stored: the run ends with it.
  if (r.kind !== "done" || r.toParent) return;
  if (opts.emit && opts.modes.has("updates")) {
    const e: StreamEvent = {
      mode: "updates",
      node: t.name,
      step,
      taskId: t.id,
      data: r.update ?? {},
    };
    if (r.cached) e.cached = true;
    opts.emit(e);
  }
  if (opts.journal) {
    // The log keeps what the node returned as it was when it returned, and the run goes on
    // with that same copy: nothing the node does to its objects afterwards reaches either
    // (an update that is one already, and was sent to no stream, is kept as it is).
    if (opts.emit !== null || r.owned !== true) r.update = frozenValue(r.update);
    r.routes = frozenValue(r.routes);
    return opts.journal.taskFinished(step, t, r, defer);
  }
}
