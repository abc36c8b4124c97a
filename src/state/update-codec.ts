/**
 * How a prepared update is written to the event log and read back.
 *
 * Two things keep the log close to the size of the data itself:
 * - a field may declare a {@link FieldCodec} (`messagesField()` stores each message without
 *   its default-valued keys);
 * - a field whose value repeats a list held under the same name inside the field written
 *   right before it (an agent's `toolCalls`, which are also in the `AIMessage` it appends), or
 *   a long text held there (its `finalText`, the `AIMessage`'s content), is stored as where
 *   that value is (`same`), and copied from there when read.
 *
 * - a list written to a field without a reducer or codec that keeps the items the field held
 *   and adds some (a plain-object graph's messages, rewritten whole each step) is stored as the
 *   items it adds and how many it kept (`extend`), and read back over the state it was applied
 *   to: the log then holds each item once, a large image part included.
 *
 * Decoding gives back an update equal to the one encoded, key order included.
 *
 * @module
 */
import { StateStoreError } from "../errors/index.js";
import { findNonJson, type JsonObject, type JsonValue } from "../json/index.js";
import type { PreparedUpdate, StateDefinition } from "./define-state.js";
import { messagesCodec } from "./messages-codec.js";
import { isReplacement } from "./replace.js";
import { sameJsonText } from "./same-json-text.js";

/**
 * How one field's updates are stored. `decode(encode(u))` must equal `u` for every prepared
 * update `u` of the field (its update schema's output), key order included. `Replace` values
 * are stored as they are, without the codec.
 *
 * Each update is checked before it is written: an `encode` that throws or returns something
 * that is not JSON, or a `decode` that throws on it or does not give `u` back, raises
 * `StateStoreError` naming the field and the writer, and nothing of the update is written.
 */
export interface FieldCodec {
  /** A prepared update of the field → the JSON stored for it. */
  encode(update: JsonValue): JsonValue;
  /** The stored JSON → the prepared update (also given an already decoded update: keep it unchanged). */
  decode(stored: JsonValue): JsonValue;
}

/**
 * Where a repeated field's value lives in the same update: the field (and item) whose key of
 * the same name holds it, `toolCalls: ["messages", 0]` for `messages[0].toolCalls`; or a path
 * ending in the key, `finalText: ["messages", 0, "content"]` for `messages[0].content`.
 */
export type UpdatePath = readonly (string | number)[];

/** An update as stored: the encoded fields, the fields that repeat a value held elsewhere, and the lists stored as the items they add. */
export interface EncodedUpdate {
  update: JsonObject;
  same: Record<string, UpdatePath> | null;
  /** Field → how many leading items of the list the state held it keeps (its stored value is the items after them). */
  extend: Record<string, number> | null;
}

/**
 * Encode a prepared update for the event log (see the module comment).
 *
 * @param before - the state the update is the only one applied to, when it is (a single-task
 *   superstep): a field without a reducer that it sets to the value it already has (the same
 *   primitive, or a list or object equal as JSON) is left out, since applying it changes nothing.
 * @param node - the update's writer, named in errors (`"__input__"` for the run input).
 * @param base - the state the update is applied to (alone), when known: a list written to a
 *   field without a reducer or codec that begins with the items the field holds in it is
 *   stored as the items it adds (`extend`). Default `before`.
 * @throws StateStoreError (with `field`) when a field's codec fails: see {@link FieldCodec}.
 */
export function encodeUpdate(
  def: StateDefinition | null,
  update: PreparedUpdate,
  before?: Record<string, unknown>,
  node?: string,
  base: Record<string, unknown> | undefined = before,
): EncodedUpdate {
  const keys: string[] = [];
  for (const key in update) {
    const value = update[key];
    if (before !== undefined && !def?.fields.get(key)?.reducer && unchanged(before[key], value))
      continue;
    keys.push(key);
  }
  const same = findRepeats(update, keys);
  const out: JsonObject = {};
  let extend: Record<string, number> | null = null;
  for (const key of keys) {
    if (same && Object.hasOwn(same, key)) continue;
    const value = update[key] as JsonValue;
    const field = def?.fields.get(key);
    const codec = field?.codec;
    if (base !== undefined && !field?.reducer && !codec) {
      const kept = keptItems(base[key], value);
      if (kept > 0) {
        extend ??= {};
        extend[key] = kept;
        out[key] = (value as JsonValue[]).slice(kept);
        continue;
      }
    }
    out[key] = codec && !isReplacement(value) ? encodeField(codec, key, value, node) : value;
  }
  return { update: out, same, extend };
}

/**
 * How many items of the list `current` the list `value` begins with (equal as JSON, key order
 * included): all of them, or `0` when it does not keep them all (or either is not a list, or
 * `current` is empty).
 */
function keptItems(current: unknown, value: unknown): number {
  if (!Array.isArray(current) || !Array.isArray(value) || isReplacement(value)) return 0;
  const n = current.length;
  if (n === 0 || value.length < n) return 0;
  for (let i = 0; i < n; i++) if (!sameJson(current[i], value[i])) return 0;
  return n;
}

/** Whether two JSON values are equal, key order included (what `JSON.stringify` would tell, without the text). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i]) return false;
    const va = (a as Record<string, unknown>)[k];
    const vb = (b as Record<string, unknown>)[k];
    // JSON leaves out undefined values: a key holding one is not in the text.
    if (va === undefined || vb === undefined || !sameJson(va, vb)) return false;
  }
  return true;
}

/**
 * One field's update encoded by its codec, checked to read back as it is: what is written to
 * the log must never be lost or unreadable. (The messages codec, whose input has passed
 * `MessageSchema`, is checked by its tests instead.)
 */
function encodeField(
  codec: FieldCodec,
  key: string,
  value: JsonValue,
  node: string | undefined,
): JsonValue {
  if (codec === messagesCodec) return codec.encode(value);
  const writer =
    node === undefined
      ? "an update"
      : node === "__input__"
        ? "the update of the run input"
        : node === "__update__"
          ? "the update given to updateState"
          : node === "__command__"
            ? "the Command's update"
            : `the update of node "${node}"`;
  const fail = (problem: string, field = key, cause?: unknown): StateStoreError =>
    new StateStoreError(`Cannot store ${writer}: ${problem}`, { field, cause });
  const want = JSON.stringify(value);
  let stored: JsonValue;
  try {
    stored = codec.encode(value);
  } catch (e) {
    throw fail(`codec.encode of state field "${key}" threw: ${errorText(e)}`, key, e);
  }
  const bad = findNonJson(stored, key);
  if (bad) {
    throw fail(
      `codec.encode of state field "${key}" returned a value that is not JSON (${bad.path}: ${bad.problem})`,
      bad.path,
    );
  }
  let back: unknown;
  try {
    // Read back exactly as decodeUpdate will: from the JSON text, a Replace marker as it is.
    const read = JSON.parse(JSON.stringify(stored)) as JsonValue;
    back = isReplacement(read) ? read : codec.decode(read);
  } catch (e) {
    throw fail(
      `codec.decode of state field "${key}" threw on what codec.encode stored: ${errorText(e)}`,
      key,
      e,
    );
  }
  let same = false;
  try {
    same = findNonJson(back, key) === null && JSON.stringify(back) === want;
  } catch {
    // A value JSON.stringify refuses is not the update.
  }
  if (!same) {
    throw fail(
      `codec.decode of state field "${key}" does not give back the update codec.encode stored; decode(encode(update)) must equal the update, key order included`,
    );
  }
  return stored;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Whether writing `value` over `current` changes nothing: the same primitive, or a list or
 * object equal to it as JSON, key order included (a part carried over unchanged is then not
 * stored again).
 */
function unchanged(current: unknown, value: unknown): boolean {
  if (value === null || typeof value !== "object") return current === value;
  if (current === null || typeof current !== "object" || isReplacement(value)) return false;
  return sameJson(current, value);
}

/**
 * Read back an update written by {@link encodeUpdate}.
 * @param state - the state the update was applied to; needed for an update with `extend`.
 * @throws Error when a `same` path does not lead to a value (a damaged log), an `extend`
 *   field does not have the items it keeps in `state`, or a field's `codec.decode` throws
 *   (naming the field).
 */
export function decodeUpdate(
  def: StateDefinition | null,
  stored: JsonObject,
  same: Record<string, UpdatePath> | null | undefined,
  extend?: Record<string, number> | null,
  state?: Record<string, unknown>,
): PreparedUpdate {
  const out: PreparedUpdate = {};
  for (const key in stored) {
    const value = stored[key] as JsonValue;
    const codec = def?.fields.get(key)?.codec;
    if (!codec || isReplacement(value)) {
      out[key] = value;
      continue;
    }
    try {
      out[key] = codec.decode(value);
    } catch (e) {
      throw new Error(`codec.decode of state field "${key}" failed: ${errorText(e)}`, {
        cause: e,
      });
    }
  }
  if (extend) {
    for (const key in extend) {
      const kept = extend[key]!;
      const held = state?.[key];
      const added = out[key];
      if (!Array.isArray(held) || held.length < kept || !Array.isArray(added)) {
        const has = Array.isArray(held)
          ? `${held.length} item${held.length === 1 ? "" : "s"}`
          : "no list";
        throw new Error(
          `the update's field "${key}" keeps the first ${kept} items of the list the state held, but the state holds ${has} there`,
        );
      }
      out[key] = kept === held.length ? held.concat(added) : held.slice(0, kept).concat(added);
    }
  }
  if (!same) return out;
  // Each repeated field goes back right after the field it repeats from.
  const ordered: PreparedUpdate = {};
  for (const key in out) {
    ordered[key] = out[key];
    for (const field in same) {
      const path = same[field]!;
      if (path[0] !== key) continue;
      const found = at(out, target(path, field));
      if (found === undefined) {
        throw new Error(
          `the update's field "${field}" repeats ${target(path, field).join(".")}, which is not in it`,
        );
      }
      ordered[field] = typeof found === "object" && found !== null ? structuredClone(found) : found;
    }
  }
  for (const field in same) {
    if (!Object.hasOwn(ordered, field)) {
      throw new Error(
        `the update's field "${field}" repeats ${target(same[field]!, field).join(".")}, which is not in it`,
      );
    }
  }
  return ordered;
}

/**
 * The value a `same` path points at: `[field]` or `[field, index]` name the source, and the
 * repeated field's own name is the key in it; a longer path ending in a key names it itself
 * (`["messages", 0, "content"]`).
 */
function target(path: UpdatePath, field: string): UpdatePath {
  return path.length === 1 || typeof path[path.length - 1] === "number" ? [...path, field] : path;
}

function at(root: PreparedUpdate, path: UpdatePath): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, p)) return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/** A text shorter than this is stored as it is: where it is would take about as many bytes. */
const MIN_REPEATED_TEXT = 48;

/**
 * Fields that repeat a value held in the field written right before them (in an item of it
 * when it is a list, the last such item first), or in the field that the one before repeats
 * from:
 * - a non-empty list equal, as JSON, to the key of the same name:
 *   `{ messages: [ai], toolCalls: ai.toolCalls }` → `{ toolCalls: ["messages", 0] }`;
 * - a text of 48 characters or more equal to a key's text:
 *   `{ messages: [ai], finalText: ai.content }` → `{ finalText: ["messages", 0, "content"] }`.
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
    const isList = Array.isArray(value) && value.length > 0;
    const isText = typeof value === "string" && value.length >= MIN_REPEATED_TEXT;
    if (!isList && !isText) continue;
    const previous = keys[j - 1]!;
    const source =
      same && Object.hasOwn(same, previous) ? (same[previous]![0] as string) : previous;
    const sourceValue = update[source];
    const items: [UpdatePath, Record<string, unknown>][] = [];
    if (Array.isArray(sourceValue)) {
      for (let n = sourceValue.length - 1; n >= 0; n--) {
        const item = sourceValue[n];
        if (isRecord(item)) items.push([[source, n], item]);
      }
    } else if (isRecord(sourceValue)) items.push([[source], sourceValue]);
    const found = isList
      ? findList(items, key, value as unknown[])
      : findText(items, value as string);
    if (found) {
      same ??= {};
      same[key] = found;
    }
  }
  return same;
}

function findList(
  items: readonly [UpdatePath, Record<string, unknown>][],
  key: string,
  value: unknown[],
): UpdatePath | null {
  let json: string | null = null;
  for (const [path, item] of items) {
    if (!Object.hasOwn(item, key)) continue;
    const v = item[key];
    if (!Array.isArray(v) || v.length !== value.length) continue;
    // Decided by a walk where it can be (no text made), else by the two texts.
    const same = sameJsonText(v, value);
    if (same === true) return path;
    if (same === false) continue;
    json ??= JSON.stringify(value);
    if (JSON.stringify(v) === json) return path;
  }
  return null;
}

function findText(
  items: readonly [UpdatePath, Record<string, unknown>][],
  value: string,
): UpdatePath | null {
  for (const [path, item] of items) {
    for (const k in item) {
      if (Object.hasOwn(item, k) && item[k] === value) return [...path, k];
    }
  }
  return null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !isReplacement(v);
}
