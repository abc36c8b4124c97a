/**
 * JSON values: the only data nodestep keeps in state, messages, events and stores.
 *
 * @module
 */

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
 *
 * @param value - the value to check.
 * @param path - path of `value` in the messages, such as `messages[2].content`.
 * @returns `{ path, problem }` for the first value at fault, or `null`.
 */
export function findNonJson(
  value: unknown,
  path: string,
): { path: string; problem: string } | null {
  return walk(value, path, undefined);
}

function walk(
  value: unknown,
  path: string,
  seen: Set<object> | undefined,
): { path: string; problem: string } | null {
  switch (typeof value) {
    case "string":
    case "boolean":
      return null;
    case "number":
      return Number.isFinite(value) ? null : { path, problem: `${value} is not a finite number` };
    case "undefined":
      return { path, problem: "undefined is not JSON (use null)" };
    case "bigint":
      return { path, problem: "a bigint is not JSON" };
    case "symbol":
      return { path, problem: "a symbol is not JSON" };
    case "function":
      return { path, problem: "a function is not JSON" };
  }
  if (value === null) return null;
  const obj = value as object;
  if (seen?.has(obj)) return { path, problem: "the value contains a cycle" };
  if (Array.isArray(obj)) {
    if (obj.length === 0) return null;
    const s = seen ?? new Set<object>();
    s.add(obj);
    for (let i = 0; i < obj.length; i++) {
      const r = walk(obj[i], `${path}[${i}]`, s);
      if (r) return r;
    }
    s.delete(obj);
    return null;
  }
  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) {
    const name = (obj as { constructor?: { name?: string } }).constructor?.name ?? "object";
    return { path, problem: `a ${name} instance is not plain JSON data` };
  }
  const s = seen ?? new Set<object>();
  s.add(obj);
  for (const key in obj) {
    const v = (obj as Record<string, unknown>)[key];
    if (v === undefined) continue;
    const r = walk(v, path === "" ? key : `${path}.${key}`, s);
    if (r) return r;
  }
  s.delete(obj);
  return null;
}

/** Whether `value` is a plain object (`{}` literal or `Object.create(null)`), not an array or class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
