/**
 * The throttled stop-request check of a running journal (busy-thread policies `"interrupt"`
 * and `"rollback"`, docs/busy-threads.md): asked alongside a superstep's commit, at most every
 * {@link STOP_CHECK_MS}.
 *
 * @module
 */
import type { StateStore } from "../stores/types.js";
import type { Durability } from "./durability.js";

/**
 * A run asks the store for a stop request (busy-thread policies) at a superstep commit when
 * at least this many ms passed since it last asked (so always after a superstep this long).
 * A throttle, not a timer: nothing polls between commits. It applies where the append does
 * not answer the request itself (stores without `appendLeased`, and `"exit"` durability); the
 * request comes from any process, and the store contract has no notification to wait on
 * (docs/busy-threads.md).
 */
export const STOP_CHECK_MS = 25;

/** When a run's journal last asked its store for a stop request, and the asking itself. */
export class StopCheck {
  /** `performance.now()` when the store was last asked for a stop request. */
  #checkedAt = Number.NEGATIVE_INFINITY;

  /**
   * Ask `store` whether another run asked run `runId` to stop, when it must be asked now:
   * the store has `stopRequested`, its appends do not answer it (no `appendLeased`, or
   * `"exit"` durability, where nothing is appended before the end), and {@link STOP_CHECK_MS}
   * passed since the last time. Returns the asking run's id (`null` for none, and when the
   * store failed to answer), or `null` when not asked.
   */
  ask(
    store: StateStore,
    durability: Durability,
    threadId: string,
    branchId: string,
    runId: string,
  ): Promise<string | null> | null {
    const now = performance.now();
    // (A store that appends as the lease's holder answers it with every append.)
    // (In "exit" mode nothing is appended before the end: asked as without appendLeased.)
    const check =
      store.stopRequested &&
      (!store.appendLeased || durability === "exit") &&
      now - this.#checkedAt >= STOP_CHECK_MS;
    if (check) this.#checkedAt = now;
    return check
      ? store.stopRequested!(threadId, branchId, runId).catch((): string | null => null)
      : null;
  }
}
