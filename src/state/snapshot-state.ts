/**
 * How a snapshot keeps a state: a field declared with `messagesField()` (its codec the
 * messages codec) keeps its whole list packed (`packMessages`: each message an array, no
 * keys), every other field as it is. The snapshot names the packed fields, so a reader
 * unpacks exactly those.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/index.js";
import type { StateDefinition } from "./define-state.js";
import { messagesCodec } from "./messages-codec.js";
import { packMessages, unpackMessages } from "./messages-pack.js";

/** A state as a snapshot keeps it: its fields, and the names of those kept packed. */
export interface SnapshotState {
  state: JsonObject;
  /** The fields of `state` kept packed (none: empty). */
  packed: string[];
}

/**
 * `state` as a snapshot keeps it: each messages field whose list {@link packMessages} can pack
 * is packed; the other fields are shared with `state`, not copied.
 */
export function packSnapshotState(def: StateDefinition | null, state: JsonObject): SnapshotState {
  if (def === null) return { state, packed: [] };
  let out: JsonObject | null = null;
  const packed: string[] = [];
  for (const field of def.fields.values()) {
    if (field.codec !== messagesCodec || !Object.hasOwn(state, field.name)) continue;
    const list = packMessages(state[field.name]!);
    if (list === null) continue;
    out ??= { ...state };
    out[field.name] = list;
    packed.push(field.name);
  }
  return { state: out ?? state, packed };
}

/**
 * The state {@link packSnapshotState} packed, its `packed` fields made whole (the object is
 * changed in place and returned).
 * @throws TypeError when `packed` is not a non-empty list of the state's own fields that are
 *   messages fields of `def` (absent included), or a packed field does not unpack (a damaged
 *   snapshot: the caller folds the events instead).
 */
export function unpackSnapshotState(
  def: StateDefinition | null,
  state: JsonObject,
  packed: JsonValue | undefined,
): JsonObject {
  // (A writer names at least one field: a snapshot with none packed is format 1 or 2.)
  if (!Array.isArray(packed) || packed.length === 0)
    throw new TypeError("snapshot: packed is not a list of field names");
  for (const name of packed) {
    if (
      typeof name !== "string" ||
      name === "__proto__" ||
      !Object.hasOwn(state, name) ||
      def?.fields.get(name)?.codec !== messagesCodec
    )
      throw new TypeError(
        `snapshot: packed names no messages field of the state: ${JSON.stringify(name)}`,
      );
    state[name] = unpackMessages(state[name]!);
  }
  return state;
}
