/**
 * JSON values: the only data nodestep keeps in state, messages, events and stores.
 *
 * @module
 */

import { JSON_ENVELOPE_DEPTH, MAX_JSON_DEPTH } from "./depth.js";

export { JSON_ENVELOPE_DEPTH, MAX_JSON_DEPTH, prototypeKey, tooDeep } from "./depth.js";

/** A value that survives `JSON.stringify` and `JSON.parse` unchanged. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Why `value` would not survive a JSON round trip, or `null` when it would.
 *
 * Refused: `undefined` in an array or at the top, functions, symbols, bigints, `NaN` and
 * infinities, class instances other than arrays (Date, Map, Set, …), and cycles. `undefined`
 * as an object property is allowed: JSON drops the key and reading it gives `undefined` again.
 * So is `-0` (JSON gives `0`). Also refused: objects and arrays nested deeper than `maxDepth` levels (the check never
 * overflows the stack).
 *
 * @param value - the value to check.
 * @param path - path of `value` in the messages, such as `messages[2].content`.
 * @param maxDepth - nesting limit (default `MAX_JSON_DEPTH + JSON_ENVELOPE_DEPTH`, 576: room
 *   for what nodestep wraps around a value that entered within `MAX_JSON_DEPTH`).
 * @returns `{ path, problem }` for the first value at fault, or `null`.
 */
export function findNonJson(
  value: unknown,
  path: string,
  maxDepth: number = MAX_JSON_DEPTH + JSON_ENVELOPE_DEPTH,
): { path: string; problem: string } | null {
  limit = maxDepth;
  inexact = false;
  const found = walk(value);
  if (found === null) return null;
  // The keys were collected from the value at fault up to the top: build its path once.
  let at = path;
  for (let i = found.keys.length - 1; i >= 0; i--) {
    const k = found.keys[i]!;
    at = typeof k === "number" ? `${at}[${k}]` : at === "" ? k : `${at}.${k}`;
  }
  return { path: at, problem: found.problem };
}

/** The objects and arrays on the way down from the value being checked (cycle detection). */
const ancestors: object[] = [];
/** The nesting limit of the walk under way. */
let limit = 0;
/** Whether the last walk met a `-0` or an object key holding `undefined` (see {@link jsonExact}). */
let inexact = false;

/**
 * `value`, which {@link findNonJson} has just passed (nothing run in between), as a JSON round
 * trip gives it back: the value itself when it holds no `-0` and no object key holding
 * `undefined` (found by that same walk, at no extra cost), else a copy made by
 * `JSON.parse(JSON.stringify(value))` (`-0` becomes `0`, such keys are dropped), as a stored
 * event is read back. Internal: not exported from the package's root.
 */
export function jsonExact<T>(value: T): T {
  return inexact ? (JSON.parse(JSON.stringify(value)) as T) : value;
}

function tooDeepProblem(): Found {
  return problem(`the value is nested deeper than ${limit} levels (the limit)`);
}

/** A problem and the keys from the value at fault up to the top (collected on the way back). */
interface Found {
  keys: (string | number)[];
  problem: string;
}

function problem(text: string): Found {
  return { keys: [], problem: text };
}

/** Walk a value without allocating unless it finds a problem (a check runs on every update). */
function walk(value: unknown): Found | null {
  switch (typeof value) {
    case "string":
    case "boolean":
      return null;
    case "number":
      if (!Number.isFinite(value)) return problem(`${value} is not a finite number`);
      // (-0: JSON gives 0; jsonExact takes it as JSON does.)
      if (value === 0 && 1 / value < 0) inexact = true;
      return null;
    case "undefined":
      return problem("undefined is not JSON (use null)");
    case "bigint":
      return problem("a bigint is not JSON");
    case "symbol":
      return problem("a symbol is not JSON");
    case "function":
      return problem("a function is not JSON");
  }
  if (value === null) return null;
  const obj = value as object;
  if (ancestors.length >= limit) return tooDeepProblem();
  if (ancestors.includes(obj)) return problem("the value contains a cycle");
  if (Array.isArray(obj)) {
    if (obj.length === 0) return null;
    ancestors.push(obj);
    try {
      for (let i = 0; i < obj.length; i++) {
        const r = walk(obj[i]);
        if (r) {
          r.keys.push(i);
          return r;
        }
      }
    } finally {
      ancestors.pop();
    }
    return null;
  }
  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) {
    const name = (obj as { constructor?: { name?: string } }).constructor?.name ?? "object";
    return problem(`a ${name} instance is not plain JSON data`);
  }
  ancestors.push(obj);
  try {
    for (const key in obj) {
      const v = (obj as Record<string, unknown>)[key];
      if (v === undefined) {
        // (JSON drops the key; jsonExact takes it as JSON does.)
        inexact = true;
        continue;
      }
      const r = walk(v);
      if (r) {
        r.keys.push(key);
        return r;
      }
    }
  } finally {
    ancestors.pop();
  }
  return null;
}

/** Whether `value` is a plain object (`{}` literal or `Object.create(null)`), not an array or class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
