/**
 * A value shown in an error message of the built-in state stores. Internal.
 *
 * @module
 */

/**
 * `v` as an error message shows it: strings quoted, functions as "a function", objects and
 * arrays as their JSON (up to 60 characters, then "…").
 */
export function show(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "function") return "a function";
  if (typeof v === "object" && v !== null) {
    try {
      const json = JSON.stringify(v);
      if (json !== undefined) return json.length > 60 ? `${json.slice(0, 60)}…` : json;
    } catch {
      // (A cycle or a BigInt inside: shown as below.)
    }
  }
  try {
    return String(v);
  } catch {
    return typeof v;
  }
}
