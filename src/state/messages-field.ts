/**
 * `messagesField()`: a conversation field, merged by `addMessages`; messages get their ids when
 * an update is prepared.
 */
import type { z } from "zod";
import type { Message } from "../chat/messages.js";
import { memo } from "../lazy.js";
import { zod } from "../zod-runtime.js";
import {
  addMessages,
  type MessagesUpdate,
  messagesUpdateSchema,
  newMessageId,
  type RemoveMessage,
} from "./add-messages.js";
import { messagesCodec } from "./messages-codec.js";
import { type ReducedField, reducer } from "./reducer.js";

/**
 * Give each message without an id a fresh one (in a copy of it, and of the list). A list or
 * message that shares nothing with what a node holds gives one that shares nothing either.
 */
export function prepareMessages(update: MessagesUpdate): MessagesUpdate {
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

/**
 * {@link prepareMessages} for an update that is a copy of the engine's own (the plain
 * parse's, zod-cycles.ts): the ids are set on its messages, where a copy of each would be
 * made (the same data, the id in the same place: every message has an `id` key already).
 */
export function prepareOwnMessages(update: MessagesUpdate): MessagesUpdate {
  const list = (Array.isArray(update) ? update : [update]) as Array<Message | RemoveMessage>;
  for (let i = 0; i < list.length; i++) {
    const m = list[i]!;
    if (m.type !== "remove" && m.id === null) m.id = newMessageId();
  }
  return update;
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
