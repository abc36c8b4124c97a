/**
 * How a prepared update is written to the event log and read back.
 *
 * Two things keep the log close to the size of the data itself:
 * - a field may declare a {@link FieldCodec} (`messagesField()` stores each message without
 *   its default-valued keys);
 * - a field whose value repeats a list held under the same name inside the field written
 *   right before it (an agent's `toolCalls`, which are also in the `AIMessage` it appends) is
 *   stored as where that list is (`same`), and copied from there when read.
 *
 * Decoding gives back an update equal to the one encoded, key order included.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/index.js";
import type { PreparedUpdate, StateDefinition } from "./define-state.js";
import { isReplacement } from "./replace.js";

/**
 * How one field's updates are stored. `decode(encode(u))` must equal `u` for every prepared
 * update `u` of the field (its update schema's output), key order included. `Replace` values
 * are stored as they are, without the codec.
 */
export interface FieldCodec {
  /** A prepared update of the field → the JSON stored for it. */
  encode(update: JsonValue): JsonValue;
  /** The stored JSON → the prepared update (also given an already decoded update: keep it unchanged). */
  decode(stored: JsonValue): JsonValue;
}

/**
 * Where a repeated field's value lives in the same update: the field (and item) whose key of
 * the same name holds it; `toolCalls: ["messages", 0]` means `messages[0].toolCalls`.
 */
export type UpdatePath = readonly (string | number)[];

/** An update as stored: the encoded fields, and the fields that repeat a value held elsewhere. */
export interface EncodedUpdate {
  update: JsonObject;
  same: Record<string, UpdatePath> | null;
}

/**
 * Encode a prepared update for the event log (see the module comment).
 *
 * @param before - the state the update is the only one applied to, when it is (a single-task
 *   superstep): a field without a reducer that it sets to the primitive value it already has
 *   is left out, since applying it changes nothing.
 */
export function encodeUpdate(
  def: StateDefinition | null,
  update: PreparedUpdate,
  before?: Record<string, unknown>,
): EncodedUpdate {
  const keys: string[] = [];
  for (const key in update) {
    const value = update[key];
    if (
      before !== undefined &&
      (value === null || typeof value !== "object") &&
      before[key] === value &&
      !def?.fields.get(key)?.reducer
    )
      continue;
    keys.push(key);
  }
  const same = findRepeats(update, keys);
  const out: JsonObject = {};
  for (const key of keys) {
    if (same && Object.hasOwn(same, key)) continue;
    const value = update[key] as JsonValue;
    const codec = def?.fields.get(key)?.codec;
    out[key] = codec && !isReplacement(value) ? codec.encode(value) : value;
  }
  return { update: out, same };
}

/**
 * Read back an update written by {@link encodeUpdate}.
 * @throws Error when a `same` path does not lead to a value (a damaged log).
 */
export function decodeUpdate(
  def: StateDefinition | null,
  stored: JsonObject,
  same: Record<string, UpdatePath> | null | undefined,
): PreparedUpdate {
  const out: PreparedUpdate = {};
  for (const key in stored) {
    const value = stored[key] as JsonValue;
    const codec = def?.fields.get(key)?.codec;
    out[key] = codec && !isReplacement(value) ? codec.decode(value) : value;
  }
  if (!same) return out;
  // Each repeated field goes back right after the field it repeats from.
  const ordered: PreparedUpdate = {};
  for (const key in out) {
    ordered[key] = out[key];
    for (const field in same) {
      const path = same[field]!;
      if (path[0] !== key) continue;
      const found = at(out, [...path, field]);
      if (found === undefined) {
        throw new Error(
          `the update's field "${field}" repeats ${[...path, field].join(".")}, which is not in it`,
        );
      }
      ordered[field] = structuredClone(found);
    }
  }
  for (const field in same) {
    if (!Object.hasOwn(ordered, field)) {
      throw new Error(
        `the update's field "${field}" repeats ${[...same[field]!, field].join(".")}, which is not in it`,
      );
    }
  }
  return ordered;
}

function at(root: PreparedUpdate, path: UpdatePath): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, p)) return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/**
 * Fields whose value, a non-empty list, equals as JSON the key of the same name of the field
 * written right before it (of an item of it when it is a list, the last such item first), or
 * of the field that the one before it repeats from:
 * `{ messages: [ai], toolCalls: ai.toolCalls }` → `{ toolCalls: ["messages", 0] }`.
 * Only such a neighbour is looked at, so that reading puts every field back where it was: the
 * key order of an update is the key order of the fields it adds to the state.
 */
function findRepeats(
  update: PreparedUpdate,
  keys: readonly string[],
): Record<string, UpdatePath> | null {
  let same: Record<string, UpdatePath> | null = null;
  for (let j = 1; j < keys.length; j++) {
    const key = keys[j]!;
    const value = update[key];
    if (!Array.isArray(value) || value.length === 0) continue;
    const previous = keys[j - 1]!;
    const source =
      same && Object.hasOwn(same, previous) ? (same[previous]![0] as string) : previous;
    const sourceValue = update[source];
    const candidates: [UpdatePath, unknown][] = [];
    if (Array.isArray(sourceValue)) {
      for (let n = sourceValue.length - 1; n >= 0; n--) {
        const item = sourceValue[n];
        if (isRecord(item)) candidates.push([[source, n], item[key]]);
      }
    } else if (isRecord(sourceValue)) candidates.push([[source], sourceValue[key]]);
    let json: string | null = null;
    for (const [path, v] of candidates) {
      if (!Array.isArray(v) || v.length !== value.length) continue;
      json ??= JSON.stringify(value);
      if (JSON.stringify(v) === json) {
        same ??= {};
        same[key] = path;
        break;
      }
    }
  }
  return same;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !isReplacement(v);
}
