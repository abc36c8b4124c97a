/**
 * The superstep engine: the run loop. Each superstep runs its tasks concurrently
 * (`run-task.ts`; several at once in `superstep-tasks.ts`), applies their updates in task order (`commit.ts`), and schedules the next
 * superstep from edges, `Command`s and `Send`s (`schedule.ts`). Its data is in `engine-types.ts`.
 *
 * @module
 */

import { type InterruptInfo, StepLimitError } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";
import { type AbortRace, abortRace } from "./abort-race.js";
import { breakpointAfter, breakpointBefore } from "./breakpoints.js";
import { applyUpdates, commitStep, undoApplied } from "./commit.js";
import type { EmitMode, StreamMode, TaskHost } from "./context.js";
import type {
  EngineGraph,
  EngineRunOptions,
  LoopEnd,
  RunPosition,
  StepRun,
  TaskResult,
  TaskSpec,
} from "./engine-types.js";
import { settleNext, type Waiting } from "./joins.js";
import { ParentCommand } from "./parent-command.js";
import { runTask } from "./run-task.js";
import { scheduleNext } from "./schedule.js";
import {
  emitCheckpoint,
  emitTaskFailed,
  emitTaskResult,
  emitTaskStart,
  watchesTasks,
} from "./stream-modes.js";
import type { SubAgents } from "./sub-agents.js";
import { afterTask, cancelled, runTasksConcurrently } from "./superstep-tasks.js";
import { endWithError, startSpan } from "./tracing.js";
import type { StreamEvent } from "./types.js";

export type {
  DoneResult,
  EngineGraph,
  EngineRunOptions,
  LoopEnd,
  RunJournal,
  RunPosition,
  StepRun,
  TaskOutcome,
  TaskResult,
  TaskRoutes,
  TaskSpec,
} from "./engine-types.js";
export { startTasks } from "./schedule.js";

/**
 * Run supersteps from `pos` until nothing is left to run, a task pauses, or a task fails.
 * `pos` is updated in place after each committed superstep.
 */
export async function runLoop(
  graph: EngineGraph,
  pos: RunPosition,
  opts: EngineRunOptions,
): Promise<LoopEnd> {
  // (The race closed here, in the loop's own frame: no second async function a run.)
  const race = abortRace(
    opts.signal,
    () => cancelled(graph, opts.signal),
    opts.journal?.leaseAbort ?? null,
  );
  try {
    let stepsThisRun = 0;
    const host = new RunHost(opts);
    while (pos.tasks.length > 0) {
      if (opts.signal.aborted) throw cancelled(graph, opts.signal);
      if (opts.breakpoints) {
        const breakpoint = breakpointBefore(
          opts.breakpoints,
          pos.tasks,
          pos.step,
          pos.passed ?? null,
        );
        if (breakpoint)
          return { status: "interrupted", interrupts: [], results: new Map(), breakpoint };
      }
      if (stepsThisRun >= opts.maxSteps) {
        const pending = pos.tasks.map((t) => t.name);
        throw new StepLimitError(
          `Graph "${graph.name}" reached its limit of ${opts.maxSteps} supersteps with nodes still to run (${[...new Set(pending)].join(", ")}); raise maxSteps, or check for a loop that never reaches END`,
          { graph: graph.name, maxSteps: opts.maxSteps, pending },
        );
      }
      const step = pos.step;
      let results: Map<string, TaskResult>;
      if (graph.tracer) {
        const s = startSpan(
          graph.tracer,
          `nodestep.superstep ${step}`,
          { "nodestep.step": step, "nodestep.tasks": pos.tasks.length },
          opts.traceContext,
        );
        try {
          results = await runSuperstep(
            graph,
            pos,
            { ...opts, traceContext: s.context },
            host,
            step,
            race,
          );
          s.span.end();
        } catch (e) {
          endWithError(s.span, e);
          throw e;
        }
      } else results = await runSuperstep(graph, pos, opts, host, step, race);
      let interrupted = false;
      let toParent = false;
      for (const r of results.values()) {
        if (r.kind === "interrupted") interrupted = true;
        else if (r.toParent) toParent = true;
      }
      if (toParent) {
        // A node returned Command.PARENT: the run ends there, its superstep not applied.
        for (const t of pos.tasks) {
          const r = results.get(t.id);
          if (r?.kind === "done" && r.toParent)
            throw new ParentCommand(r.toParent, t.name, graph.name);
        }
      }
      if (interrupted) {
        const interrupts: InterruptInfo[] = [];
        for (const t of pos.tasks) {
          const r = results.get(t.id);
          if (r?.kind === "interrupted")
            for (const i of r.interrupts)
              interrupts.push({ key: i.key, value: i.value, node: t.name, taskId: t.id });
        }
        return { status: "interrupted", interrupts, results };
      }
      // Apply the updates in task order, schedule the next superstep, and commit it.
      const pending = applyUpdates(graph, pos, results, opts.journal, step);
      const applied = pending instanceof Promise ? await pending : pending;
      const { state } = applied;
      let next: TaskSpec[] = [];
      let waiting: Waiting | null = null;
      try {
        const scheduled = scheduleNext(graph, pos.tasks, results, state, next, new Set(), step + 1);
        if (scheduled) await scheduled;
        // Joins and deferred nodes (only in flows that have them, or a position that holds some).
        if (graph.flow.waits || pos.deferred) {
          const settled = settleNext(graph.flow, pos.tasks, results, next, pos, step + 1);
          next = settled.next;
          waiting = settled.waiting;
        }
        if (opts.onStepCommitted)
          await opts.onStepCommitted(step, pos.tasks, next, state, applied.before, waiting);
      } catch (e) {
        // Written in place: the position's state goes back to what it was before the superstep.
        undoApplied(applied);
        throw e;
      }
      const ran = pos.tasks;
      commitStep(pos, state, next, opts, step, waiting);
      stepsThisRun++;
      if (opts.emit)
        emitCheckpoint(opts, step, pos.state, pos.tasks, opts.journal?.lastEventId ?? null);
      if (opts.breakpoints) {
        const breakpoint = breakpointAfter(opts.breakpoints, ran, next, step);
        if (breakpoint)
          return { status: "interrupted", interrupts: [], results: new Map(), breakpoint };
      }
      // Another run asked for the thread (onBusy "interrupt"): stop at this boundary.
      const by = opts.journal?.stoppedBy;
      if (by && pos.tasks.length > 0) return { status: "stopped", by };
    }
    return { status: "completed" };
  } finally {
    race.close();
  }
}

/**
 * What a run's tasks reach of it (streaming, the journal, sub-agents). A class, not an object
 * of arrows: a named closure costs a name set on it in the build (esbuild's keepNames), about
 * a third of a µs each, four per run.
 */
class RunHost implements TaskHost {
  constructor(readonly opts: EngineRunOptions) {}

  wants(mode: StreamMode): boolean {
    return this.opts.emit !== null && this.opts.modes.has(mode);
  }

  emit(mode: EmitMode, node: string, step: number, taskId: string, data: unknown): void {
    this.opts.emit?.({ mode, node, step, taskId, data });
  }

  async saveCache(taskId: string, node: string, step: number, cache: JsonObject): Promise<void> {
    if (this.opts.journal) await this.opts.journal.saveCache(step, taskId, node, cache);
  }

  forward(event: StreamEvent): void {
    this.opts.emit?.(event);
  }

  subAgents(): SubAgents {
    return this.opts.subAgents();
  }
}

async function runSuperstep(
  graph: EngineGraph,
  pos: RunPosition,
  opts: EngineRunOptions,
  host: TaskHost,
  step: number,
  race: AbortRace,
): Promise<Map<string, TaskResult>> {
  const run: StepRun = { graph, pos, opts, host, step };
  const results = new Map<string, TaskResult>();
  const tasks = pos.tasks;
  let toRun: readonly TaskSpec[] = tasks; // (read only: with no result known, the position's list)
  if (pos.known.size > 0) {
    const left: TaskSpec[] = [];
    for (const t of tasks) {
      const known = pos.known.get(t.id);
      if (known) results.set(t.id, { kind: "done", update: known.update, routes: known.routes });
      else left.push(t);
    }
    toRun = left;
  }
  if (toRun.length === 0) return results;
  // "tasks" / "debug" streamed: each task's start, result and failure (stream-modes.ts).
  const watch = watchesTasks(opts);
  if (toRun.length === 1) {
    const t = toRun[0]!;
    if (watch) emitTaskStart(opts, step, t, pos.state);
    try {
      const r = runTask(run, t);
      results.set(t.id, r instanceof Promise ? await race.race(r) : r);
    } catch (e) {
      if (watch) emitTaskFailed(opts, step, t, e);
      throw e;
    }
    if (watch) emitTaskResult(opts, step, t, results.get(t.id)!);
    const after = afterTask(opts, step, t, results.get(t.id)!, true); // (held: no write to await)
    if (after) await after;
    return results;
  }
  await runTasksConcurrently(run, toRun, results, watch);
  return results;
}
