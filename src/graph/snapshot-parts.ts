/**
 * Large binary parts in snapshots: a snapshot does not repeat the base64 `data` of an image,
 * file or audio part that an event of the branch already holds; it keeps where that event
 * holds it (`{ $event: seq, $path: [...] }`), and loading the snapshot reads those events back.
 *
 * The event log stays the only copy of each part, so a conversation with 100 images of 1 MB
 * stores about 100 MB, snapshot included. A snapshot whose references cannot be resolved is
 * not used (the branch is folded from its events instead): a snapshot only saves time.
 *
 * The engine knows no message types: a part here is any JSON object whose `type` is
 * `"image"`, `"file"` or `"audio"` and whose `data` is a string of at least
 * {@link PART_REF_MIN_CHARS} characters.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/index.js";
import type { StateStore, StoredEvent } from "../stores/types.js";

/** Shortest `data` string a snapshot refers to instead of repeating it (characters). */
export const PART_REF_MIN_CHARS = 1024;

/** Where an event holds a part's data: the event's seq and the path in its `data`. */
export interface PartRef {
  seq: number;
  path: (string | number)[];
}

/** A part's data string → where an event of the branch holds it. */
export type PartIndex = Map<string, PartRef>;

const PART_TYPES = new Set(["image", "file", "audio"]);

function isObj(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isBigPart(v: JsonObject): v is JsonObject & { data: string } {
  return (
    typeof v.type === "string" &&
    PART_TYPES.has(v.type) &&
    typeof v.data === "string" &&
    v.data.length >= PART_REF_MIN_CHARS
  );
}

/** Add the large parts held by `events` to `index` (the first event holding a string wins). */
export function indexParts(events: readonly StoredEvent[], index: PartIndex): void {
  // One path, pushed and popped as the walk goes (copied only for a part found): a tail of
  // thousands of events is walked without an array per value.
  const path: (string | number)[] = [];
  for (const e of events) {
    const walk = (v: JsonValue): void => {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const item = v[i]!;
          if (item === null || typeof item !== "object") continue;
          path.push(i);
          walk(item);
          path.pop();
        }
      } else if (isObj(v)) {
        if (isBigPart(v)) {
          if (!index.has(v.data)) index.set(v.data, { seq: e.seq, path: [...path, "data"] });
          return;
        }
        for (const k in v) {
          const item = v[k]!;
          if (item === null || typeof item !== "object") continue;
          path.push(k);
          walk(item);
          path.pop();
        }
      }
    };
    walk(e.data);
  }
}

/**
 * A copy of `value` with each large part's data that `index` knows replaced by its
 * reference; `null` when nothing was replaced (store the value as it is).
 */
export function shrinkParts(value: JsonValue, index: PartIndex): JsonValue | null {
  if (index.size === 0) return null;
  let changed = false;
  const copy = (v: JsonValue): JsonValue => {
    if (Array.isArray(v)) return v.map(copy);
    if (!isObj(v)) return v;
    if (isBigPart(v)) {
      const ref = index.get(v.data);
      if (ref) {
        changed = true;
        return { ...v, data: { $event: ref.seq, $path: ref.path } };
      }
      return v;
    }
    const out: JsonObject = {};
    for (const k in v) out[k] = copy(v[k]!);
    return out;
  };
  const out = copy(value);
  return changed ? out : null;
}

/** Whether `value` holds a large part (an image, file or audio whose `data` is a long string). */
export function hasBigPart(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some(hasBigPart);
  if (!isObj(value)) return false;
  if (isBigPart(value)) return true;
  for (const k in value) if (hasBigPart(value[k]!)) return true;
  return false;
}

function refOf(v: JsonValue | undefined): PartRef | null {
  if (!isObj(v) || typeof v.$event !== "number" || !Array.isArray(v.$path)) return null;
  return { seq: v.$event, path: v.$path as (string | number)[] };
}

function at(value: JsonValue, path: readonly (string | number)[]): JsonValue | undefined {
  let v: JsonValue | undefined = value;
  for (const k of path) {
    if (Array.isArray(v) && typeof k === "number") v = v[k];
    else if (isObj(v) && typeof k === "string") v = v[k];
    else return undefined;
  }
  return v;
}

/**
 * `value` with every part reference read back from the branch's events, and the parts it
 * read added to `index`; `null` when a reference cannot be resolved.
 */
export async function resolveParts(
  value: JsonValue,
  store: StateStore,
  threadId: string,
  branchId: string,
  index: PartIndex,
): Promise<JsonValue | null> {
  const seqs = new Set<number>();
  const collect = (v: JsonValue): void => {
    if (Array.isArray(v)) {
      for (const x of v) collect(x);
    } else if (isObj(v)) {
      const ref = typeof v.type === "string" && PART_TYPES.has(v.type) ? refOf(v.data) : null;
      if (ref) seqs.add(ref.seq);
      else for (const k in v) collect(v[k]!);
    }
  };
  collect(value);
  const events = new Map<number, JsonValue>();
  for (const seq of seqs) {
    const [e] = await store.read(threadId, branchId, { afterSeq: seq - 1, uptoSeq: seq });
    if (!e || e.seq !== seq) return null;
    events.set(seq, e.data);
  }
  let broken = false;
  const fill = (v: JsonValue): JsonValue => {
    if (Array.isArray(v)) return v.map(fill);
    if (!isObj(v)) return v;
    const ref = typeof v.type === "string" && PART_TYPES.has(v.type) ? refOf(v.data) : null;
    if (ref) {
      const data = at(events.get(ref.seq)!, ref.path);
      if (typeof data !== "string") {
        broken = true;
        return v;
      }
      index.set(data, ref);
      return { ...v, data };
    }
    const out: JsonObject = {};
    for (const k in v) out[k] = fill(v[k]!);
    return out;
  };
  const out = fill(value);
  return broken ? null : out;
}
