/**
 * Committing a superstep: its tasks' updates applied in task order (the order they were
 * scheduled, not the order they finished) to the run's own copy of the state (made by its first
 * superstep that writes, then written in place), then the run's position moved on to the next
 * superstep.
 *
 * @module
 */

import { applyUpdateTo } from "../state/define-state.js";
import { copyState, noteWrites, shallowCopy } from "../state/state-copy.js";
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
 * A superstep's updates applied: the state after it, and `before`, which holds each field the
 * superstep wrote as it was before (a field it added is absent there; fields it did not write
 * may be missing from `before` or hold their current values).
 */
export interface Applied {
  state: Record<string, unknown>;
  before: Record<string, unknown>;
  /**
   * What the superstep replaced when it wrote `state` in place (put back by
   * {@link undoApplied}), or `null` when `state` is a fresh copy.
   */
  kept: Kept | null;
}

/**
 * The state after the superstep of `pos.tasks`: their updates applied in task order. The
 * first superstep of a run that writes applies them to one fresh copy of `pos.state` (which
 * may be shared: a cached position, the caller's state) and the run owns that copy from then
 * on (`pos.ownsState`); later supersteps write into it in place, keeping what they replace, so
 * a superstep costs what it writes, not the size of the state. A failed update puts the
 * written fields back. A promise only when an update fails and the journal drops the task's
 * stored result (it then rejects with the failure).
 * @throws StateUpdateError (or what a reducer throws) when an update cannot be applied.
 */
export function applyUpdates(
  graph: EngineGraph,
  pos: RunPosition,
  results: Map<string, TaskResult>,
  journal: RunJournal | null,
  step: number,
): Applied | Promise<never> {
  let state = pos.state;
  let before = pos.state;
  let kept: Kept | null = null;
  for (const t of pos.tasks) {
    const r = results.get(t.id) as DoneResult;
    if (!r.update) continue;
    try {
      if (state === pos.state && kept === null) {
        if (pos.ownsState) kept = { state, values: {}, added: [], written: [] };
        else state = shallowCopy(state);
      }
      if (kept) {
        keep(kept, r.update);
        before = kept.values;
      }
      applyUpdateTo(graph.state, state, r.update, t.name);
    } catch (e) {
      if (kept) restore(kept);
      // The task's stored result can never be applied: drop it, so that continuing the thread runs the task again.
      if (journal) return discardAndThrow(journal, step, t, e);
      throw e;
    }
  }
  if (kept) {
    noteWrites(state, kept.written, kept.added.length > 0);
    // What to put back, not a closure that does it: a closure per superstep costs a name set
    // on it in the build (esbuild's keepNames), a bound function about as much.
    return { state, before, kept };
  }
  return { state, before, kept: null };
}

/**
 * Put the fields a superstep wrote in place back as they were (nothing when it wrote a fresh
 * copy).
 */
export function undoApplied(applied: Applied): void {
  if (applied.kept) restore(applied.kept);
}

/** What an in-place superstep replaced: the old values of the fields it wrote, and the fields it added. */
export interface Kept {
  state: Record<string, unknown>;
  values: Record<string, unknown>;
  added: string[];
  written: string[];
}

function keep(k: Kept, update: Record<string, unknown>): void {
  for (const key in update) {
    if (Object.hasOwn(k.values, key) || k.added.includes(key)) continue;
    k.written.push(key);
    if (Object.hasOwn(k.state, key)) k.values[key] = k.state[key];
    else k.added.push(key);
  }
}

function restore(k: Kept): void {
  for (const key in k.values) k.state[key] = k.values[key];
  for (const key of k.added) delete k.state[key];
  noteWrites(k.state, k.written, k.added.length > 0);
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
  if (state !== pos.state) pos.ownsState = true;
  pos.state = state;
  pos.step = step + 1;
  pos.tasks = next;
  // (Nothing adds to a run's maps: an empty one is kept, not made again for every superstep.)
  if (pos.known.size > 0) pos.known = new Map();
  if (pos.caches.size > 0) pos.caches = new Map();
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
