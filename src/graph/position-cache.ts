/**
 * The thread positions a graph keeps in memory, by store and branch, least recently used
 * first (at most {@link POSITION_CACHE_SIZE} per store): a run continues from one when the
 * branch's last seq matches. Only the {@link INDEXED_POSITIONS} most recently remembered keep
 * the derived indexes of their state (the id index of a messages list, about 46 bytes a
 * message): an older one's are dropped and built again, in one pass over the list, by the next
 * run that merges into it. A cached position holds the state's values as the run left them
 * (about 1.5× the heap of a JSON copy of the same messages).
 *
 * @module
 */
import { forgetMessageIndex } from "../state/add-messages.js";
import type { StateStore } from "../stores/types.js";
import type { CachedPosition } from "./load-position.js";

/** Thread positions a graph keeps, by store, then by `threadId\u0000branchId` (least recently used first). */
export type PositionCache = WeakMap<StateStore, Map<string, CachedPosition>>;

/** Positions kept per store and graph. */
export const POSITION_CACHE_SIZE = 256;

/** Cached positions, per store and graph, that keep their state's derived indexes. */
export const INDEXED_POSITIONS = 32;

/** The keys last remembered in a positions map and when, a ring of {@link INDEXED_POSITIONS}. */
interface Recent {
  keys: (string | null)[];
  stamps: number[];
  next: number;
  clock: number;
}

// (The ring holds keys and counts, no position, so it keeps none alive; a position carries its
// count in `remembered`: a map of counts by position kept a table of every position remembered.)
const recents = new WeakMap<Map<string, CachedPosition>, Recent>();

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

/**
 * Cache a branch's position after a run, dropping the least recently used beyond
 * {@link POSITION_CACHE_SIZE}, and the derived indexes of the position remembered
 * {@link INDEXED_POSITIONS} calls ago when it is still cached as it was then.
 */
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
  let r = recents.get(m);
  if (!r) {
    r = {
      keys: new Array(INDEXED_POSITIONS).fill(null),
      stamps: new Array(INDEXED_POSITIONS).fill(0),
      next: 0,
      clock: 0,
    };
    recents.set(m, r);
  }
  const oldKey = r.keys[r.next];
  if (oldKey != null) {
    const old = m.get(oldKey);
    if (old && old.remembered === r.stamps[r.next]) forgetIndexes(old);
  }
  const stamp = ++r.clock;
  cached.remembered = stamp;
  r.keys[r.next] = key;
  r.stamps[r.next] = stamp;
  r.next = (r.next + 1) % INDEXED_POSITIONS;
}

/** Drop what reducers keep derived from the state's values (they build it again on use). */
function forgetIndexes(cached: CachedPosition): void {
  const state = cached.position.state;
  for (const k in state) forgetMessageIndex(state[k]);
}
