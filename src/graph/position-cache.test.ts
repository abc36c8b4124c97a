import { describe, expect, it } from "vitest";
import { AIMessage, type Message } from "../chat/messages.js";
import { addMessages, hasMessageIndex, SCAN_MAX } from "../state/add-messages.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { CachedPosition } from "./load-position.js";
import {
  INDEXED_POSITIONS,
  POSITION_CACHE_SIZE,
  type PositionCache,
  positionsOf,
  rememberPosition,
} from "./position-cache.js";
import { emptyPosition } from "./thread-state.js";

/**
 * A cached position whose `messages` list has an id index (merged by id): its messages
 * `<id>-a`, `<id>-b` and `<id>-0` …, more than `addMessages` searches without one.
 */
function cachedWithMessages(id: string): { cached: CachedPosition; list: Message[] } {
  const fill = Array.from({ length: SCAN_MAX }, (_, i) =>
    AIMessage({ id: `${id}-${i}`, content: "x" }),
  );
  const list = addMessages([], [AIMessage({ id: `${id}-a`, content: "a" })]);
  const merged = addMessages(list, [AIMessage({ id: `${id}-b`, content: "b" }), ...fill]);
  const position = { ...emptyPosition(null), state: { messages: merged, other: [1] } };
  return { cached: { position, snapshotSeq: 0 }, list: merged };
}

describe("position cache", () => {
  it("keeps the derived indexes of the most recently remembered positions only", () => {
    const positions: PositionCache = new WeakMap();
    const store = new MemoryStateStore();
    const lists: Message[][] = [];
    for (let i = 0; i < INDEXED_POSITIONS; i++) {
      const { cached, list } = cachedWithMessages(`t${i}`);
      expect(hasMessageIndex(list)).toBe(true);
      rememberPosition(positions, store, `t${i}`, "main", cached);
      lists.push(list);
    }
    expect(lists.map(hasMessageIndex)).toEqual(lists.map(() => true));
    // t0 is remembered again (a new position): its old list is not in the cache any more.
    const again = cachedWithMessages("t0");
    rememberPosition(positions, store, "t0", "main", again.cached);
    // The ring's oldest, t0's first position, was replaced since: nothing dropped.
    expect(lists.map(hasMessageIndex)).toEqual(lists.map(() => true));
    const { cached } = cachedWithMessages("u");
    rememberPosition(positions, store, "u", "main", cached);
    // t1 was remembered INDEXED_POSITIONS calls ago and is cached as it was: its index is gone.
    expect(hasMessageIndex(lists[1]!)).toBe(false);
    expect(hasMessageIndex(lists[2]!)).toBe(true);
    expect(hasMessageIndex(again.list)).toBe(true);
    // The position itself stays cached, and a merge into its list builds the index again.
    const m = positionsOf(positions, store);
    expect(m.size).toBe(INDEXED_POSITIONS + 1);
    const t1 = m.get("t1\u0000main")!.position.state.messages as Message[];
    expect(t1).toBe(lists[1]);
    const next = addMessages(t1, [AIMessage({ id: "t1-a", content: "replaced" })]);
    expect(next.slice(0, 3).map((x) => [x.id, x.content])).toEqual([
      ["t1-a", "replaced"],
      ["t1-b", "b"],
      ["t1-0", "x"],
    ]);
    expect(next.length).toBe(SCAN_MAX + 2);
    expect(hasMessageIndex(next)).toBe(true);
  });

  it("keeps at most POSITION_CACHE_SIZE positions per store, least recently remembered dropped", () => {
    const positions: PositionCache = new WeakMap();
    const store = new MemoryStateStore();
    for (let i = 0; i <= POSITION_CACHE_SIZE; i++) {
      rememberPosition(positions, store, `t${i}`, "main", cachedWithMessages(`t${i}`).cached);
    }
    const keys = [...positionsOf(positions, store).keys()];
    expect(keys.length).toBe(POSITION_CACHE_SIZE);
    expect(keys[0]).toBe("t1\u0000main");
    expect(keys.at(-1)).toBe(`t${POSITION_CACHE_SIZE}\u0000main`);
  });
});
