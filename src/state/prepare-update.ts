/**
 * Preparing what is written to a state before it is applied and stored: `prepareUpdate` (a
 * node's update, the run input) and `preparePayload` (a `Send`'s payload).
 */
import { StateUpdateError } from "../errors/index.js";
import { isPlainObject } from "../json/index.js";
import { lastParseWasPlain } from "../zod-cycles.js";
import type { MessagesUpdate } from "./add-messages.js";
import type { PreparedUpdate, StateDefinition } from "./define-state.js";
import { describeValue } from "./describe-value.js";
import {
  capitalize,
  checkJson,
  describeWriter,
  fieldValueOf,
  parseOrThrow,
} from "./field-checks.js";
import { prepareMessages, prepareOwnMessages } from "./messages-field.js";
import { isReplacement } from "./replace.js";

/**
 * The update {@link prepareUpdate} made last, when it shares nothing mutable with what its
 * writer holds (every value a primitive or a deep copy made while preparing it), until
 * {@link claimOwned} takes it: the engine asks right after preparing a task's update
 * (interpret.ts), with nothing run in between.
 */
let lastOwned: PreparedUpdate | null = null;

/**
 * Whether `update` is the update {@link prepareUpdate} made last and shares nothing mutable
 * with what its writer holds (every value a primitive, or a deep copy the plain parse made,
 * zod-cycles.ts), so that a copy of it taken for the same reason would hold the same data and
 * be no safer. It is claimed so: a second call for it answers `false`.
 */
export function claimOwned(update: unknown): boolean {
  if (update === null || update !== lastOwned) return false;
  lastOwned = null;
  return true;
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
  // Whether every value so far is a primitive or a deep copy made here (see claimOwned).
  let copies = def !== null;
  for (const key in update) {
    let value = update[key];
    if (value === undefined) continue;
    if (!def) {
      if (isReplacement(value)) value = value.value;
      out[key] = checkJson(value, node, key);
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
      const v = checkJson(fieldValueOf(spec, value.value, node), node, key);
      out[key] = { $nodestep: "replace", value: v };
      copies = false;
      continue;
    }
    let v: unknown;
    let copy: boolean;
    if (spec.reducer) {
      v = parseOrThrow(spec.update ?? spec.schema, value, node, key, "update");
      copy = lastParseWasPlain();
      if (spec.prepare) {
        // A messages update that is the plain parse's copy gets its ids in place; another
        // field's prepare may give back anything.
        if (copy && spec.prepare === prepareMessages) v = prepareOwnMessages(v as MessagesUpdate);
        else {
          v = spec.prepare(v);
          copy = false;
        }
      }
    } else {
      v = fieldValueOf(spec, value, node);
      copy = lastParseWasPlain();
    }
    // (A value with a -0 or a key holding undefined comes back as a copy JSON makes: owned.)
    const exact = checkJson(v, node, key);
    if (exact !== v) copy = true;
    v = exact;
    out[key] = v;
    if (!copy && v !== null && typeof v === "object") copies = false;
  }
  lastOwned = copies ? out : null;
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
    out[key] = checkJson(v, node, key, true);
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
