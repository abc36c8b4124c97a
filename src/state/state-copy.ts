/**
 * A state handed out (to a node, to the caller of `invoke`, in a `"values"` stream event) is
 * a copy one level deep: its own object, and its own copy of each field that holds a list or
 * a plain object. A node may change those in place (`s.items.push(3); return s`) without
 * touching the state other tasks and the next superstep read; values inside them (a message,
 * an item of a list) are shared and must be replaced, not changed.
 *
 * @module
 */
import { isPlainObject } from "../json/index.js";
import { type Copier, copierFor } from "./shallow-copy.js";

/**
 * What is known of a state object once it has been copied: the fields that hold an object (a
 * list or a plain object: what {@link copyState} copies) and its copier (shallow-copy.ts), found
 * by one pass over the state the first time it is copied and kept up to date by
 * {@link noteWrites}, so that copying a state of many fields costs little more than copying
 * one of few, and the fields that hold primitives are not looked at one by one.
 */
interface Known {
  objects: string[];
  /** `null` after a key was added or deleted: found again on the next copy. */
  copier: Copier | null;
}

const known = new WeakMap<object, Known>();

function knownOf(state: Record<string, unknown>): Known {
  let k = known.get(state);
  if (k === undefined) {
    const objects: string[] = [];
    for (const key in state) {
      const v = state[key];
      if (typeof v === "object" && v !== null) objects.push(key);
    }
    k = { objects, copier: null };
    known.set(state, k);
  }
  return k;
}

/**
 * Tell {@link copyState} what is known of a state object just made (initial-state.ts): its
 * copier and the keys of its fields that hold an object, so its first copy skips the pass
 * over its keys.
 */
export function knownState(
  state: Record<string, unknown>,
  copier: Copier,
  objects: string[],
): void {
  known.set(state, { objects, copier });
}

/**
 * Tell {@link copyState} that `keys` of `state` were written in place (the engine's commit
 * writes the run's own copy of the state; `added`: some of them were added or deleted). Every
 * in-place write of a state object that may have been copied before must be told here.
 */
export function noteWrites(
  state: Record<string, unknown>,
  keys: readonly string[],
  added: boolean,
): void {
  const k = known.get(state);
  if (k === undefined) return;
  if (added) k.copier = null;
  const fields = k.objects;
  for (const key of keys) {
    const v = state[key];
    const holds = typeof v === "object" && v !== null && Object.hasOwn(state, key);
    const at = fields.indexOf(key);
    if (holds && at < 0) fields.push(key);
    else if (!holds && at >= 0) fields.splice(at, 1);
  }
}

/** A shallow copy of `state` (its own object, the same values): `{ ...state }`, made faster. */
export function shallowCopy(state: Record<string, unknown>): Record<string, unknown> {
  const k = knownOf(state);
  k.copier ??= copierFor(state);
  return k.copier(state);
}

/**
 * A shallow copy of `state`, as {@link shallowCopy}, that {@link copyState} knows as it knows
 * `state` (no pass over its keys on its first copy): for a copy that is then written in place,
 * each write told to {@link noteWrites}.
 */
export function trackedCopy(state: Record<string, unknown>): Record<string, unknown> {
  const k = knownOf(state);
  k.copier ??= copierFor(state);
  const out = k.copier(state);
  known.set(out, { objects: k.objects.slice(), copier: k.copier });
  return out;
}

/**
 * A copy of `state` whose list and plain-object fields are copied too (one level); with
 * `over`, its fields laid over the state's (a `Send`'s payload), copied the same way.
 */
export function copyState(
  state: Record<string, unknown>,
  over: Record<string, unknown> | null = null,
): Record<string, unknown> {
  const k = knownOf(state);
  k.copier ??= copierFor(state);
  const out = k.copier(state);
  for (const key of k.objects) out[key] = copyValue(state[key]);
  if (over !== null) for (const key in over) out[key] = copyValue(over[key]);
  return out;
}

function copyValue(v: unknown): unknown {
  return Array.isArray(v) ? v.slice() : isPlainObject(v) ? { ...v } : v;
}

/**
 * Whether `value` holds what `received` held, one level deep: the same primitive or object,
 * or a list (plain object) with the same items (keys) holding the same values.
 */
export function sameOneLevel(value: unknown, received: unknown): boolean {
  if (value === received) return true;
  if (Array.isArray(value)) {
    if (!Array.isArray(received) || value.length !== received.length) return false;
    for (let i = 0; i < value.length; i++) if (value[i] !== received[i]) return false;
    return true;
  }
  if (!isPlainObject(value) || !isPlainObject(received)) return false;
  let n = 0;
  for (const k in value) {
    if (!Object.hasOwn(received, k) || value[k] !== received[k]) return false;
    n++;
  }
  for (const _ in received) n--;
  return n === 0;
}
