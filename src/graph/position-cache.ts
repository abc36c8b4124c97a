/**
 * The thread positions a graph keeps in memory, by store and branch, least recently used
 * first (at most 256 per store): a run continues from one when the branch's last seq matches.
 *
 * @module
 */
import type { StateStore } from "../stores/types.js";
import type { CachedPosition } from "./load-position.js";

/** Thread positions a graph keeps, by store, then by `threadId\u0000branchId` (least recently used first). */
export type PositionCache = WeakMap<StateStore, Map<string, CachedPosition>>;

/** The positions of `store`'s threads cached by a graph. */
export function positionsOf(
  positions: PositionCache,
  store: StateStore,
): Map<string, CachedPosition> {
  let m = positions.get(store);
  if (!m) {
    m = new Map();
    positions.set(store, m);
  }
  return m;
}

/** Cache a branch's position after a run, dropping the least recently used beyond the limit. */
export function rememberPosition(
  positions: PositionCache,
  store: StateStore,
  threadId: string,
  branchId: string,
  cached: CachedPosition,
): void {
  const m = positionsOf(positions, store);
  const key = `${threadId}\u0000${branchId}`;
  m.delete(key);
  m.set(key, cached);
  if (m.size > POSITION_CACHE_SIZE) {
    const oldest = m.keys().next().value as string;
    m.delete(oldest);
  }
}

const POSITION_CACHE_SIZE = 256;
