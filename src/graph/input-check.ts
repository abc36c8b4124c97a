/**
 * `checkRunInput`: check a run's input against a graph as `invoke` does, without running it,
 * so that a caller (the CLI) can refuse a bad input before it prints or opens anything.
 *
 * @module
 */
import type { StateDefinition } from "../state/define-state.js";
import { prepareUpdate } from "../state/define-state.js";
import type { Graph } from "./graph.js";
import { checkInputFields } from "./io-schema.js";

/**
 * Check `input` as `graph.invoke(input)` would before its first step: only `input` fields
 * (see `GraphOptions.input`), every key a state field, every value fitting its field.
 * `null` (continue a thread) passes. Nothing is run or stored.
 * @throws StateUpdateError (its `node` `"__input__"`) as `invoke` throws it for that input.
 * @example
 * ```ts
 * checkRunInput(graph, { count: "x" }); // StateUpdateError: Invalid value for state field "count" …
 * ```
 */
export function checkRunInput(
  graph: Graph<StateDefinition | null>,
  input: Record<string, unknown> | null,
): void {
  if (input === null) return;
  checkInputFields(graph.name, input, graph.inputFields);
  prepareUpdate(graph.state, input, "__input__", false);
}
