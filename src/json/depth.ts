/**
 * How deep JSON may nest: one limit for everything that enters nodestep.
 *
 * @module
 */

/**
 * The nesting limit of data entering nodestep: invoke input, resume answers, state updates,
 * tool arguments from a model, server request bodies. A value may hold objects and arrays
 * nested up to this many levels (`[]` is 1 level, `[[]]` 2, a string 0); deeper data is
 * refused with the typed error of the place it enters (`StateUpdateError`, `StateStoreError`,
 * the tool policy's error for tool arguments, 400 `InvalidRequest` from the server) — never a
 * `RangeError` from a stack overflow. What nodestep wraps around a value it stores (a message,
 * a tool call, an event) may add up to {@link JSON_ENVELOPE_DEPTH} more levels.
 */
export const MAX_JSON_DEPTH = 512;

/** The levels nodestep's own wrapping (messages, tool calls, events, snapshots) may add. */
export const JSON_ENVELOPE_DEPTH = 64;

/**
 * The path of the first object or array nested deeper than `maxDepth` in `value`, or `null`.
 * Iterative: it never overflows the stack, whatever the depth. Cycles are not followed past
 * `maxDepth` (a cycle is reported as too deep).
 * @param path - the path of `value` (`"input"`, `"resume.answer"`, `""`).
 */
export function tooDeep(value: unknown, maxDepth = MAX_JSON_DEPTH, path = ""): string | null {
  if (value === null || typeof value !== "object") return null;
  // Each entry: a container and its depth; the keys down to it are rebuilt only on failure.
  const stack: { v: object; depth: number; parent: number; key: string | number }[] = [
    { v: value, depth: 1, parent: -1, key: "" },
  ];
  const seen: typeof stack = [];
  while (stack.length > 0) {
    const item = stack.pop()!;
    seen.push(item);
    const at = seen.length - 1;
    if (item.depth > maxDepth) return pathOf(seen, at, path);
    const v = item.v as Record<string, unknown> | unknown[];
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const c = v[i];
        if (c !== null && typeof c === "object") {
          stack.push({ v: c, depth: item.depth + 1, parent: at, key: i });
        }
      }
    } else {
      for (const k in v) {
        const c = v[k];
        if (c !== null && typeof c === "object") {
          stack.push({ v: c, depth: item.depth + 1, parent: at, key: k });
        }
      }
    }
  }
  return null;
}

function pathOf(
  seen: { parent: number; key: string | number }[],
  at: number,
  path: string,
): string {
  const keys: (string | number)[] = [];
  for (let i = at; i > 0 && seen[i]; i = seen[i]!.parent) keys.push(seen[i]!.key);
  let out = path;
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i]!;
    out = typeof k === "number" ? `${out}[${k}]` : out === "" ? k : `${out}.${k}`;
  }
  return out === "" ? "(the value)" : out;
}

/**
 * The path of the first key `__proto__`, `constructor` or `prototype` in parsed JSON, or
 * `null`. Iterative. (The server refuses such bodies: merged into an object they could change
 * its prototype, and a schema would drop them silently.)
 */
export function prototypeKey(value: unknown, path = ""): string | null {
  const stack: { v: unknown; path: string }[] = [{ v: value, path }];
  while (stack.length > 0) {
    const { v, path: p } = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${p}[${i}]` });
      continue;
    }
    for (const k of Object.keys(v)) {
      const kp = p === "" ? k : `${p}.${k}`;
      if (k === "__proto__" || k === "constructor" || k === "prototype") return kp;
      stack.push({ v: (v as Record<string, unknown>)[k], path: kp });
    }
  }
  return null;
}
