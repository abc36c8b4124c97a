/**
 * The `addMessages` reducer and `RemoveMessage`.
 *
 * @module
 */
import type { Message } from "../chat/messages.js";
import { chatSchemas } from "../chat/schemas.js";
import { ValueError } from "../errors/index.js";
import { lazyObject, memo, nodeCrypto } from "../lazy.js";
import { zod } from "../zod-runtime.js";

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
  return { remove, update: z.union([z.array(item), item]) };
});

/** Zod schema of a {@link RemoveMessage} (built on first use). */
export const RemoveMessageSchema = lazyObject(() => schemas().remove);

/** A fresh message id. */
export function newMessageId(): string {
  return nodeCrypto().randomUUID();
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
 * {@link addMessages} for a fold that owns its lists: the same result, but a list in `owned`
 * (one this function made earlier in the same fold) is merged into in place instead of being
 * copied, so folding N events into a conversation of M messages costs what the events add,
 * not N copies of M. A list not in `owned` is copied once (by `addMessages`) and the copy is
 * added to `owned`. Only for a caller that drops every earlier value of the field (a fold of
 * events, where each state replaces the last); on a throw an owned list may hold part of the
 * update (the fold fails as a whole).
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
    const copy = addMessages(current, update);
    owned.add(copy);
    return copy;
  }
  const result = current as Message[];
  const raw = (Array.isArray(update) ? update : [update]) as ReadonlyArray<Message | RemoveMessage>;
  // An update that is the list itself is read from a copy (the loop appends to the list).
  const items = raw === result ? raw.slice() : raw;
  // (No closure per call: a cold load calls this once per event it folds, mostly before the
  // JIT has compiled it. The id index is built at the first lookup of the fold and kept.)
  let index: Map<string, number> | null = indexes.get(result) ?? null;
  try {
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (item.type === "remove") {
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
      if (item.id === null) {
        const message = { ...item, id: newMessageId() };
        result.push(message);
        index?.set(message.id, result.length - 1);
        continue;
      }
      index ??= buildIndex(result);
      const at = index.get(item.id);
      if (at === undefined) {
        result.push(item);
        index.set(item.id, result.length - 1);
      } else {
        result[at] = item;
      }
    }
  } finally {
    if (index) indexes.set(result, index);
    else indexes.delete(result);
  }
  return result;
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
