/**
 * A value shown in an error message of the built-in state stores. Internal.
 *
 * @module
 */

/** `v` as an error message shows it: strings quoted, functions as "a function". */
export function show(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "function") return "a function";
  try {
    return String(v);
  } catch {
    return typeof v;
  }
}
