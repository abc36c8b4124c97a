/**
 * Input and output schemas of a graph (`new Graph(State, { input, output })`): which state
 * fields a caller may pass, and which a result and a `"values"` event show. Internal fields
 * stay in the thread's state (nodes, `getState` and the log see them all).
 *
 * @module
 */
import { StateUpdateError, ValueError } from "../errors/index.js";
import { isStateDefinition, type StateDefinition } from "../state/define-state.js";

/** The fields of an input or output schema: a list of state field names, or a `defineState` definition (its field names). */
export type FieldSchema = readonly string[] | StateDefinition;

/**
 * Check an `input` / `output` option and return its field names (`null` when not given).
 * @throws TypeError when it is neither a list of strings nor a state definition, or is empty;
 *   ValueError for a field the graph's state does not have (a graph with a definition).
 */
export function resolveFieldSchema(
  graphName: string,
  which: "input" | "output",
  schema: FieldSchema | undefined,
  state: StateDefinition | null,
): readonly string[] | null {
  if (schema === undefined) return null;
  let fields: string[];
  if (isStateDefinition(schema)) fields = [...schema.fields.keys()];
  else if (Array.isArray(schema) && schema.every((f) => typeof f === "string" && f !== "")) {
    fields = [...new Set(schema as readonly string[])];
  } else {
    throw new TypeError(
      `Graph "${graphName}": ${which} must be a list of state field names or a defineState(...) definition`,
    );
  }
  if (fields.length === 0) {
    throw new TypeError(`Graph "${graphName}": ${which} lists no fields`);
  }
  if (state !== null) {
    for (const f of fields) {
      if (!state.fields.has(f)) {
        throw new ValueError(
          `Graph "${graphName}": ${which} names field "${f}", which is not a field of the graph's state; fields: ${[...state.fields.keys()].join(", ")}`,
        );
      }
    }
  }
  return fields;
}

/**
 * Refuse a run input with a field outside the graph's `input` fields.
 * @throws StateUpdateError naming the field (`node` is `"__input__"`).
 */
export function checkInputFields(
  graphName: string,
  input: unknown,
  fields: readonly string[] | null,
): void {
  if (fields === null || typeof input !== "object" || input === null) return;
  for (const key of Object.keys(input)) {
    if ((input as Record<string, unknown>)[key] === undefined) continue;
    if (!fields.includes(key)) {
      throw new StateUpdateError(
        `Graph "${graphName}": the input has field "${key}", which is not an input field; input fields: ${fields.join(", ")}`,
        { node: "__input__", field: key },
      );
    }
  }
}

/** The `output` fields of a state (the state itself when there is no output schema); fields absent from the state stay absent. */
export function pickOutput<S extends Record<string, unknown>>(
  state: S,
  fields: readonly string[] | null,
): S {
  if (fields === null) return state;
  const out: Record<string, unknown> = {};
  for (const f of fields) if (Object.hasOwn(state, f)) out[f] = state[f];
  return out as S;
}
