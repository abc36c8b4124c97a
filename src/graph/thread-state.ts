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
import { settleMessages } from "../state/add-messages.js";
import { applyUpdate, initialState, type StateDefinition } from "../state/define-state.js";
import { decodeUpdate, type UpdatePath } from "../state/update-codec.js";
import type { StoredEvent } from "../stores/types.js";
import type { Breakpoint } from "./breakpoints.js";
import type { TaskOutcome, TaskSpec } from "./engine-types.js";
import { decodeOutcome, decodeTasks, type StateUpdatedData } from "./event-codec.js";
import { decodeWaiting, setWaiting, type Waiting } from "./joins.js";
import { type ResumeBase, resumeBase, undoResume } from "./resume-base.js";

export {
  decodeOutcome,
  decodeTasks,
  encodeOutcome,
  encodeRunStarted,
  encodeStateUpdated,
  encodeTasks,
  type RunStartedData,
  type StateUpdatedData,
  type StoredTasks,
} from "./event-codec.js";

/** Version of the folded-thread format kept in snapshots. */
export const THREAD_FORMAT = 1;

/** A thread's position after some event (with what waits: join progress, deferred tasks). All JSON. */
export interface ThreadPosition extends Waiting {
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
  /**
   * While a run that gave answers has neither ended nor committed: what the superstep it
   * resumed had before it, put back if it fails there (resume-base.ts); absent otherwise.
   */
  resumed?: ResumeBase;
  /**
   * The branch the last run's `run_started` was written on; absent for positions a run built
   * in memory or an older snapshot (see {@link statusOn}).
   */
  runBranchId?: string;
}

/**
 * The status of the last run as seen from `branchId`: a run that is `"running"` but started on
 * another branch (an ancestor) was cut by the fork that made `branchId` — nothing runs on this
 * branch, so it reads `"interrupted"`, as a stopped run does (resumable; `next` is set).
 */
export function statusOn(position: ThreadPosition, branchId: string): ThreadPosition["lastStatus"] {
  const { lastStatus, runBranchId } = position;
  if (lastStatus === "running" && runBranchId !== undefined && runBranchId !== branchId)
    return "interrupted";
  return lastStatus;
}

/** What a `rolled_back` event does not set: where the log is (the fold keeps it). */
const ROLLBACK_KEEPS: ReadonlySet<string> = new Set(["lastEventId", "lastSeq"]);

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
  owned?: WeakSet<object>,
): void {
  if (data.init) pos.state = { ...pos.state, ...data.init };
  if (data.update)
    pos.state = applyUpdate(def, pos.state, data.update, data.asNode ?? "__update__", owned);
  if (data.next !== null) {
    pos.step = step + 1;
    pos.tasks = data.next;
    pos.known = {};
    pos.caches = {};
    pos.interrupts = [];
    pos.answers = {};
    if (pos.breakpoint) pos.breakpoint = { ...pos.breakpoint, step: pos.step };
    pos.passed = null;
    delete pos.resumed;
    setWaiting(pos, data.waiting ?? {});
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
  // The lists this fold made (a messages field merged into in place after its first copy:
  // each state of the fold replaces the last, nothing else holds them; see applyUpdateTo),
  // settled at the end.
  const owned = new WeakSet<object>();
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
            pos.state = applyUpdate(def, pos.state, update, "__input__", owned);
            pos.step = e.step ?? pos.step;
            pos.tasks = decodeTasks(pos.step, d.tasks ?? []);
            pos.known = {};
            pos.caches = {};
            pos.interrupts = [];
            pos.answers = {};
            pos.originRunId = e.runId;
            pos.breakpoint = null;
            pos.passed = null;
            delete pos.resumed;
            // New input starts the flow over: joins heard from before are forgotten.
            setWaiting(pos, decodeWaiting(d));
          } else if (pos.breakpoint) {
            // A run that continues the thread goes past the breakpoint it paused at.
            pos.passed = pos.breakpoint.step;
            pos.breakpoint = null;
          }
          const resume = (d.resume ?? {}) as Record<string, JsonValue>;
          // A run that gives answers is undone where it resumed if it fails there.
          if (Object.keys(resume).length > 0) pos.resumed = resumeBase(pos);
          else delete pos.resumed;
          pos.answers = { ...pos.answers, ...resume };
          pos.lastStatus = "running";
          pos.runBranchId = e.branchId;
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
          // The superstep's single task's result written with its commit: applied as it is
          // (`known` is dropped below; a task id is a new key of `known` at every superstep,
          // which a cold load would pay for at each commit it folds).
          const withResult = "update" in d || "routes" in d;
          if (withResult && order.length !== 1) {
            throw new Error(
              `superstep ${e.step} holds one task's result but had ${order.length} tasks`,
            );
          }
          const inline = withResult ? decodeOutcome(def, d, pos.state) : null;
          for (let t = 0; t < order.length; t++) {
            const task = order[t]!;
            const outcome = inline ?? pos.known[task.id];
            if (!outcome)
              throw new Error(
                `superstep ${e.step} commits task ${task.id}, whose result is not in the log`,
              );
            if (outcome.update)
              pos.state = applyUpdate(def, pos.state, outcome.update, task.name, owned);
          }
          pos.step = (e.step ?? pos.step) + 1;
          pos.tasks = decodeTasks(pos.step, d.next);
          pos.known = {};
          pos.caches = {};
          pos.interrupts = [];
          pos.answers = {};
          pos.breakpoint = null;
          pos.passed = null;
          delete pos.resumed;
          setWaiting(pos, decodeWaiting(d));
          break;
        }
        case "run_finished":
          pos.lastStatus = (d.status as "completed" | "interrupted") ?? "completed";
          delete pos.resumed;
          if (typeof d.toParent === "string") {
            // A subgraph's run that handed a Command to its parent ends there: nothing is next.
            pos.tasks = [];
            pos.known = {};
            pos.caches = {};
            pos.interrupts = [];
            pos.answers = {};
            setWaiting(pos, {});
          }
          if (d.breakpoint) pos.breakpoint = d.breakpoint as unknown as Breakpoint;
          break;
        case "run_failed":
          pos.lastStatus = "failed";
          if (pos.resumed) {
            undoResume(pos, pos.resumed);
            delete pos.resumed;
          }
          break;
        case "rolled_back": {
          // Busy-thread policy "rollback": the position before the runs it undid, as written.
          const before = d.position as Record<string, unknown>;
          if (before === null || typeof before !== "object" || typeof before.step !== "number")
            throw new Error("a rolled_back event holds no position");
          const target = pos as unknown as Record<string, unknown>;
          for (const k of Object.keys(target)) if (!ROLLBACK_KEEPS.has(k)) delete target[k];
          for (const [k, v] of Object.entries(before)) if (!ROLLBACK_KEEPS.has(k)) target[k] = v;
          delete pos.resumed;
          break;
        }
        case "state_updated": {
          const step = e.step ?? pos.step;
          applyStateUpdated(
            def,
            pos,
            step,
            {
              init: (d.init ?? null) as Record<string, unknown> | null,
              update: decodeOutcome(def, d).update,
              asNode: (d.asNode ?? null) as string | null,
              next: d.next === undefined ? null : decodeTasks(step + 1, d.next),
              waiting: decodeWaiting(d),
            },
            owned,
          );
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
  // The messages lists the fold merged into without an index of what they held are checked
  // against it now, once (addMessagesOwned).
  for (const key in pos.state) settleMessages(pos.state[key]);
  return pos;
}
