/**
 * Graph state definitions: fields with zod schemas, merged by reducers.
 *
 * @module
 */
import type { z } from "zod";
import type { Message } from "../chat/messages.js";
import { StateStoreError, StateUpdateError } from "../errors/index.js";
import { findNonJson, isPlainObject } from "../json/index.js";
import { memo } from "../lazy.js";
import { checkZodType, isZodType, zod } from "../zod-runtime.js";
import {
  addMessages,
  addMessagesOwned,
  type MessagesUpdate,
  messagesUpdateSchema,
  newMessageId,
  type RemoveMessage,
} from "./add-messages.js";
import { issueText } from "./issue-text.js";
import { messagesCodec } from "./messages-codec.js";
import { isReplacement, type Replacement } from "./replace.js";
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

function prepareMessages(update: MessagesUpdate): MessagesUpdate {
  if (Array.isArray(update)) {
    let copy: Array<Message | RemoveMessage> | null = null;
    for (let i = 0; i < update.length; i++) {
      const m = update[i] as Message | RemoveMessage;
      if (m.type !== "remove" && m.id === null) {
        copy ??= update.slice() as Array<Message | RemoveMessage>;
        copy[i] = { ...m, id: newMessageId() };
      }
    }
    return copy ?? update;
  }
  const m = update as Message | RemoveMessage;
  return m.type !== "remove" && m.id === null ? { ...m, id: newMessageId() } : m;
}

/** The schema of a messages field's value (built on first use: no zod at import). */
const messagesSchema = memo(() => zod().array(zod().custom<Message>()).default([]));

/**
 * A conversation field: `Message[]`, default `[]`, merged by {@link addMessages}.
 * An update is a message or a list of messages and `RemoveMessage` markers.
 */
export function messagesField(): ReducedField<ReturnType<typeof messagesSchema>, MessagesUpdate> {
  return reducer(messagesSchema(), addMessages, {
    update: messagesUpdateSchema() as unknown as z.ZodType<MessagesUpdate, unknown>,
    prepare: prepareMessages,
    codec: messagesCodec,
  });
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

/** `send`: the value is a `Send`'s payload for `node` (errors say so). */
function fieldValueOf(spec: FieldSpec, value: unknown, node: string, send = false): unknown {
  return parseOrThrow(spec.schema, value, node, spec.name, "value", send);
}

function parseOrThrow(
  schema: z.ZodType,
  value: unknown,
  node: string,
  field: string,
  what: string,
  send = false,
): unknown {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  // The texts of an error are built only when there is one (this runs for every field written).
  const writer = send ? describeSend(node) : describeWriter(node);
  const issue = issueText(r.error.issues[0]!, value);
  const where = issue.path.length
    ? ` at ${field}${issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`
    : "";
  throw new StateUpdateError(
    `Invalid ${what} for state field "${field}" written by ${writer}${where}: ${issue.message}`,
    { node, field, cause: r.error },
  );
}

function describeWriter(node: string): string {
  if (node === "__input__") return "the run input";
  // graph.updateState(threadId, update) without asNode, and Command({ update }) as run input.
  if (node === "__update__") return "the update given to updateState";
  return `node "${node}"`;
}

/** How errors name the payload of a `Send` to `node`. */
function describeSend(node: string): string {
  return `the Send payload for node "${node}"`;
}

/**
 * Declare a graph state.
 *
 * @param shape - field name → zod schema (last write wins) or `reducer(schema, fn)` / `messagesField()`.
 *   A field's initial value is its schema's `.default(...)`; a field without one starts absent.
 * @throws TypeError if a field is neither a zod schema nor a reducer field.
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
function defaultOf(spec: FieldSpec): unknown {
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

/**
 * Refuse a value that is not JSON, with its path. `send`: a `Send`'s payload for `node`;
 * `what`: what is stored, when it is neither (built only when there is an error to tell).
 */
function checkJson(
  value: unknown,
  node: string,
  field: string,
  send = false,
  what?: () => string,
): void {
  const bad = findNonJson(value, field);
  if (bad) {
    const stored = what
      ? what()
      : send
        ? describeSend(node)
        : `the update of ${describeWriter(node)}`;
    throw new StateStoreError(`Cannot store ${stored}: ${bad.path} is not JSON (${bad.problem})`, {
      field: bad.path,
    });
  }
}

/**
 * Validate and normalize an update: every key must be a field (unless the state is a plain
 * object), every value must fit the field's update schema, and everything must survive JSON.
 * Messages get their ids here, so that folding the stored update again gives the same state.
 *
 * @param node - the writer, named in errors (`"__input__"` for the run input).
 * @param allowReplace - `false` for the input, where `Replace` is refused.
 * @throws StateUpdateError for an unknown field, an invalid value or a misplaced `Replace`.
 * @throws StateStoreError for a value that does not survive JSON.
 */
export function prepareUpdate(
  def: StateDefinition | null,
  update: unknown,
  node: string,
  allowReplace = true,
): PreparedUpdate {
  if (!isPlainObject(update)) {
    throw new StateUpdateError(
      `${capitalize(describeWriter(node))} returned ${describeValue(update)}; an update must be a plain object of state fields`,
      { node },
    );
  }
  const out: PreparedUpdate = {};
  for (const key in update) {
    let value = update[key];
    if (value === undefined) continue;
    if (!def) {
      if (isReplacement(value)) value = value.value;
      checkJson(value, node, key);
      out[key] = value;
      continue;
    }
    const spec = def.fields.get(key);
    if (!spec) {
      throw new StateUpdateError(
        `${capitalize(describeWriter(node))} wrote unknown state field "${key}"; declared fields: ${[...def.fields.keys()].join(", ")}`,
        { node, field: key },
      );
    }
    if (isReplacement(value)) {
      if (!allowReplace) {
        throw new StateUpdateError(
          `Replace is not allowed in ${describeWriter(node)} (field "${key}")`,
          { node, field: key },
        );
      }
      // A field cannot hold undefined (JSON has none): refused, not taken for the default.
      // (A node that sets a field of its state to undefined writes Replace(undefined).)
      if (value.value === undefined) checkJson(undefined, node, key);
      const v = fieldValueOf(spec, value.value, node);
      checkJson(v, node, key);
      out[key] = { $nodestep: "replace", value: v };
      continue;
    }
    let v: unknown;
    if (spec.reducer) {
      v = parseOrThrow(spec.update ?? spec.schema, value, node, key, "update");
      if (spec.prepare) v = spec.prepare(v);
    } else {
      v = fieldValueOf(spec, value, node);
    }
    checkJson(v, node, key);
    out[key] = v;
  }
  return out;
}

/**
 * Validate a `Send` payload: fields laid over the state for one task, without reducers.
 * Keys must be fields (unless the state is a plain object); `Replace` and `RemoveMessage` are refused.
 *
 * @param node - the node the `Send` targets; errors name it (`the Send payload for node "…"`)
 *   and carry it as `node`.
 * @throws StateUpdateError for a payload that is not a plain object, an unknown field, an
 *   invalid value, a `Replace` or a `RemoveMessage`.
 * @throws StateStoreError for a value that does not survive JSON.
 */
export function preparePayload(
  def: StateDefinition | null,
  payload: unknown,
  node: string,
): Record<string, unknown> {
  if (payload === null || payload === undefined) return {};
  if (!isPlainObject(payload)) {
    throw new StateUpdateError(
      `Send payload for node "${node}" must be a plain object of state fields, got ${describeValue(payload)}`,
      { node },
    );
  }
  const out: Record<string, unknown> = {};
  for (const key in payload) {
    const value = payload[key];
    if (value === undefined) continue;
    if (isReplacement(value) || containsRemove(value)) {
      throw new StateUpdateError(
        `Send payload for node "${node}" has ${isReplacement(value) ? "a Replace" : "a RemoveMessage"} in field "${key}"; a payload sets values as they are, without reducers`,
        { node, field: key },
      );
    }
    let v: unknown = value;
    if (def) {
      const spec = def.fields.get(key);
      if (!spec) {
        throw new StateUpdateError(
          `Send payload for node "${node}" has unknown state field "${key}"; declared fields: ${[...def.fields.keys()].join(", ")}`,
          { node, field: key },
        );
      }
      v = fieldValueOf(spec, value, node, true);
    }
    checkJson(v, node, key, true);
    out[key] = v;
  }
  return out;
}

function containsRemove(value: unknown): boolean {
  if (Array.isArray(value))
    return value.some((v) => isPlainObject(v) && v.type === "remove" && typeof v.id === "string");
  return (
    isPlainObject(value) &&
    value.type === "remove" &&
    typeof value.id === "string" &&
    Object.keys(value).length === 2
  );
}

/**
 * Apply a prepared update to a state and return the new state (the old one is not changed).
 *
 * @throws StateUpdateError when a reducer throws, naming the node and the field, with the reducer's error as `cause`.
 */
export function applyUpdate(
  def: StateDefinition | null,
  state: Record<string, unknown>,
  update: PreparedUpdate,
  node: string,
  owned?: WeakSet<object>,
): Record<string, unknown> {
  const next = { ...state };
  applyUpdateTo(def, next, update, node, owned);
  return next;
}

/**
 * Apply a prepared update to `next` itself: {@link applyUpdate} without the copy, for a
 * caller that applies several updates to one fresh copy (a superstep's tasks).
 *
 * With `owned` (a fold of events, which drops every earlier state): a messages field merged
 * by {@link addMessages} is merged in place into a list the fold made (`addMessagesOwned`),
 * the same result without a copy of the conversation per update.
 * @throws StateUpdateError as {@link applyUpdate}; `next` may then hold part of the update.
 */
export function applyUpdateTo(
  def: StateDefinition | null,
  next: Record<string, unknown>,
  update: PreparedUpdate,
  node: string,
  owned?: WeakSet<object>,
): void {
  for (const key in update) {
    const value = update[key];
    const spec = def?.fields.get(key);
    if (isReplacement(value) || !spec?.reducer) {
      next[key] = isReplacement(value) ? value.value : value;
      continue;
    }
    let current = next[key];
    if (current === undefined) {
      current = defaultOf(spec);
      // No default: the first update is the value (a reducer sees `undefined` as the
      // current value only when its schema allows `undefined`).
      if (current === undefined && !allowsUndefined(spec)) {
        next[key] = value;
        continue;
      }
    }
    try {
      next[key] =
        owned !== undefined && spec.reducer === addMessages && Array.isArray(current)
          ? addMessagesOwned(current as Message[], value as MessagesUpdate, owned)
          : spec.reducer(current, value);
    } catch (e) {
      throw new StateUpdateError(
        `Reducer of state field "${key}" failed on the update of ${describeWriter(node)}: ${(e as Error).message}`,
        { node, field: key, cause: e },
      );
    }
  }
}

/** Whether a field's schema takes `undefined` as a value (`.optional()`), not only as "use the default". */
function allowsUndefined(spec: FieldSpec): boolean {
  try {
    const r = spec.schema.safeParse(undefined);
    return r.success && r.data === undefined;
  } catch {
    return false;
  }
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A short description of a value's kind for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return "an object";
    const name = (value as { constructor?: { name?: string } }).constructor?.name;
    return name && name !== "Object"
      ? `a ${name}`
      : "an object that is not plain (its prototype is another object)";
  }
  return `a ${typeof value} (${String(value).slice(0, 40)})`;
}
