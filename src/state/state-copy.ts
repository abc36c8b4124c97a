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

/**
 * A copy of `state` whose list and plain-object fields are copied too (one level); with
 * `over`, its fields laid over the state's (a `Send`'s payload), copied the same way.
 */
export function copyState(
  state: Record<string, unknown>,
  over: Record<string, unknown> | null = null,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in state) out[key] = copyValue(state[key]);
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
