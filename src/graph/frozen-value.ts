/**
 * What a task returned, taken as it was when it returned: a deep copy that shares nothing
 * mutable with what the node still holds, for the event log and the run to go on with
 * (events are immutable once made).
 *
 * @module
 */
import { JSON_ENVELOPE_DEPTH, MAX_JSON_DEPTH } from "../json/index.js";

/**
 * A copy of JSON data that shares nothing mutable with it (primitives as they are); data
 * that cannot be copied is kept as it is, for the store to refuse with its path.
 *
 * Plain objects and arrays (what a prepared update holds: it was checked to be JSON) are
 * copied by {@link copyPlain}, several times faster than `structuredClone` (whose fixed cost,
 * about 10 µs on Node 20, was paid for every finished task); anything else goes through
 * `structuredClone` as before.
 */
export function frozenValue<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  const copy = copyPlain(value, 0);
  if (copy !== NOT_PLAIN) return copy as T;
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

/** What {@link copyPlain} answers for data it does not copy. */
const NOT_PLAIN: unique symbol = Symbol("not plain");

/** Nesting past which {@link copyPlain} gives up (a prepared update nests less; a cycle never ends). */
const COPY_DEPTH = MAX_JSON_DEPTH + JSON_ENVELOPE_DEPTH;

/**
 * A deep copy of data made only of plain objects, arrays and primitives other than functions
 * and symbols — the same value `structuredClone` gives for it — or {@link NOT_PLAIN} for
 * anything else (a class instance, a function, a `__proto__` key, nesting past
 * {@link COPY_DEPTH}), which the caller then copies the slow way.
 */
function copyPlain(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") {
    return typeof value === "function" || typeof value === "symbol" ? NOT_PLAIN : value;
  }
  if (depth >= COPY_DEPTH) return NOT_PLAIN;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return NOT_PLAIN;
    const n = value.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      if (!(i in value)) return NOT_PLAIN;
      const c = copyPlain(value[i], depth + 1);
      if (c === NOT_PLAIN) return NOT_PLAIN;
      out[i] = c;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === "__proto__") return NOT_PLAIN;
    const c = copyPlain((value as Record<string, unknown>)[key], depth + 1);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    out[key] = c;
  }
  return out;
}
