/**
 * A run's `durability`: when its events reach the state store (LangGraph's `durability`
 * option of `invoke` / `stream`, same names). The journal (`journal.ts`) does the writing;
 * this file holds the mode's type, its check and its limit. See docs/stores.md, "Durability".
 *
 * @module
 */
import { ValueError } from "../errors/index.js";
import { describeValue } from "../state/define-state.js";

/**
 * When a run on a thread writes its events (LangGraph's `durability`, same three names):
 *
 * - `"sync"` (default): each superstep's events are acknowledged by the store before the next
 *   superstep starts. A process kill loses nothing the store acknowledged: at most the
 *   superstep that was running (its unfinished tasks run again when the thread continues;
 *   in a superstep of several tasks, the ones that finished and were written do not).
 * - `"async"`: a superstep's append is sent and the next superstep starts without waiting for
 *   it; events made while an append is in flight are held and sent together as one append when
 *   it is answered. The run never reports its end (completed, interrupted, stopped, failed)
 *   before every append is acknowledged, and an append that fails fails the run at its next
 *   write. A process kill loses, besides the running superstep, the supersteps committed after
 *   the last acknowledged append: the one in flight and those held behind it (at most
 *   {@link ASYNC_MAX_HELD_STEPS}; a commit past that waits for the store). Their tasks run again
 *   when the thread continues.
 * - `"exit"`: every event of the run is held in memory and written in one append when the run
 *   completes, pauses (an interrupt, a breakpoint, a stop at another run's request) or fails.
 *   A process kill loses the whole run: the thread is as it was before the run started, and
 *   `invoke(null, { threadId })` runs it again from there (a run that started a thread leaves
 *   nothing: continue it by invoking it with its input again).
 *
 * A run without a `threadId` writes nothing in any mode. Subgraphs and sub-agents with a
 * thread of their own write it in `"sync"` mode.
 */
export type Durability = "sync" | "async" | "exit";

/** The durability modes, in the order the docs list them. */
export const DURABILITY_MODES: readonly Durability[] = ["sync", "async", "exit"];

/**
 * In `"async"` mode, at most this many committed supersteps are held behind the append in
 * flight; the commit of one more waits until that append is answered (so a store that stalls
 * holds up the run instead of memory growing, and a kill loses at most this many supersteps
 * plus the ones in the append in flight).
 */
export const ASYNC_MAX_HELD_STEPS = 64;

/**
 * Check a run's `durability` option.
 * @returns the mode (`"sync"` when absent).
 * @throws ValueError for anything but `"sync"`, `"async"`, `"exit"` or `undefined`, e.g.
 *   `Graph "g": durability must be "sync", "async" or "exit", got "fast"`.
 */
export function checkDurability(graph: string, value: unknown): Durability {
  if (value === undefined) return "sync";
  if (value === "sync" || value === "async" || value === "exit") return value;
  throw new ValueError(
    `Graph "${graph}": durability must be "sync", "async" or "exit", got ${typeof value === "string" ? JSON.stringify(value) : describeValue(value)}`,
  );
}
