/**
 * The data of the events a run's journal (`journal.ts`) writes at its start and its end:
 * plain functions of what the run knows, so that `ThreadJournal` only orders and appends them.
 * The state's own encodings (`run_started`, a task's outcome, `state_updated`) are in
 * `thread-state.ts`.
 *
 * @module
 */
import type { InterruptInfo } from "../errors/index.js";
import { StateStoreError } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { StateDefinition } from "../state/define-state.js";
import type { NewEvent } from "../stores/types.js";
import type { Breakpoint } from "./breakpoints.js";
import type { TaskOutcome, TaskResult, TaskSpec } from "./engine-types.js";
import { encodeOutcome } from "./thread-state.js";

/** Makes one event of the run (its run id and parent task added). */
export type MakeEvent = (
  type: NewEvent["type"],
  step: number | null,
  taskId: string | null,
  node: string | null,
  data: JsonValue,
) => NewEvent;

/**
 * @throws StateStoreError for a resume answer that is `undefined` (JSON would drop it, and a
 *   later load would ask again).
 */
export function checkResumeAnswers(
  resume: Record<string, unknown>,
  threadId: string,
  branchId: string,
): void {
  for (const key in resume) {
    if (resume[key] === undefined) {
      throw new StateStoreError(
        `Cannot store the resume answers: resume.${key} is not JSON (undefined is not JSON (use null))`,
        { field: `resume.${key}`, threadId, branchId },
      );
    }
  }
}

/**
 * A `step_committed` event's `data` with the superstep's single task's result written inside
 * (its routes are not written: `next` already holds where they led); `before` is the state at
 * the start of the superstep. The result's keys are added to `data` itself (after its own: a
 * copy of both, spread, cost a sixth of a superstep of the `wide` bench), which is returned.
 * @throws what `encodeOutcome` throws for a result its codecs cannot store (`data` may then
 *   hold part of it).
 */
export function withTaskResult(
  def: StateDefinition | null,
  data: JsonObject,
  outcome: TaskOutcome,
  before: Record<string, unknown>,
  node: string,
): JsonObject {
  const { update, error } = outcome;
  return encodeOutcome(
    def,
    error ? { update, routes: null, error } : { update, routes: null },
    before,
    node,
    data,
  );
}

/**
 * The events of a pause on interrupts: a `task_interrupted` for each task of `tasks` that
 * `results` says was interrupted, then `run_finished` (status `"interrupted"`, with the
 * `interrupts` and the child's `breakpoint` when a subgraph's child paused at one).
 */
export function interruptedEvents(
  event: MakeEvent,
  step: number,
  tasks: readonly TaskSpec[],
  results: Map<string, TaskResult>,
  interrupts: InterruptInfo[],
  breakpoint: Breakpoint | null,
): NewEvent[] {
  const events: NewEvent[] = [];
  for (const t of tasks) {
    const r = results.get(t.id);
    if (r?.kind === "interrupted") {
      events.push(
        event("task_interrupted", step, t.id, t.name, {
          interrupts: r.interrupts,
          cache: r.cache,
        } as unknown as JsonValue),
      );
    }
  }
  events.push(
    event("run_finished", step, null, null, {
      status: "interrupted",
      interrupts: interrupts as unknown as JsonValue,
      // A subgraph's child paused at a static breakpoint (see childBreakpoint).
      ...(breakpoint ? { breakpoint: breakpoint as unknown as JsonValue } : {}),
    }),
  );
  return events;
}

/** `run_finished` of a run stopped because run `by` asked for the thread. */
export function stoppedData(by: string): JsonObject {
  return { status: "interrupted", interrupts: [], stoppedBy: by };
}

/** `run_finished` of a run paused at a static breakpoint. */
export function pausedData(breakpoint: Breakpoint): JsonObject {
  return { status: "interrupted", interrupts: [], breakpoint: breakpoint as unknown as JsonValue };
}

/** `run_finished` of a run that ended with node `node`'s `Command.PARENT` (`command` encoded). */
export function handedToParentData(
  node: string,
  command: JsonObject,
  parentTask: string | null,
): JsonObject {
  const data: JsonObject = { status: "completed", toParent: node, command };
  if (parentTask !== null) data.parentTask = parentTask;
  return data;
}

/** `run_failed`: the error's name and message (`"Error"` and the error itself when it has none). */
export function failedData(error: unknown): JsonObject {
  const e = error as { name?: unknown; message?: unknown };
  return {
    error: { name: String(e?.name ?? "Error"), message: String(e?.message ?? error) },
  };
}
