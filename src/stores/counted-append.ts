/**
 * A store's counted append, as the run's journal looks it up: a store that has one answers it
 * under the registry symbol {@link COUNTED_APPEND} (`Symbol.for("nodestep.countedAppend")`).
 * The journal so finds a `MemoryStateStore`'s without importing the memory store (the engine
 * depends on no store implementation, and the memory store's module stays out of the engine's
 * chunk of dist/).
 *
 * @module
 */
import type { NewEvent } from "./types.js";

/**
 * An append that answers how many events it stored instead of the stored events: what
 * `StateStore.append` does, with the same checks, errors and outcome, but without making the
 * events back from what was stored (no parse of their data), for a caller that needs only the
 * new last seq (the run's journal).
 */
export type CountedAppend = (
  threadId: string,
  branchId: string,
  events: NewEvent[],
  expectedLastSeq: number,
) => number;

/**
 * The key of the method that answers a store's {@link CountedAppend} (or `null`); a registry
 * symbol, so that the store's module defines it without importing this one.
 */
export const COUNTED_APPEND: unique symbol = Symbol.for("nodestep.countedAppend") as never;

/**
 * The {@link CountedAppend} of `store`: what its {@link COUNTED_APPEND} method answers, given
 * the `append` that `store` shows (a `MemoryStateStore` whose `append` is the class's own; a
 * subclass that overrides `append`, an instance whose `append` was replaced and a `Proxy` that
 * gives another get `null`, so their `append` is called), or `null` for a store without one.
 * @example
 * ```ts
 * const append = countedAppendOf(store);
 * if (append) lastSeq += append("t1", "main", events, lastSeq);
 * ```
 */
export function countedAppendOf(store: object): CountedAppend | null {
  const seen = store as { [COUNTED_APPEND]?: unknown; append?: unknown };
  const method = seen[COUNTED_APPEND];
  // The `append` as seen through `store` goes with the question: a wrapper that binds the
  // method to the store it wraps (a Proxy) still shows its own `append` here.
  return typeof method === "function"
    ? (method.call(store, seen.append) as CountedAppend | null)
    : null;
}
