/**
 * A resume is all or nothing: a run that gives answers and fails in the superstep it resumed
 * (an answer refused by the node — edited arguments the tool's schema rejects, an approval
 * answer of the wrong shape — or any other failure there) leaves that superstep as it was
 * before the run: the answers it gave are not kept, and what its paused tasks saved while it
 * ran (`ctx.cache`, a result) is dropped, so the same interrupts are pending and a new answer
 * is the one used. Tasks that were not paused keep what they finished (a failed superstep's
 * finished tasks do not run again).
 *
 * The fold keeps the part of the position such a run can change ({@link ResumeBase}) from its
 * `run_started` until the run ends or commits, and puts it back at its `run_failed`; the log
 * alone says what is undone, so a cold load and a warm one agree.
 *
 * Only a `run_failed` undoes. A resume whose process died (its `run_started` has no end in the
 * log) keeps its answers and caches: the next `invoke(null)` runs the paused tasks with them
 * (how a worker continues a taken-over run); a new answer for a key replaces the kept one.
 *
 * @module
 */
import type { InterruptInfo } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";

/** What a superstep's paused tasks had when a run resumed it with answers. All JSON. */
export interface ResumeBase {
  /** The superstep resumed. */
  step: number;
  /** The interrupts pending then. */
  interrupts: InterruptInfo[];
  /** The answers given then (before this run's). */
  answers: Record<string, JsonValue>;
  /** The saved caches of the paused tasks then, by task id. */
  caches: Record<string, JsonObject>;
}

/** The part of a position a resume changes (a `ThreadPosition`, structurally). */
interface Resumable {
  step: number;
  known: Record<string, unknown>;
  caches: Record<string, JsonObject>;
  interrupts: InterruptInfo[];
  answers: Record<string, JsonValue>;
}

/** What `pos` has that a run resuming it with answers may change; read before its answers are added. */
export function resumeBase(pos: Resumable): ResumeBase {
  const caches: Record<string, JsonObject> = {};
  for (const i of pos.interrupts) {
    const cache = pos.caches[i.taskId];
    if (cache !== undefined) caches[i.taskId] = cache;
  }
  return {
    step: pos.step,
    interrupts: [...pos.interrupts],
    answers: { ...pos.answers },
    caches,
  };
}

/**
 * Undo a failed resume in `pos` (in place) when it is still at the superstep `base` was taken
 * at: the pending interrupts and answers of `base`, and for each task paused then, its cache
 * of then and no result.
 */
export function undoResume(pos: Resumable, base: ResumeBase): void {
  if (base.step !== pos.step) return;
  for (const taskId of new Set(base.interrupts.map((i) => i.taskId))) {
    delete pos.known[taskId];
    const cache = base.caches[taskId];
    if (cache === undefined) delete pos.caches[taskId];
    else pos.caches[taskId] = cache;
  }
  pos.interrupts = [...base.interrupts];
  pos.answers = { ...base.answers };
}
