/**
 * A thread's position, folded from its event log: the state, the superstep that runs next,
 * and what is already known of it (finished tasks, caches, pending interrupts, answers).
 *
 * Pure functions over plain JSON data, used to load a thread, read its state at any event,
 * and resume it.
 *
 * @module
 */

import type { InterruptInfo } from "../errors/index.js";
import { StateStoreError } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import {
  applyUpdate,
  initialState,
  type PreparedUpdate,
  type StateDefinition,
} from "../state/define-state.js";
import { decodeUpdate, encodeUpdate, type UpdatePath } from "../state/update-codec.js";
import type { StoredEvent } from "../stores/types.js";
import type { Breakpoint } from "./breakpoints.js";
import type { TaskOutcome, TaskRoutes, TaskSpec } from "./engine-types.js";

/** Version of the folded-thread format kept in snapshots. */
export const THREAD_FORMAT = 1;

/** A thread's position after some event. All JSON. */
export interface ThreadPosition {
  format: number;
  /** The state after the last committed superstep. */
  state: Record<string, unknown>;
  /** The superstep that runs next (counted on the branch from 0). */
  step: number;
  /** Its tasks; empty when the thread has nothing left to run. */
  tasks: TaskSpec[];
  /** Results of its tasks that finished, by task id. */
  known: Record<string, TaskOutcome>;
  /** Saved caches of its tasks, by task id. */
  caches: Record<string, JsonObject>;
  /** Interrupts its tasks are waiting on. */
  interrupts: InterruptInfo[];
  /** Answers given so far to its interrupts, by key. */
  answers: Record<string, JsonValue>;
  /** Id of the last event folded in, or `null` for an empty thread. */
  lastEventId: string | null;
  /** Seq of the last event folded in (0 for an empty thread). */
  lastSeq: number;
  /** Id of the last run that took input (the run that later resumes continue), or `null`. */
  originRunId: string | null;
  /** Status of the last run: `"completed"`, `"interrupted"`, `"failed"`, `"running"`, or `null`. */
  lastStatus: "completed" | "interrupted" | "failed" | "running" | null;
  /** The static breakpoint the last run paused at (until a run continues past it); absent or `null` for none. */
  breakpoint?: Breakpoint | null;
  /** The superstep whose breakpoint a run continued past (until it commits); absent or `null` for none. */
  passed?: number | null;
}

/** The position of a thread with no events. */
export function emptyPosition(def: StateDefinition | null): ThreadPosition {
  return {
    format: THREAD_FORMAT,
    state: initialState(def),
    step: 0,
    tasks: [],
    known: {},
    caches: {},
    interrupts: [],
    answers: {},
    lastEventId: null,
    lastSeq: 0,
    originRunId: null,
    lastStatus: null,
  };
}

/** What a `run_started` event records (stored by {@link encodeRunStarted}). */
export interface RunStartedData {
  /**
   * The state the thread starts from, written by the first run of a thread (its fields'
   * defaults, so that a default made by a function, such as a time or an id, reads back as
   * it was); absent afterwards.
   */
  init?: Record<string, unknown> | null;
  /** The prepared input update, or `null` when the run continues the thread. */
  input: JsonObject | null;
  /** The start tasks scheduled from the input, or `null` when the run continues. */
  tasks: TaskSpec[] | null;
  /** Answers given with this run. */
  resume: Record<string, JsonValue>;
}

/**
 * A superstep's tasks as stored: the node's name for a task numbered as scheduled
 * (`"<step>:<index>"`) without a payload, the whole task otherwise.
 */
export type StoredTasks = (string | TaskSpec)[];

/** Store the tasks of superstep `step`. */
export function encodeTasks(step: number, tasks: readonly TaskSpec[]): JsonValue {
  const out: StoredTasks = new Array(tasks.length);
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i]!;
    out[i] = t.payload === null && t.id === `${step}:${i}` ? t.name : t;
  }
  return out as unknown as JsonValue;
}

/** Read back the tasks of superstep `step` written by {@link encodeTasks}. */
export function decodeTasks(step: number, stored: unknown): TaskSpec[] {
  if (!Array.isArray(stored)) throw new Error(`the tasks of superstep ${step} are not a list`);
  return stored.map((t, i) =>
    typeof t === "string" ? { id: `${step}:${i}`, name: t, payload: null } : (t as TaskSpec),
  );
}

/**
 * A task's outcome as stored (in `task_finished`, or inline in `step_committed`): `update`
 * (encoded by its fields' codecs, `null` when it wrote nothing), `same` (fields that repeat a
 * list held in another field) and `routes`, each left out when empty. `before`: the state the
 * outcome alone is applied to, for a single-task superstep (see `encodeUpdate`); `node`: the
 * task's node, named in errors.
 * @throws StateStoreError when a field's codec cannot store the update (see `encodeUpdate`).
 */
export function encodeOutcome(
  def: StateDefinition | null,
  outcome: TaskOutcome,
  before?: Record<string, unknown>,
  node?: string,
): JsonObject {
  const out: JsonObject = {};
  if (outcome.update) {
    const { update, same, extend } = encodeUpdate(def, outcome.update, before, node);
    out.update = update;
    if (same) out.same = same as unknown as JsonValue;
    if (extend) out.extend = extend;
  }
  if (outcome.routes !== null) out.routes = outcome.routes as unknown as JsonValue;
  if (!outcome.update && outcome.routes === null) out.update = null;
  if (outcome.error) out.error = { name: outcome.error.name, message: outcome.error.message };
  return out;
}

/**
 * Read back an outcome written by {@link encodeOutcome}; `state` is the state it was applied
 * to (the superstep's, for a single task's result written with its commit).
 */
export function decodeOutcome(
  def: StateDefinition | null,
  d: Record<string, unknown>,
  state?: Record<string, unknown>,
): TaskOutcome {
  const update = (d.update ?? null) as JsonObject | null;
  return {
    update:
      update === null
        ? null
        : decodeUpdate(
            def,
            update,
            d.same as Record<string, UpdatePath> | undefined,
            d.extend as Record<string, number> | undefined,
            state,
          ),
    routes: (d.routes ?? null) as TaskRoutes,
    ...(d.error ? { error: d.error as { name: string; message: string } } : {}),
  };
}

/**
 * The data of a `run_started` event: `init` (the state a new thread starts from), `input` and
 * `tasks` (the start tasks) when given, `resume` answers when any. `base`: the state the input
 * is applied to (lists that keep its items are stored as the items they add, see `encodeUpdate`).
 */
export function encodeRunStarted(
  def: StateDefinition | null,
  step: number,
  data: RunStartedData,
  base?: Record<string, unknown>,
): JsonObject {
  const out: JsonObject = {};
  if (data.init && Object.keys(data.init).length > 0) out.init = data.init as JsonObject;
  if (data.input !== null) {
    const { update, same, extend } = encodeUpdate(
      def,
      data.input as PreparedUpdate,
      undefined,
      "__input__",
      base,
    );
    out.input = update;
    if (same) out.same = same as unknown as JsonValue;
    if (extend) out.extend = extend;
    out.tasks = encodeTasks(step, data.tasks ?? []);
  }
  if (Object.keys(data.resume).length > 0) out.resume = data.resume;
  return out;
}

/**
 * What a `state_updated` event records (`graph.updateState`, or a `Command` given as run
 * input): an update applied through the reducers as written by `asNode` (`null`: by
 * updateState itself), and, when `next` is given, the superstep it leads to (the position
 * moves from `step` to `step + 1`).
 */
export interface StateUpdatedData {
  /** The state a new thread starts from (as in `run_started`), or `null`. */
  init: Record<string, unknown> | null;
  update: PreparedUpdate | null;
  asNode: string | null;
  /** The tasks of the superstep after `step`, or `null` when the tasks that were next stay next. */
  next: TaskSpec[] | null;
}

/** Store a `state_updated` event's data (see {@link StateUpdatedData}). @throws StateStoreError as {@link encodeOutcome}. */
export function encodeStateUpdated(
  def: StateDefinition | null,
  step: number,
  data: StateUpdatedData,
): JsonObject {
  const out: JsonObject = {};
  if (data.init && Object.keys(data.init).length > 0) out.init = data.init as JsonObject;
  Object.assign(
    out,
    encodeOutcome(
      def,
      { update: data.update, routes: null },
      undefined,
      data.asNode ?? "__update__",
    ),
  );
  if (data.asNode !== null) out.asNode = data.asNode;
  if (data.next !== null) out.next = encodeTasks(step + 1, data.next);
  return out;
}

/**
 * Apply a state update from outside a node to `pos` (in place), as the fold and a live run
 * both do: the update through the reducers; with `next`, the position moves to the superstep
 * after `step` (what was known of the old one is dropped; a pending breakpoint stays pending
 * at the new position, so continuing goes past it).
 * @throws StateUpdateError (or what a reducer throws) when the update cannot be applied.
 */
export function applyStateUpdated(
  def: StateDefinition | null,
  pos: ThreadPosition,
  step: number,
  data: StateUpdatedData,
): void {
  if (data.init) pos.state = { ...pos.state, ...data.init };
  if (data.update)
    pos.state = applyUpdate(def, pos.state, data.update, data.asNode ?? "__update__");
  if (data.next !== null) {
    pos.step = step + 1;
    pos.tasks = data.next;
    pos.known = {};
    pos.caches = {};
    pos.interrupts = [];
    pos.answers = {};
    if (pos.breakpoint) pos.breakpoint = { ...pos.breakpoint, step: pos.step };
    pos.passed = null;
  }
}

/** Fold events into a position; returns a new position (the given one is not changed). */
export function foldEvents(
  def: StateDefinition | null,
  from: ThreadPosition,
  events: readonly StoredEvent[],
): ThreadPosition {
  const pos: ThreadPosition = {
    ...from,
    known: { ...from.known },
    caches: { ...from.caches },
    interrupts: [...from.interrupts],
    answers: { ...from.answers },
  };
  for (const e of events) {
    const d = e.data as Record<string, unknown>;
    try {
      switch (e.type) {
        case "run_started": {
          const input = (d.input ?? null) as JsonObject | null;
          if (d.init !== undefined && d.init !== null) {
            // The values the thread started with, over the reader's defaults (a field added
            // to the definition since then starts with its default).
            pos.state = { ...pos.state, ...(d.init as Record<string, unknown>) };
          }
          if (input !== null) {
            const update = decodeUpdate(
              def,
              input,
              d.same as Record<string, UpdatePath>,
              d.extend as Record<string, number> | undefined,
              pos.state,
            );
            pos.state = applyUpdate(def, pos.state, update, "__input__");
            pos.step = e.step ?? pos.step;
            pos.tasks = decodeTasks(pos.step, d.tasks ?? []);
            pos.known = {};
            pos.caches = {};
            pos.interrupts = [];
            pos.answers = {};
            pos.originRunId = e.runId;
            pos.breakpoint = null;
            pos.passed = null;
          } else if (pos.breakpoint) {
            // A run that continues the thread goes past the breakpoint it paused at.
            pos.passed = pos.breakpoint.step;
            pos.breakpoint = null;
          }
          pos.answers = { ...pos.answers, ...((d.resume ?? {}) as Record<string, JsonValue>) };
          pos.lastStatus = "running";
          break;
        }
        case "task_finished":
          if (e.step === pos.step && e.taskId !== null) {
            pos.known[e.taskId] = decodeOutcome(def, d);
            delete pos.caches[e.taskId];
            // A task that paused earlier and has now finished waits on nothing.
            const taskId = e.taskId;
            pos.interrupts = pos.interrupts.filter((i) => i.taskId !== taskId);
          }
          break;
        case "task_cache":
          if (e.step === pos.step && e.taskId !== null) {
            pos.caches[e.taskId] = d.cache as JsonObject;
            if (d.discard === true) delete pos.known[e.taskId];
          }
          break;
        case "task_interrupted":
          if (e.step === pos.step && e.taskId !== null) {
            pos.caches[e.taskId] = d.cache as JsonObject;
            pos.interrupts = pos.interrupts.filter((i) => i.taskId !== e.taskId);
            for (const i of d.interrupts as { key: string; value: JsonValue }[]) {
              pos.interrupts.push({
                key: i.key,
                value: i.value,
                node: e.node ?? "",
                taskId: e.taskId,
              });
            }
          }
          break;
        case "step_committed": {
          // The superstep's tasks, in order (a log that names them must name these).
          const order = Array.isArray(d.order)
            ? (d.order as string[]).map(
                (id) => pos.tasks.find((t) => t.id === id) ?? { id, name: id, payload: null },
              )
            : pos.tasks;
          if (order.length === 0) throw new Error(`superstep ${e.step} commits no task`);
          if ("update" in d || "routes" in d) {
            // The superstep's single task, written with its commit.
            if (order.length !== 1) {
              throw new Error(
                `superstep ${e.step} holds one task's result but had ${order.length} tasks`,
              );
            }
            pos.known[order[0]!.id] = decodeOutcome(def, d, pos.state);
          }
          for (const task of order) {
            const outcome = pos.known[task.id];
            if (!outcome)
              throw new Error(
                `superstep ${e.step} commits task ${task.id}, whose result is not in the log`,
              );
            if (outcome.update) pos.state = applyUpdate(def, pos.state, outcome.update, task.name);
          }
          pos.step = (e.step ?? pos.step) + 1;
          pos.tasks = decodeTasks(pos.step, d.next);
          pos.known = {};
          pos.caches = {};
          pos.interrupts = [];
          pos.answers = {};
          pos.breakpoint = null;
          pos.passed = null;
          break;
        }
        case "run_finished":
          pos.lastStatus = (d.status as "completed" | "interrupted") ?? "completed";
          if (d.breakpoint) pos.breakpoint = d.breakpoint as unknown as Breakpoint;
          break;
        case "run_failed":
          pos.lastStatus = "failed";
          break;
        case "state_updated": {
          const step = e.step ?? pos.step;
          applyStateUpdated(def, pos, step, {
            init: (d.init ?? null) as Record<string, unknown> | null,
            update: decodeOutcome(def, d).update,
            asNode: (d.asNode ?? null) as string | null,
            next: d.next === undefined ? null : decodeTasks(step + 1, d.next),
          });
          break;
        }
        default:
          break;
      }
    } catch (err) {
      throw new StateStoreError(
        `Thread "${e.threadId}" cannot be rebuilt at event ${e.id} (${e.type}): ${(err as Error).message}. The log is damaged or was written by an incompatible version.`,
        { threadId: e.threadId, branchId: e.branchId, cause: err },
      );
    }
    pos.lastEventId = e.id;
    pos.lastSeq = e.seq;
  }
  return pos;
}
