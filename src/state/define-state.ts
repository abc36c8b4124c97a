/**
 * Graph state definitions: fields with zod schemas, merged by reducers. `defineState`, the
 * types of a state's shape, and `isStateDefinition`.
 *
 * The other parts of a state live beside it, one concept per file: reducer.ts (`reducer`),
 * messages-field.ts (`messagesField`), initial-state.ts (`initialState`), prepare-update.ts
 * (`prepareUpdate`, `preparePayload`), apply-update.ts (`applyUpdate`, `applyUpdateTo`),
 * field-checks.ts (the checks of a written value), describe-value.ts (`describeValue`). This
 * module re-exports them, so existing imports of define-state.js keep working.
 *
 * @module
 */
import type { z } from "zod";
import { isZodType, zod } from "../zod-runtime.js";
import type { AnyReducedField, ReducedField, Reducer } from "./reducer.js";
import type { Replacement } from "./replace.js";
import type { FieldCodec } from "./update-codec.js";

export { applyUpdate, applyUpdateTo } from "./apply-update.js";
export { describeValue } from "./describe-value.js";
export { initialState } from "./initial-state.js";
export { messagesField } from "./messages-field.js";
export { claimOwned, preparePayload, prepareUpdate } from "./prepare-update.js";
export { type AnyReducedField, type ReducedField, type Reducer, reducer } from "./reducer.js";

/** A field in a {@link defineState} shape: a zod schema (last write wins) or a {@link ReducedField}. */
export type FieldDeclaration = z.ZodType | AnyReducedField;
/** The shape given to {@link defineState}. */
export type StateShape = Record<string, FieldDeclaration>;

type FieldValue<F> =
  F extends ReducedField<infer S, infer _U>
    ? z.output<S>
    : F extends z.ZodType
      ? z.output<F>
      : never;
type FieldUpdate<F> =
  F extends ReducedField<infer S, infer U>
    ? U | Replacement<z.output<S>>
    : F extends z.ZodType
      ? z.input<F> | Replacement<z.output<F>>
      : never;

/** The state type of a shape: each field's value type. */
export type StateOfShape<S extends StateShape> = { [K in keyof S]: FieldValue<S[K]> };
/** An update of a shape: some fields, each with its reducer's update type, or a `Replace`. */
export type UpdateOfShape<S extends StateShape> = { [K in keyof S]?: FieldUpdate<S[K]> };

/** One compiled field of a state definition. */
export interface FieldSpec {
  readonly name: string;
  readonly schema: z.ZodType;
  readonly reducer: Reducer<unknown, unknown> | null;
  readonly update: z.ZodType | null;
  readonly prepare: ((update: unknown) => unknown) | null;
  /** How the field's updates are stored, or `null` (as they are). */
  readonly codec: FieldCodec | null;
}

/** A prepared update: validated, normalized, safe for JSON; ready for {@link StateDefinition.apply}. */
export type PreparedUpdate = Record<string, unknown>;

/**
 * A graph state: named fields with zod schemas and optional reducers. Made by {@link defineState}.
 *
 * `State` is the type of the state, `Update` the type of an update.
 */
export interface StateDefinition<S extends StateShape = StateShape> {
  readonly kind: "state";
  readonly shape: S;
  readonly fields: ReadonlyMap<string, FieldSpec>;
  /** Type helper: the state's type (never set at run time). */
  readonly State: StateOfShape<S>;
  /** Type helper: an update's type (never set at run time). */
  readonly Update: UpdateOfShape<S>;
  /** A new definition with the fields of this one and `more` (a field of `more` replaces one of the same name). */
  extend<M extends StateShape>(more: M): StateDefinition<Omit<S, keyof M> & M>;
}

/**
 * Declare a graph state.
 *
 * @param shape - field name → zod schema (last write wins) or `reducer(schema, fn)` / `messagesField()`.
 *   A field's initial value is its schema's `.default(...)`; a field without one starts absent.
 * @throws TypeError if a field is neither a zod schema nor a reducer field, or is named `"__proto__"`.
 * @example
 * ```ts
 * const State = defineState({
 *   messages: messagesField(),
 *   count: reducer(z.number().default(0), (a, b) => a + b),
 *   topic: z.string().nullable().default(null),
 * });
 * type S = typeof State.State;
 * ```
 */
export function defineState<S extends StateShape>(shape: S): StateDefinition<S> {
  if (shape === null || typeof shape !== "object" || Array.isArray(shape)) {
    throw new TypeError(
      "defineState(shape): shape must be an object of field name → zod schema or reducer(schema, fn)",
    );
  }
  const fields = new Map<string, FieldSpec>();
  for (const [name, decl] of Object.entries(shape)) {
    if (name === "__proto__") {
      // As a key of a state object it would set the object's prototype, not hold a value.
      throw new TypeError(
        'defineState: a field cannot be named "__proto__" (a state object would take its value as its prototype)',
      );
    }
    if (isZodType(decl)) {
      fields.set(name, {
        name,
        schema: decl,
        reducer: null,
        update: null,
        prepare: null,
        codec: null,
      });
    } else if (decl && (decl as { kind?: unknown }).kind === "reduced") {
      const r = decl as unknown as ReducedField<z.ZodType, unknown>;
      fields.set(name, {
        name,
        schema: r.schema,
        reducer: r.reducer,
        update: r.update,
        prepare: r.prepare,
        codec: r.codec ?? null,
      });
    } else {
      zod(); // with zod 3 installed, the error that says nodestep needs zod 4
      throw new TypeError(
        `defineState: field "${name}" must be a zod schema or reducer(schema, fn)`,
      );
    }
  }
  const def = {
    kind: "state" as const,
    shape,
    fields,
    extend<M extends StateShape>(more: M) {
      return defineState({ ...shape, ...more } as unknown as Omit<S, keyof M> & M);
    },
  };
  return def as unknown as StateDefinition<S>;
}

/** Whether a value is a {@link StateDefinition}. */
export function isStateDefinition(value: unknown): value is StateDefinition {
  return (
    typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "state"
  );
}
