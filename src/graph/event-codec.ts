/**
 * What the events of a thread's log hold, and how: a superstep's tasks, a task's outcome, the
 * data of `run_started` and `state_updated`. Pure functions over plain JSON data; the fold
 * (`thread-state.ts`) reads them back.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/index.js";
import type { PreparedUpdate, StateDefinition } from "../state/define-state.js";
import { decodeUpdate, encodeUpdate, type UpdatePath } from "../state/update-codec.js";
import type { TaskOutcome, TaskRoutes, TaskSpec } from "./engine-types.js";
import { encodeWaiting, type Waiting } from "./joins.js";

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
  /** Deferred start tasks that wait (a flow with deferred nodes), or absent. */
  waiting?: Waiting | null;
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
 * task's node, named in errors; `into`: the object the keys are added to (and returned),
 * default a new one.
 * @throws StateStoreError when a field's codec cannot store the update (see `encodeUpdate`).
 */
export function encodeOutcome(
  def: StateDefinition | null,
  outcome: TaskOutcome,
  before?: Record<string, unknown>,
  node?: string,
  into: JsonObject = {},
): JsonObject {
  const out = into;
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
    Object.assign(out, encodeWaiting(data.waiting));
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
  /** With `next`: what waits after the update (joins heard from, deferred tasks); absent for nothing. */
  waiting?: Waiting | null;
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
  if (data.next !== null) {
    out.next = encodeTasks(step + 1, data.next);
    Object.assign(out, encodeWaiting(data.waiting));
  }
  return out;
}
