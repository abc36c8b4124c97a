/**
 * A state's initial value: `initialState`, and each field's default as the state's own value.
 */
import type { z } from "zod";
import { StateUpdateError } from "../errors/index.js";
import type { FieldSpec, StateDefinition } from "./define-state.js";
import { checkJson } from "./field-checks.js";

/**
 * The initial state of a definition: every field with a default, others absent. Plain `{}` without a definition.
 * @throws StateUpdateError (with `field`) when a field's default throws; StateStoreError (with
 *   `field`, the path) when a default is not JSON (a `Date`, a function, `NaN` …).
 */
export function initialState(def: StateDefinition | null): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  if (!def) return state;
  for (const spec of def.fields.values()) {
    const value = defaultOf(spec);
    if (value !== undefined) state[spec.name] = value;
  }
  return state;
}

/**
 * A field's default as a state's own value, or `undefined` when it has none: zod hands out
 * the same object for `.default([{ … }])` every time, so a change made to one state's value
 * inside it would otherwise reach every new state.
 * @throws as {@link initialState}.
 */
export function defaultOf(spec: FieldSpec): unknown {
  let r: ReturnType<z.ZodType["safeParse"]>;
  try {
    r = spec.schema.safeParse(undefined);
  } catch (e) {
    throw new StateUpdateError(
      `The default of state field "${spec.name}" threw: ${e instanceof Error ? e.message : String(e)}`,
      { field: spec.name, cause: e },
    );
  }
  if (!r.success || r.data === undefined) return undefined;
  checkJson(r.data, "", spec.name, false, () => `the default of state field "${spec.name}"`);
  return r.data !== null && typeof r.data === "object" ? structuredClone(r.data) : r.data;
}
