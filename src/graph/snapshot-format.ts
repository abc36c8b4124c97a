/**
 * What a snapshot's data holds: a folded position (thread-state.ts) and the key of the
 * definition that folded it, in one of three formats:
 *
 * - `1`: the position as it is;
 * - `2`: as 1, with large binary parts as references to the events that hold them
 *   (snapshot-parts.ts);
 * - `3`: as 1, or as 2 when `partRefs` is `true`, with the state fields named in `packed` kept
 *   packed (a messages field's list, state/snapshot-state.ts) by the message key layout
 *   `layout` (`PACKED_LAYOUT`: a reader whose layout differs does not use the snapshot).
 *
 * Writers write 3 when a field is packed, else 1 or 2; a reader that knows formats 1 and 2
 * only does not use a format-3 snapshot (it folds the events instead, which gives the same
 * position).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/index.js";
import type { StateDefinition } from "../state/define-state.js";
import { PACKED_LAYOUT } from "../state/messages-pack.js";
import { packSnapshotState, unpackSnapshotState } from "../state/snapshot-state.js";
import { THREAD_FORMAT, type ThreadPosition } from "./thread-state.js";

/** Format 2: large parts kept as references to events. */
const WITH_PART_REFS = 2;

/** Format 3: some state fields packed (`packed`); part references when `partRefs`. */
const PACKED = 3;

/**
 * The snapshot data of `position` (every field a fold sets) folded by a definition of key
 * `definition`: its messages fields packed where they can be.
 */
export function snapshotData(
  def: StateDefinition | null,
  position: ThreadPosition,
  definition: string,
): JsonObject {
  const { state, packed } = packSnapshotState(def, position.state as JsonObject);
  const data = { ...position, definition } as unknown as JsonObject;
  if (packed.length === 0) return data;
  return { ...data, format: PACKED, state, packed, layout: PACKED_LAYOUT };
}

/** `data` (from {@link snapshotData}) with its large parts replaced by references (`shrunk`). */
export function withPartRefs(shrunk: JsonObject): JsonObject {
  return shrunk.format === PACKED
    ? { ...shrunk, partRefs: true }
    : { ...shrunk, format: WITH_PART_REFS };
}

/**
 * Whether a snapshot holds a position folded by a definition like the one of key `definition`
 * (see load-position.ts `definitionKey`), in a format this reader knows.
 */
export function isSnapshotOf(data: JsonValue, definition: string): data is JsonObject {
  return (
    typeof data === "object" &&
    data !== null &&
    !Array.isArray(data) &&
    (data.format === THREAD_FORMAT || data.format === WITH_PART_REFS || data.format === PACKED) &&
    data.definition === definition
  );
}

/** Whether a snapshot's data refers to parts held by events. */
export function hasPartRefs(data: JsonObject): boolean {
  return data.format === WITH_PART_REFS || (data.format === PACKED && data.partRefs === true);
}

/**
 * The position a snapshot's data (its part references resolved) holds, its packed fields (the
 * messages fields of `def`) made whole; `null` when they do not unpack or were packed by
 * another layout (such a snapshot is not used).
 */
export function positionOf(def: StateDefinition | null, data: JsonObject): ThreadPosition | null {
  const { definition: _d, packed, partRefs: _p, layout, ...position } = data;
  if (data.format === PACKED) {
    if (layout !== PACKED_LAYOUT) return null;
    const state = position.state;
    if (typeof state !== "object" || state === null || Array.isArray(state)) return null;
    try {
      position.state = unpackSnapshotState(def, { ...state }, packed);
    } catch {
      return null;
    }
  }
  return { ...position, format: THREAD_FORMAT } as unknown as ThreadPosition;
}
