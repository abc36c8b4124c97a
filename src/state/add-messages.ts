/**
 * The `addMessages` reducer and `RemoveMessage`.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { type Message, MessageSchema } from "../chat/messages.js";
import { ValueError } from "../errors/index.js";

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

/** Zod schema of a {@link RemoveMessage}. */
export const RemoveMessageSchema = z.strictObject({
  type: z.literal("remove"),
  id: z.string().min(1),
});

/** A fresh message id. */
export function newMessageId(): string {
  return randomUUID();
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
  let result: Message[] | null = null;
  let index: Map<string, number> | null = null;
  const indexOf = (id: string): number | undefined => {
    if (!index) {
      index = new Map();
      const list = result ?? current;
      for (let i = 0; i < list.length; i++) {
        const mid = list[i]!.id;
        if (mid !== null) index.set(mid, i);
      }
    }
    return index.get(id);
  };
  const out = (): Message[] => {
    if (!result) result = current.slice();
    return result;
  };
  for (const item of items) {
    if (item.type === "remove") {
      const at = indexOf(item.id);
      if (at === undefined) {
        throw new ValueError(`RemoveMessage: no message with id "${item.id}" in the conversation`);
      }
      const list = out();
      list.splice(at, 1);
      index = null;
      continue;
    }
    const message = item.id === null ? { ...item, id: newMessageId() } : item;
    const at = item.id === null ? undefined : indexOf(item.id);
    const list = out();
    if (at === undefined) {
      list.push(message);
      (index as Map<string, number> | null)?.set(message.id as string, list.length - 1);
    } else {
      list[at] = message;
    }
  }
  return result ?? current.slice();
}

const item = z.union([MessageSchema, RemoveMessageSchema]);
/** Zod schema of a {@link MessagesUpdate}. */
export const MessagesUpdateSchema = z.union([item, z.array(item)]);
