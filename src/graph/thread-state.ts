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
import { applyUpdate, initialState, type StateDefinition } from "../state/define-state.js";
import type { StoredEvent } from "../stores/types.js";
import type { TaskOutcome, TaskSpec } from "./engine.js";

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

/** Data of a `run_started` event. */
export interface RunStartedData {
  /** The prepared input update, or `null` when the run continues the thread. */
  input: JsonObject | null;
  /** The start tasks scheduled from the input, or `null` when the run continues. */
  tasks: TaskSpec[] | null;
  /** Answers given with this run. */
  resume: Record<string, JsonValue>;
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
          const data = d as unknown as RunStartedData;
          if (data.input !== null) {
            pos.state = applyUpdate(def, pos.state, data.input, "__input__");
            pos.step = e.step ?? pos.step;
            pos.tasks = data.tasks ?? [];
            pos.known = {};
            pos.caches = {};
            pos.interrupts = [];
            pos.answers = {};
            pos.originRunId = e.runId;
          }
          pos.answers = { ...pos.answers, ...(data.resume ?? {}) };
          pos.lastStatus = "running";
          break;
        }
        case "task_finished":
          if (e.step === pos.step && e.taskId !== null) {
            pos.known[e.taskId] = d.outcome as unknown as TaskOutcome;
            delete pos.caches[e.taskId];
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
          const order = d.order as string[];
          if (d.inline) Object.assign(pos.known, d.inline as Record<string, TaskOutcome>);
          for (const id of order) {
            const outcome = pos.known[id];
            if (!outcome)
              throw new Error(
                `superstep ${e.step} commits task ${id}, whose result is not in the log`,
              );
            const task = pos.tasks.find((t) => t.id === id);
            if (outcome.update)
              pos.state = applyUpdate(def, pos.state, outcome.update, task?.name ?? id);
          }
          pos.step = (e.step ?? pos.step) + 1;
          pos.tasks = d.next as unknown as TaskSpec[];
          pos.known = {};
          pos.caches = {};
          pos.interrupts = [];
          pos.answers = {};
          break;
        }
        case "run_finished":
          pos.lastStatus = (d.status as "completed" | "interrupted") ?? "completed";
          break;
        case "run_failed":
          pos.lastStatus = "failed";
          break;
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
