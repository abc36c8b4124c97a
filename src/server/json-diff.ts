/**
 * `diffJson`: the changes from one JSON value to another, as a list of paths with what was
 * added, removed or replaced. The studio's history shows each event's change of the state
 * with it.
 *
 * @module
 */
import type { Json, JsonChange, JsonPath } from "./wire-types.js";

export type { JsonChange, JsonPath } from "./wire-types.js";

/** A {@link diffJson} answer. */
export interface JsonDiff {
  changes: JsonChange[];
  /** `true` when there were more changes than `maxChanges` (only the first ones are listed). */
  truncated: boolean;
}

/** The default of `maxChanges`. */
export const DEFAULT_MAX_CHANGES = 200;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether two JSON values are equal (objects key by key, in any key order). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The changes from `before` to `after`, two JSON values (the state of a thread before and
 * after an event). Objects are compared key by key (the keys of `before` in their order, then
 * the keys only `after` has); arrays index by index, so an appended message is one `add` at
 * its index and a shorter array a `remove` per index dropped (the last first); any other
 * difference (another type, another scalar) is one `replace`. Equal values give no change.
 *
 * Limits: at most `maxChanges` changes are listed (default {@link DEFAULT_MAX_CHANGES};
 * `truncated` says when more were left out). The walk goes as deep as the values (the state
 * store keeps JSON at most `MAX_JSON_DEPTH` deep).
 *
 * @throws TypeError when `maxChanges` is not an integer ≥ 1.
 * @example
 * diffJson({ n: 1, messages: ["a"] }, { n: 2, messages: ["a", "b"] })
 * // { changes: [{ op: "replace", path: ["n"], from: 1, to: 2 },
 * //             { op: "add", path: ["messages", 1], value: "b" }], truncated: false }
 */
export function diffJson(
  before: unknown,
  after: unknown,
  options: { maxChanges?: number } = {},
): JsonDiff {
  const max = options.maxChanges ?? DEFAULT_MAX_CHANGES;
  if (!Number.isInteger(max) || max < 1) {
    throw new TypeError(`diffJson: maxChanges must be an integer ≥ 1, got ${max}`);
  }
  const changes: JsonChange[] = [];
  let truncated = false;
  const push = (c: JsonChange): boolean => {
    if (changes.length >= max) {
      truncated = true;
      return false;
    }
    changes.push(c);
    return true;
  };
  const walk = (a: unknown, b: unknown, path: JsonPath): boolean => {
    if (jsonEqual(a, b)) return true;
    if (Array.isArray(a) && Array.isArray(b)) {
      const common = Math.min(a.length, b.length);
      for (let i = 0; i < common; i++) if (!walk(a[i], b[i], [...path, i])) return false;
      for (let i = common; i < b.length; i++)
        if (!push({ op: "add", path: [...path, i], value: b[i] })) return false;
      for (let i = a.length - 1; i >= common; i--)
        if (!push({ op: "remove", path: [...path, i], value: a[i] })) return false;
      return true;
    }
    if (isObject(a) && isObject(b)) {
      for (const k of Object.keys(a)) {
        const ok = Object.hasOwn(b, k)
          ? walk(a[k], b[k], [...path, k])
          : push({ op: "remove", path: [...path, k], value: a[k] as Json });
        if (!ok) return false;
      }
      for (const k of Object.keys(b)) {
        if (!Object.hasOwn(a, k) && !push({ op: "add", path: [...path, k], value: b[k] as Json }))
          return false;
      }
      return true;
    }
    // The values are JSON (a state as stored): the changes carry them as they are.
    return push({ op: "replace", path, from: a as Json, to: b as Json });
  };
  walk(before, after, []);
  return { changes, truncated };
}
