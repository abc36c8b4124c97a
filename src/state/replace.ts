/**
 * Reducer escapes: {@link Replace} sets a field past its reducer.
 *
 * @module
 */

/** Marker of a {@link Replace} value: plain JSON data so that it can be stored in the event log. */
export interface Replacement<T> {
  $nodestep: "replace";
  value: T;
}

/**
 * Write `value` to a field as it is, without the field's reducer.
 *
 * Allowed in node updates and `Command.update`; refused in `Send` payloads and the run input
 * with `StateUpdateError`.
 *
 * @example return { messages: Replace([SystemMessage({ content: "Start over." })]) };
 */
export function Replace<T>(value: T): Replacement<T> {
  return { $nodestep: "replace", value };
}

/** Whether `value` is a {@link Replace} marker. */
export function isReplacement(value: unknown): value is Replacement<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { $nodestep?: unknown }).$nodestep === "replace"
  );
}
