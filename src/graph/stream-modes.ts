/**
 * The engine's view of a run, as stream events: the `"tasks"` mode (a task starts; a task's
 * result), the `"checkpoints"` mode (a superstep is committed: the thread's position) and the
 * `"debug"` mode (both, each wrapped with its type, superstep and time). Events of modes nobody
 * asked for are never built: the engine asks {@link watchesTasks} once per superstep.
 *
 * @module
 */
import type { JsonValue } from "../json/index.js";
import { copyState } from "../state/state-copy.js";
import type { EngineRunOptions, TaskResult, TaskSpec } from "./engine-types.js";

/** `data` of a `"tasks"` event sent when a task starts (before its node runs; once, whatever its retries). */
export interface TaskStartData {
  kind: "start";
  /** What the node receives: the state, with a `Send`'s payload laid over it (a copy). */
  input: Record<string, unknown>;
  /** The `Send` payload the task was started with, or `null` (scheduled by an edge or a `goto`). */
  payload: Record<string, unknown> | null;
}

/** `data` of a `"tasks"` event sent when a task has a result: it finished, paused, or failed. */
export interface TaskResultData {
  kind: "result";
  /** The update as prepared (`{}` when it wrote nothing); `null` when the task paused or failed. */
  update: Record<string, unknown> | null;
  /** Where it routed (`Command` goto, `Send`s): `{ name, payload }` each; `null` when it follows its edges (or paused, or failed). */
  routes: Array<{ name: string; payload: Record<string, unknown> | null }> | null;
  /** The interrupts it paused for (`[]` unless it paused), `{ key, value }` each. */
  interrupts: Array<{ key: string; value: JsonValue }>;
  /**
   * The failure: of the task itself (the run then fails with it), or the one an `onError`
   * handler turned into this result; `null` when it did not fail.
   */
  error: { name: string; message: string } | null;
  /** `true` when the result came from the node cache. */
  cached: boolean;
}

/**
 * `data` of a `"tasks"` event: a task's start or its result, told apart by `kind`.
 * @example
 * ```ts
 * for await (const e of graph.stream(input, { modes: ["tasks"] }))
 *   if (e.mode === "tasks" && e.data.kind === "result") console.log(e.node, e.data.update, e.data.error);
 * ```
 */
export type TaskEventData = TaskStartData | TaskResultData;

/**
 * `data` of a `"checkpoints"` event: the thread's position after a committed superstep (the
 * event's `step`), as `getState` shows it then. `S` is the graph's state (a subgraph's
 * checkpoints, `node: "<name>"`, hold the child's).
 *
 * A run that pauses at an interrupt (`ctx.interrupt`) ends with one more: the position it
 * paused at. Its `step` is the paused superstep, `values` the state before it, `next` and
 * `tasks` that superstep's tasks (each with `interrupts`, the ones still waiting for an
 * answer: `[]` for a task that finished), and `eventId` the stored end of the run (the
 * point `getState` and `fork` take to see or branch the pause). LangGraph likewise streams
 * a checkpoint whose tasks carry their pending interrupts.
 * @example
 * ```ts
 * for await (const e of graph.stream(input, { threadId: "t", modes: ["checkpoints"] }))
 *   if (e.mode === "checkpoints" && e.node === null) saved.push(e.data.eventId); // fork points
 * ```
 */
export interface CheckpointData<S = Record<string, unknown>> {
  /** The run's thread, or `null` for a run without one. */
  threadId: string | null;
  branchId: string;
  /**
   * The stored event of the commit (`step_committed`), the point `graph.fork(threadId, { eventId })`
   * and `getState(threadId, { eventId })` start from; `null` without a thread.
   */
  eventId: string | null;
  /** The state after the superstep (a copy). */
  values: S;
  /** Names of the nodes of the next superstep, in task order (`[]` when the run ends). */
  next: string[];
  /**
   * The tasks of the next superstep: `{ id, name, payload }` (`payload`: a `Send`'s, or
   * `null`); on the checkpoint of a pause, also `interrupts`: the task's pending interrupts.
   */
  tasks: Array<{
    id: string;
    name: string;
    payload: Record<string, unknown> | null;
    interrupts?: Array<{ key: string; value: unknown }>;
  }>;
}

/**
 * `data` of a `"debug"` event (LangGraph's debug mode): a task start (`"task"`), a task result
 * (`"task_result"`) or a commit (`"checkpoint"`), with the superstep of the graph that sent it
 * and the time it was sent (ISO 8601, UTC, ms precision).
 * @example
 * ```ts
 * for await (const e of graph.stream(input, { modes: ["debug"] }))
 *   if (e.mode === "debug") console.log(e.data.timestamp, e.data.type, e.data.step);
 * ```
 */
export type DebugEventData<S = Record<string, unknown>> =
  | { type: "task"; step: number; timestamp: string; payload: TaskStartData }
  | { type: "task_result"; step: number; timestamp: string; payload: TaskResultData }
  | { type: "checkpoint"; step: number; timestamp: string; payload: CheckpointData<S> };

/** Whether the run streams task events (`"tasks"` or `"debug"`). */
export function watchesTasks(opts: EngineRunOptions): boolean {
  return opts.emit !== null && (opts.modes.has("tasks") || opts.modes.has("debug"));
}

/** What sending an event needs of a run's options. */
type EmitOptions = Pick<EngineRunOptions, "emit" | "modes" | "threadId" | "branchId">;

function send(
  opts: EmitOptions,
  node: string | null,
  step: number,
  taskId: string | null,
  type: "task" | "task_result" | "checkpoint",
  data: TaskEventData | CheckpointData,
): void {
  const emit = opts.emit;
  if (emit === null) return;
  if (opts.modes.has(type === "checkpoint" ? "checkpoints" : "tasks"))
    emit({ mode: type === "checkpoint" ? "checkpoints" : "tasks", node, step, taskId, data });
  if (opts.modes.has("debug")) {
    emit({
      mode: "debug",
      node,
      step,
      taskId,
      data: { type, step, timestamp: new Date().toISOString(), payload: data },
    });
  }
}

/** Send a task's start (call only when {@link watchesTasks}). */
export function emitTaskStart(
  opts: EngineRunOptions,
  step: number,
  t: TaskSpec,
  state: Record<string, unknown>,
): void {
  send(opts, t.name, step, t.id, "task", {
    kind: "start",
    input: copyState(state, t.payload),
    payload: t.payload === null ? null : copyState(t.payload),
  });
}

/** Send a task's result, finished or paused (call only when {@link watchesTasks}). */
export function emitTaskResult(
  opts: EngineRunOptions,
  step: number,
  t: TaskSpec,
  r: TaskResult,
): void {
  send(
    opts,
    t.name,
    step,
    t.id,
    "task_result",
    r.kind === "done"
      ? {
          kind: "result",
          update: r.update ?? {},
          routes: r.routes,
          interrupts: [],
          error: r.error ? { name: r.error.name, message: r.error.message } : null,
          cached: r.cached === true,
        }
      : {
          kind: "result",
          update: null,
          routes: null,
          interrupts: r.interrupts.map((i) => ({ key: i.key, value: i.value })),
          error: null,
          cached: false,
        },
  );
}

/** Send the failure of a task whose node threw (call only when {@link watchesTasks}). */
export function emitTaskFailed(
  opts: EngineRunOptions,
  step: number,
  t: TaskSpec,
  e: unknown,
): void {
  const error =
    e instanceof Error
      ? { name: e.name, message: e.message }
      : { name: "Error", message: String(e) };
  send(opts, t.name, step, t.id, "task_result", {
    kind: "result",
    update: null,
    routes: null,
    interrupts: [],
    error,
    cached: false,
  });
}

/**
 * Send the commit of superstep `step` (`"checkpoints"`, `"debug"`): the state after it and the
 * tasks of the next one. `eventId` is the stored commit's id, or `null` without a thread.
 */
export function emitCheckpoint(
  opts: EmitOptions,
  step: number,
  state: Record<string, unknown>,
  next: readonly TaskSpec[],
  eventId: string | null,
): void {
  if (opts.emit === null || !(opts.modes.has("checkpoints") || opts.modes.has("debug"))) return;
  send(opts, null, step, null, "checkpoint", {
    threadId: opts.threadId,
    branchId: opts.branchId,
    eventId,
    values: copyState(state),
    next: next.map((t) => t.name),
    tasks: next.map((t) => ({
      id: t.id,
      name: t.name,
      payload: t.payload === null ? null : copyState(t.payload),
    })),
  });
}

/**
 * Send the checkpoint of a pause (`"checkpoints"`, `"debug"`): the paused superstep `step`,
 * the state before it, its tasks with their pending interrupts, and the stored end of the run.
 */
export function emitPauseCheckpoint(
  opts: EmitOptions,
  step: number,
  state: Record<string, unknown>,
  tasks: readonly TaskSpec[],
  interrupts: ReadonlyArray<{ key: string; value: unknown; taskId: string }>,
  eventId: string | null,
): void {
  if (opts.emit === null || !(opts.modes.has("checkpoints") || opts.modes.has("debug"))) return;
  send(opts, null, step, null, "checkpoint", {
    threadId: opts.threadId,
    branchId: opts.branchId,
    eventId,
    values: copyState(state),
    next: tasks.map((t) => t.name),
    tasks: tasks.map((t) => ({
      id: t.id,
      name: t.name,
      payload: t.payload === null ? null : copyState(t.payload),
      interrupts: interrupts
        .filter((i) => i.taskId === t.id)
        .map((i) => ({ key: i.key, value: copyState({ v: i.value }).v })),
    })),
  });
}
