/**
 * Options objects of store methods checked (unknown keys refused), and `listThreads`' bounds
 * and order. Internal (see `internal.ts`).
 *
 * @module
 */
import { StateStoreError, ValueError } from "../errors/index.js";
import { show } from "./show-value.js";
import type { ListThreadsOptions, ThreadInfo } from "./types.js";

/** Order of `listThreads`: most recently updated first, then by thread id. */
export function byUpdatedAt(a: ThreadInfo, b: ThreadInfo): number {
  return (
    b.updatedAt - a.updatedAt || (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0)
  );
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
