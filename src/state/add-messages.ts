/**
 * The `addMessages` reducer and `RemoveMessage`.
 *
 * @module
 */
import type { Message } from "../chat/messages.js";
import { plainMessagesUpdate } from "../chat/plain-parse.js";
import { chatSchemas, chatSchemasNoCycles } from "../chat/schemas.js";
import { ValueError } from "../errors/index.js";
import { lazyObject, memo } from "../lazy.js";
import { buildWithoutCycleMemo, registerTwin } from "../zod-cycles.js";
import { zod } from "../zod-runtime.js";
import { randomId } from "./message-id.js";

/** Marker that removes the message with `id` when merged by {@link addMessages}. Plain data. */
export interface RemoveMessage {
  type: "remove";
  id: string;
}

/**
 * A marker that removes the message with this id from a messages field.
 * @example return { messages: [RemoveMessage(oldest.id!)] };
 */
export function RemoveMessage(id: string): RemoveMessage {
  if (typeof id !== "string" || id === "")
    throw new TypeError("RemoveMessage needs a non-empty message id");
  return { type: "remove", id };
}

/** What a messages field accepts as an update: one message or a list, with {@link RemoveMessage} markers. */
export type MessagesUpdate = Message | RemoveMessage | ReadonlyArray<Message | RemoveMessage>;

/** The schemas of this module, built on first use (no zod at import: see zod-runtime.ts). */
const schemas = memo(() => {
  const z = zod();
  const remove = z.strictObject({ type: z.literal("remove"), id: z.string().min(1) });
  const item = z.union([chatSchemas().message, remove]);
  const update = z.union([z.array(item), item]);
  // nodestep's own parse of an update: the same schema without zod's cycle memoizer (a value
  // with a cycle is parsed by `update` itself: zod-cycles.ts).
  const twin = buildWithoutCycleMemo(() => {
    const twinItem = z.union([chatSchemasNoCycles().message, remove]);
    return z.union([z.array(twinItem), twinItem]);
  });
  registerTwin(update, twin, plainMessagesUpdate);
  return { remove, update };
});

/** Zod schema of a {@link RemoveMessage} (built on first use). */
export const RemoveMessageSchema = lazyObject(() => schemas().remove);

/** A fresh message id (a random UUID). */
export function newMessageId(): string {
  return randomId();
}

/**
 * Merge messages into a conversation.
 *
 * New messages are appended, in order. A message whose id is already present replaces that
 * message where it stands. A {@link RemoveMessage} removes the message with its id. Messages
 * without an id get a fresh one. Neither input is changed; a new array is returned.
 *
 * @param current - the conversation so far.
 * @param update - a message, or a list of messages and removals.
 * @returns the merged conversation.
 * @throws ValueError when a `RemoveMessage` names an id that is not in the conversation.
 */
export function addMessages(current: readonly Message[], update: MessagesUpdate): Message[] {
  const items = (Array.isArray(update) ? update : [update]) as ReadonlyArray<
    Message | RemoveMessage
  >;
  const result = current.slice();
  // The id → index map of `current`, handed over to `result` so that a long conversation is
  // not re-indexed on every update (each update costs what it adds, not the whole history).
  // A list of at most SCAN_MAX messages without one is searched instead (no map, no closure).
  let index: Map<string, number> | null = indexes.get(current) ?? null;
  if (index) indexes.delete(current);
  for (const item of items) {
    if (item.type === "remove") {
      const at = index ? index.get(item.id) : lastIndexOfId(result, item.id);
      if (at === undefined) {
        throw new ValueError(`RemoveMessage: no message with id "${item.id}" in the conversation`);
      }
      result.splice(at, 1);
      index = null;
      continue;
    }
    const message = item.id === null ? { ...item, id: newMessageId() } : item;
    let at: number | undefined;
    if (item.id !== null) {
      if (!index && result.length > SCAN_MAX) index = buildIndex(result);
      at = index ? index.get(item.id) : lastIndexOfId(result, item.id);
    }
    if (at === undefined) {
      result.push(message);
      index?.set(message.id as string, result.length - 1);
    } else {
      result[at] = message;
    }
  }
  if (index) indexes.set(result, index);
  return result;
}

/**
 * The longest list {@link addMessages} searches for an id instead of indexing it (when no
 * index was handed over to it): a pass over a few dozen ids costs less than building the map.
 */
export const SCAN_MAX = 64;

/** Position of the last message of `list` with id `id` (what the index holds), or `undefined`. */
function lastIndexOfId(list: readonly Message[], id: string): number | undefined {
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.id === id) return i;
  return undefined;
}

const indexes = new WeakMap<readonly Message[], Map<string, number>>();

/**
 * {@link addMessages} for a fold that owns its lists: the same result once the fold is over
 * ({@link settleMessages}), but a list in `owned` (one this function made earlier in the same
 * fold) is merged into in place instead of being copied, so folding N events into a
 * conversation of M messages costs what the events add, not N copies of M. A list not in
 * `owned` is copied once and the copy is added to `owned`. Only for a caller that drops every
 * earlier value of the field (a fold of events, where each state replaces the last) and calls
 * {@link settleMessages} on the lists it keeps; on a throw an owned list may hold part of the
 * update (the fold fails as a whole).
 *
 * The copy of a list of more than `SCAN_MAX` messages that has no id index (one a cold load read from a snapshot) is not
 * indexed: the messages merged into it are looked up among those merged since the copy only,
 * and appended when new there; {@link settleMessages} then checks them against the messages
 * the list held, in one pass, and puts one with the id of a held message in its place (as
 * `addMessages` would have). A cold load's tail of a few hundred messages is so checked
 * without an index of the thousands the snapshot holds. A `RemoveMessage` settles the list
 * first.
 *
 * (`addMessages` itself is left as it is: its source is part of the key that says which
 * definition folded a snapshot, see load-position.ts.)
 * @throws ValueError as {@link addMessages}.
 */
export function addMessagesOwned(
  current: readonly Message[],
  update: MessagesUpdate,
  owned: WeakSet<object>,
): Message[] {
  if (!owned.has(current)) {
    if (indexes.has(current) || current.length <= SCAN_MAX) {
      // An indexed list (a warm position's; addMessages searches a short one instead of
      // indexing it): the copy takes its index over, and gives addMessages' result at once.
      const copy = addMessages(current, update);
      owned.add(copy);
      return copy;
    }
    const copy = current.slice();
    owned.add(copy);
    unchecked.set(copy, { held: copy.length, added: new Map() });
    return mergeOwned(copy, update);
  }
  return mergeOwned(current as Message[], update);
}

/** The in-place merge of {@link addMessagesOwned} into `result`, a list of the fold's. */
function mergeOwned(result: Message[], update: MessagesUpdate): Message[] {
  const raw = (Array.isArray(update) ? update : [update]) as ReadonlyArray<Message | RemoveMessage>;
  // An update that is the list itself is read from a copy (the loop appends to the list).
  const items = raw === result ? raw.slice() : raw;
  // (No closure per call: a cold load calls this once per event it folds, mostly before the
  // JIT has compiled it. The id index, when needed, is built at the first lookup and kept.)
  let pending = unchecked.get(result);
  let index: Map<string, number> | null = pending ? null : (indexes.get(result) ?? null);
  try {
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (item.type === "remove") {
        if (pending) {
          settle(result, pending);
          pending = undefined;
        }
        index ??= buildIndex(result);
        const at = index.get(item.id);
        if (at === undefined) {
          throw new ValueError(
            `RemoveMessage: no message with id "${item.id}" in the conversation`,
          );
        }
        result.splice(at, 1);
        index = null;
        continue;
      }
      const message = item.id === null ? { ...item, id: newMessageId() } : item;
      const id = message.id as string;
      if (pending) {
        const at = pending.added.get(id);
        if (at === undefined) {
          result.push(message);
          pending.added.set(id, result.length - 1);
        } else result[at] = message;
        continue;
      }
      if (item.id === null) {
        result.push(message);
        index?.set(id, result.length - 1);
        continue;
      }
      index ??= buildIndex(result);
      const at = index.get(id);
      if (at === undefined) {
        result.push(message);
        index.set(id, result.length - 1);
      } else {
        result[at] = message;
      }
    }
  } finally {
    if (index) indexes.set(result, index);
    else indexes.delete(result);
  }
  return result;
}

/**
 * A list {@link addMessagesOwned} copied without an id index: how many messages it `held`, and
 * where each message merged since went, by id (appended after the held ones).
 */
interface Unchecked {
  held: number;
  added: Map<string, number>;
}

const unchecked = new WeakMap<readonly Message[], Unchecked>();

/**
 * End a fold's merges into `list` (a no-op for any other value): the messages
 * {@link addMessagesOwned} appended to it with the id of a message it held replace that
 * message (the last one with the id) instead, so the list is what `addMessages` gives.
 */
export function settleMessages(list: unknown): void {
  if (!Array.isArray(list)) return;
  const pending = unchecked.get(list);
  if (pending) settle(list as Message[], pending);
}

function settle(list: Message[], pending: Unchecked): void {
  unchecked.delete(list);
  const { held, added } = pending;
  if (added.size === 0) return;
  // Held positions by the ids merged since (the last held message with an id wins, as in the
  // index addMessages builds); none in the common case.
  let found: Map<string, number> | null = null;
  for (let i = 0; i < held; i++) {
    const id = list[i]!.id;
    if (id !== null && added.has(id)) {
      found ??= new Map();
      found.set(id, i);
    }
  }
  if (found === null) return;
  const dropped = new Set<number>();
  for (const [id, at] of found) {
    const from = added.get(id)!;
    list[at] = list[from]!;
    dropped.add(from);
  }
  let to = held;
  for (let i = held; i < list.length; i++) if (!dropped.has(i)) list[to++] = list[i]!;
  list.length = to;
}

/**
 * Drop the id index {@link addMessages} keeps for `list` (an id → position map, about 46 bytes
 * a message); the next merge into `list` builds it again from the list (one pass). For
 * holders of many idle conversations (the graph's position cache); a no-op for any other value.
 */
export function forgetMessageIndex(list: unknown): void {
  if (Array.isArray(list)) indexes.delete(list);
}

/** Whether {@link addMessages} keeps an id index for `list` (for tests). */
export function hasMessageIndex(list: readonly Message[]): boolean {
  return indexes.has(list);
}

function buildIndex(list: readonly Message[]): Map<string, number> {
  const index = new Map<string, number>();
  for (let i = 0; i < list.length; i++) {
    const id = list[i]!.id;
    if (id !== null) index.set(id, i);
  }
  return index;
}

/** Zod schema of a {@link MessagesUpdate} (built on first use). */
export const MessagesUpdateSchema = lazyObject(() => schemas().update);

/** The built {@link MessagesUpdateSchema}, for nodestep's own code. */
export const messagesUpdateSchema = (): ReturnType<typeof schemas>["update"] => schemas().update;
