/**
 * Reducer fields: `reducer(schema, fn, options)`, the `ReducedField` it makes, and the check of
 * its options.
 */
import type { z } from "zod";
import { checkZodType } from "../zod-runtime.js";
import { describeValue } from "./describe-value.js";
import type { FieldCodec } from "./update-codec.js";

/** A reducer: merges an update into a field's current value and returns the new value without changing either. */
export type Reducer<T, U = T> = (current: T, update: U) => T;

/** A state field declared with a reducer; made by {@link reducer}. */
export interface ReducedField<S extends z.ZodType = z.ZodType, U = z.output<S>> {
  readonly kind: "reduced";
  readonly schema: S;
  readonly reducer: Reducer<z.output<S>, U>;
  /** Schema of one update; the field's schema when not given. */
  readonly update: z.ZodType<U, unknown> | null;
  /** Turns a validated update into the form stored in the event log (messages get their ids here). */
  readonly prepare: ((update: U) => U) | null;
  /** How the field's prepared updates are stored in the event log, when not as they are. */
  readonly codec: FieldCodec | null;
}

/**
 * Declare a state field whose updates are merged with `fn` instead of replacing the value.
 *
 * @param schema - zod schema of the field's value; its `.default(...)` is the initial value.
 *   Without a default, the field's first update is its value (`fn` runs from the second
 *   update on); `fn` sees `undefined` as `current` only when `schema` allows `undefined`.
 * @param fn - `(current, update) => next`; must not change its inputs.
 * @param options.update - zod schema of one update, when it differs from the value's schema.
 * @param options.prepare - turns a validated update into the form that is applied and stored
 *   (give it everything that must not change when the update is folded again, such as fresh ids).
 * @param options.codec - how a prepared update is stored in the event log, when not as it is;
 *   `codec.decode(codec.encode(u))` must equal `u`, key order included.
 * @example const State = defineState({ total: reducer(z.number().default(0), (a, b) => a + b) });
 */
export function reducer<S extends z.ZodType, U = z.output<S>>(
  schema: S,
  fn: Reducer<z.output<S>, U>,
  options: {
    update?: z.ZodType<U, unknown>;
    prepare?: (update: U) => U;
    codec?: FieldCodec;
  } = {},
): ReducedField<S, U> {
  if (!checkZodType(schema))
    throw new TypeError("reducer(schema, fn): schema must be a zod schema");
  if (typeof fn !== "function") throw new TypeError("reducer(schema, fn): fn must be a function");
  checkReducerOptions(options);
  return {
    kind: "reduced",
    schema,
    reducer: fn,
    update: options.update ?? null,
    prepare: options.prepare ?? null,
    codec: options.codec ?? null,
  };
}

const REDUCER_OPTIONS = ["update", "prepare", "codec"];

/** Check the options of {@link reducer}: an object of known keys, each of its kind (or left out). */
function checkReducerOptions(options: unknown): void {
  const where = "reducer(schema, fn, options)";
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`${where}: options must be an object, got ${describeValue(options)}`);
  }
  const o = options as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !REDUCER_OPTIONS.includes(k));
  if (unknown.length > 0) {
    throw new TypeError(
      `${where}: unknown option${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `"${k}"`).join(", ")}; the options are ${REDUCER_OPTIONS.join(", ")}`,
    );
  }
  if (o.update !== undefined && !checkZodType(o.update)) {
    throw new TypeError(`${where}: update must be a zod schema, got ${describeValue(o.update)}`);
  }
  if (o.prepare !== undefined && typeof o.prepare !== "function") {
    throw new TypeError(`${where}: prepare must be a function, got ${describeValue(o.prepare)}`);
  }
  const codec = o.codec as { encode?: unknown; decode?: unknown } | undefined;
  if (
    codec !== undefined &&
    (codec === null ||
      typeof codec !== "object" ||
      typeof codec.encode !== "function" ||
      typeof codec.decode !== "function")
  ) {
    throw new TypeError(
      `${where}: codec must be an object { encode, decode } of two functions, got ${describeValue(codec)}${codec !== null && typeof codec === "object" ? ` with encode: ${typeof codec.encode}, decode: ${typeof codec.decode}` : ""}`,
    );
  }
}

/** Any {@link ReducedField}, whatever its value and update types. */
export interface AnyReducedField {
  readonly kind: "reduced";
  readonly schema: z.ZodType;
  readonly reducer: (current: never, update: never) => unknown;
  readonly update: z.ZodType | null;
  readonly prepare: ((update: never) => unknown) | null;
  readonly codec: FieldCodec | null;
}
