/**
 * Committing a superstep: its tasks' updates applied in task order (the order they were
 * scheduled, not the order they finished) to one fresh copy of the state, then the run's
 * position moved on to the next superstep.
 *
 * @module
 */

import { applyUpdateTo } from "../state/define-state.js";
import { copyState } from "../state/state-copy.js";
import type {
  DoneResult,
  EngineGraph,
  EngineRunOptions,
  RunJournal,
  RunPosition,
  TaskResult,
  TaskSpec,
} from "./engine-types.js";
import { pickOutput } from "./io-schema.js";
import { setWaiting, type Waiting } from "./joins.js";

/**
 * The state after the superstep of `pos.tasks`: their updates applied in task order to one
 * fresh copy of `pos.state` (`pos.state` itself when no task wrote). A promise only when an
 * update fails and the journal drops the task's stored result (it then rejects with the failure).
 * @throws StateUpdateError (or what a reducer throws) when an update cannot be applied.
 */
export function applyUpdates(
  graph: EngineGraph,
  pos: RunPosition,
  results: Map<string, TaskResult>,
  journal: RunJournal | null,
  step: number,
): Record<string, unknown> | Promise<never> {
  let state = pos.state;
  for (const t of pos.tasks) {
    const r = results.get(t.id) as DoneResult;
    if (!r.update) continue;
    try {
      if (state === pos.state) state = { ...state };
      applyUpdateTo(graph.state, state, r.update, t.name);
    } catch (e) {
      // The task's stored result can never be applied: drop it, so that continuing the thread runs the task again.
      if (journal) return discardAndThrow(journal, step, t, e);
      throw e;
    }
  }
  return state;
}

async function discardAndThrow(
  journal: RunJournal,
  step: number,
  t: TaskSpec,
  e: unknown,
): Promise<never> {
  await journal.discardTask(step, t.id, t.name);
  throw e;
}

/**
 * Move `pos` past superstep `step` to `state` and the `next` tasks (and, in a flow with joins
 * or deferred nodes, to what waits after it); emit the state (its `output` fields) in `"values"` mode.
 */
export function commitStep(
  pos: RunPosition,
  state: Record<string, unknown>,
  next: TaskSpec[],
  opts: EngineRunOptions,
  step: number,
  waiting: Waiting | null = null,
): void {
  if (waiting) setWaiting(pos, waiting);
  pos.state = state;
  pos.step = step + 1;
  pos.tasks = next;
  pos.known = new Map();
  pos.caches = new Map();
  // Answers belong to the superstep they were given in, as folding the log has them.
  pos.answers = {};
  if (opts.emit && opts.modes.has("values"))
    opts.emit({
      mode: "values",
      node: null,
      step,
      taskId: null,
      data: copyState(pickOutput(state, opts.output ?? null)),
    });
}
