/**
 * Applying a prepared update to a state: `applyUpdate` (a new state) and `applyUpdateTo` (in
 * place), through each field's reducer.
 */
import type { Message } from "../chat/messages.js";
import { StateUpdateError } from "../errors/index.js";
import { addMessages, addMessagesOwned, type MessagesUpdate } from "./add-messages.js";
import type { FieldSpec, PreparedUpdate, StateDefinition } from "./define-state.js";
import { describeWriter } from "./field-checks.js";
import { defaultOf } from "./initial-state.js";
import { isReplacement } from "./replace.js";
import { noteWrites, trackedCopy } from "./state-copy.js";

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
 * Apply a prepared update to a copy of `state` made for a run that goes on from it (the
 * state a run starts from, its input applied): {@link applyUpdate}, with a copy that
 * copyState (state-copy.ts) knows from the start, so that a state of many fields is not
 * looked at key by key on the run's first copy. `fresh`: `state` itself is new and nothing
 * else holds it (a run's initial state), so it is written in place.
 *
 * @throws StateUpdateError as {@link applyUpdate}.
 */
export function applyRunInput(
  def: StateDefinition | null,
  state: Record<string, unknown>,
  update: PreparedUpdate,
  fresh: boolean,
): Record<string, unknown> {
  const next = fresh ? state : trackedCopy(state);
  const keys: string[] = [];
  let added = false;
  for (const key in update) {
    keys.push(key);
    if (!Object.hasOwn(next, key)) added = true;
  }
  applyUpdateTo(def, next, update, "__input__");
  noteWrites(next, keys, added);
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
