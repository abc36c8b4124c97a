/**
 * Scheduling: the tasks of the next superstep, from edges (and their conditions), a task's
 * `Command.goto` routes and `Send`s, in the order written.
 *
 * @module
 */

import { type CompiledTarget, END_NAME } from "./compile.js";
import type {
  DoneResult,
  EngineGraph,
  RunPosition,
  TaskResult,
  TaskRoutes,
  TaskSpec,
} from "./engine-types.js";
import { settleNext, setWaiting } from "./joins.js";

/**
 * Start tasks for a run: the targets of START's edges, evaluated on `state` (a promise only
 * when a condition returns one).
 */
export function startTasks(
  graph: EngineGraph,
  state: Record<string, unknown>,
  step: number,
): TaskSpec[] | Promise<TaskSpec[]> {
  const out: TaskSpec[] = [];
  const seen = new Set<string>();
  const added = addTargets(graph.flow.start, state, out, seen, step);
  return added ? added.then(() => out) : out;
}

/**
 * Schedule a run's start tasks into `pos` (deferred ones wait when others run); a promise only
 * when a condition of START's edges returns one (a run's start awaits nothing it need not).
 */
export function scheduleStart(
  engine: EngineGraph,
  pos: RunPosition,
  step: number,
): Promise<void> | void {
  const tasks = startTasks(engine, pos.state, step);
  if (tasks instanceof Promise) return tasks.then((t) => placeStart(engine, pos, step, t));
  placeStart(engine, pos, step, tasks);
}

/** Put the start tasks `tasks` into `pos`. */
function placeStart(engine: EngineGraph, pos: RunPosition, step: number, tasks: TaskSpec[]): void {
  if (!engine.flow.waits) {
    pos.tasks = tasks;
    return;
  }
  const settled = settleNext(engine.flow, null, null, tasks, {}, step);
  pos.tasks = settled.next;
  setWaiting(pos, settled.waiting);
}

/**
 * Schedule the targets of edges, in order: synchronous (no promise, no await) unless a
 * condition returns a promise, since a fan-out calls this once for each of its tasks.
 */
function addTargets(
  targets: readonly CompiledTarget[],
  state: Record<string, unknown>,
  out: TaskSpec[],
  seen: Set<string>,
  step: number,
  from = 0,
): Promise<void> | void {
  for (let i = from; i < targets.length; i++) {
    const t = targets[i]!;
    if (t.kind === "static") {
      addNames(t.names, out, seen, step);
      continue;
    }
    const r = t.condition(state);
    if (r instanceof Promise) {
      return r.then((v) => {
        addNames(v ? t.target : t.otherwise, out, seen, step);
        return addTargets(targets, state, out, seen, step, i + 1);
      });
    }
    addNames(r ? t.target : t.otherwise, out, seen, step);
  }
}

function addNames(
  names: readonly string[],
  out: TaskSpec[],
  seen: Set<string>,
  step: number,
): void {
  for (const name of names) {
    if (name === END_NAME || seen.has(name)) continue;
    seen.add(name);
    out.push({ id: `${step}:${out.length}`, name, payload: null });
  }
}

/**
 * Schedule the superstep after `tasks` into `out`, in task order: a task's routes when it
 * routed, else its node's edges evaluated on `state`. Synchronous unless a condition returns
 * a promise.
 */
export function scheduleNext(
  graph: EngineGraph,
  tasks: readonly TaskSpec[],
  results: Map<string, TaskResult>,
  state: Record<string, unknown>,
  out: TaskSpec[],
  seen: Set<string>,
  step: number,
  from = 0,
): Promise<void> | void {
  for (let i = from; i < tasks.length; i++) {
    const t = tasks[i]!;
    const { routes } = results.get(t.id) as DoneResult;
    if (routes === null) {
      const cn = graph.flow.nodes.get(t.name)!;
      const pending = addTargets(cn.edges, state, out, seen, step);
      if (pending)
        return pending.then(() =>
          scheduleNext(graph, tasks, results, state, out, seen, step, i + 1),
        );
    } else addRoutes(routes, out, seen, step);
  }
}

/** Schedule a task's routes: each `Send` is a task of its own; a node named twice runs once. */
function addRoutes(
  routes: NonNullable<TaskRoutes>,
  out: TaskSpec[],
  seen: Set<string>,
  step: number,
): void {
  for (const r of routes) {
    if (r.payload !== null)
      out.push({ id: `${step}:${out.length}`, name: r.name, payload: r.payload });
    else if (!seen.has(r.name)) {
      seen.add(r.name);
      out.push({ id: `${step}:${out.length}`, name: r.name, payload: null });
    }
  }
}
