/**
 * The lazy load of the engine's operations (`operations.ts`) by `Graph`: on a graph's first
 * run or thread call, not when nodestep is imported.
 *
 * @module
 */

/** The engine's operations: what `operations.ts` exports. */
export type Operations = typeof import("./operations.js");
let operations: Operations | undefined;

/**
 * Call `f` with the engine's operations, loading them on the first call (operations.ts):
 * once loaded, `f` runs at once, as a direct call would.
 */
export function withOperations<T>(f: (o: Operations) => Promise<T>): Promise<T> {
  if (operations !== undefined) return f(operations);
  return import("./operations.js").then((o) => {
    operations = o;
    return f(o);
  });
}
