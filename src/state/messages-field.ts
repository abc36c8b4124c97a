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
import { isDefault, messagesCodec } from "./messages-codec.js";
import { type ReducedField, reducer } from "./reducer.js";

/**
 * `m` as the event log gives it back: with an id, and without a `responseMetadata` that is
 * `undefined` or `{}` (the codec stores neither), so that the run's own state is what a fold of
 * its events gives (the store is the truth); `m` itself when nothing changes.
 */
function prepareMessage(m: Message | RemoveMessage): Message | RemoveMessage {
  if (m.type === "remove") return m;
  let out = m;
  if (m.type === "ai" && "responseMetadata" in m) {
    const meta = m.responseMetadata;
    if (meta === undefined || isDefault(meta, "optional")) {
      const { responseMetadata: _, ...rest } = m;
      out = rest;
    }
  }
  return out.id === null ? { ...out, id: newMessageId() } : out;
}

/**
 * Each message as {@link prepareMessage} makes it (in a copy of it, and of the list, where one
 * changes). A list or message that shares nothing with what a node holds gives one that shares
 * nothing either.
 */
export function prepareMessages(update: MessagesUpdate): MessagesUpdate {
  if (Array.isArray(update)) {
    let copy: Array<Message | RemoveMessage> | null = null;
    for (let i = 0; i < update.length; i++) {
      const m = update[i] as Message | RemoveMessage;
      const p = prepareMessage(m);
      if (p !== m) {
        copy ??= update.slice() as Array<Message | RemoveMessage>;
        copy[i] = p;
      }
    }
    return copy ?? update;
  }
  return prepareMessage(update as Message | RemoveMessage);
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
    if (m.type === "remove") continue;
    if (m.id === null) m.id = newMessageId();
    // As prepareMessage: no responseMetadata that is undefined or {} (the codec stores neither).
    if (m.type === "ai" && "responseMetadata" in m) {
      const meta = m.responseMetadata;
      if (meta === undefined || isDefault(meta, "optional")) delete m.responseMetadata;
    }
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
