/**
 * Options objects of store methods checked (unknown keys refused), and `listThreads`' bounds
 * and order. Internal (see `internal.ts`).
 *
 * @module
 */
import { StateStoreError, ValueError } from "../errors/index.js";
import { show } from "./show-value.js";
import type { ListThreadsOptions, ThreadInfo } from "./types.js";

/**
 * Order of `listThreads`: most recently updated first, then by thread id in code point order
 * (the order of their UTF-8 bytes, as SQLite and PostgreSQL's `"C"` collation sort a page).
 */
export function byUpdatedAt(a: ThreadInfo, b: ThreadInfo): number {
  return b.updatedAt - a.updatedAt || byCodePoint(a.threadId, b.threadId);
}

/**
 * Compare well-formed strings by code point. (`<` compares UTF-16 code units, which puts a
 * character past U+FFFF, a surrogate pair from 0xD800, before one from U+E000 to U+FFFF.)
 */
export function byCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  let x = a.charCodeAt(i);
  let y = b.charCodeAt(i);
  if (x >= 0xd800 && y >= 0xd800) {
    // Surrogates (0xD800-0xDFFF) after U+E000-U+FFFF; their own order kept.
    x += x >= 0xe000 ? -0x800 : 0x2000;
    y += y >= 0xe000 ? -0x800 : 0x2000;
  }
  return x - y;
}

/** `listThreads` options checked: `limit` (Infinity when absent) and `offset` (0). */
export function listBounds(options: ListThreadsOptions | undefined): {
  limit: number;
  offset: number;
} {
  checkOptions("listThreads", options, ["limit", "offset"]);
  const limit = options?.limit;
  const offset = options?.offset;
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 1)) {
    throw new StateStoreError(`listThreads: limit must be an integer ≥ 1, got ${show(limit)}`, {
      field: "limit",
    });
  }
  if (offset !== undefined && !(Number.isSafeInteger(offset) && offset >= 0)) {
    throw new StateStoreError(`listThreads: offset must be an integer ≥ 0, got ${show(offset)}`, {
      field: "offset",
    });
  }
  return { limit: limit ?? Number.POSITIVE_INFINITY, offset: offset ?? 0 };
}

/**
 * Check a method's options object (`undefined` is none): an object with no keys but `known`.
 * @throws ValueError for options that are not an object, or an unknown key (a typo that
 *   would otherwise be ignored), as `graph.deleteThread` says it.
 */
export function checkOptions(method: string, options: unknown, known: readonly string[]): void {
  if (options === undefined) return;
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ValueError(`${method} options must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new ValueError(
        `unknown ${method} option "${key}"; ${known.length === 1 ? "the option is" : "the options are"} ${known.map((k) => `"${k}"`).join(", ")}`,
      );
    }
  }
}
