/**
 * A state's initial value: `initialState`, and each field's default as the state's own value.
 */
import type { z } from "zod";
import { StateUpdateError } from "../errors/index.js";
import type { FieldSpec, StateDefinition } from "./define-state.js";
import { checkJson } from "./field-checks.js";
import { type Copier, copierForKeys, type Maker, makerForKeys, sameKeys } from "./shallow-copy.js";
import { knownState } from "./state-copy.js";

/** How a definition's initial states are made: the fields that had a default last time, in order. */
interface Layout {
  keys: string[];
  make: Maker;
  copier: Copier;
}

const layouts = new WeakMap<StateDefinition, Layout>();

/**
 * The initial state of a definition: every field with a default, others absent. Plain `{}` without a definition.
 * @throws StateUpdateError (with `field`) when a field's default throws; StateStoreError (with
 *   `field`, the path) when a default is not JSON (a `Date`, a function, `NaN` …).
 */
export function initialState(def: StateDefinition | null): Record<string, unknown> {
  if (!def) return {};
  const keys: string[] = [];
  const values: unknown[] = [];
  for (const spec of def.fields.values()) {
    const value = defaultOf(spec);
    if (value === undefined) continue;
    keys.push(spec.name);
    values.push(value);
  }
  // Made by a constructor of these keys (a state of many fields set one key at a time would
  // be one of V8's slow dictionary objects), and known to copyState (state-copy.ts).
  let layout = layouts.get(def);
  if (layout === undefined || !sameKeys(layout.keys, keys)) {
    const make = makerForKeys(keys);
    layout = make ? { keys, make, copier: copierForKeys(keys) } : undefined;
    if (layout) layouts.set(def, layout);
  }
  if (layout === undefined) {
    const state: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) state[keys[i]!] = values[i];
    return state;
  }
  const state = layout.make(values);
  const objects: string[] = [];
  for (let i = 0; i < keys.length; i++) {
    const v = values[i];
    if (typeof v === "object" && v !== null) objects.push(keys[i]!);
  }
  knownState(state, layout.copier, objects);
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
  const v = checkJson(
    r.data,
    "",
    spec.name,
    false,
    () => `the default of state field "${spec.name}"`,
  );
  return v !== null && typeof v === "object" ? structuredClone(v) : v;
}
