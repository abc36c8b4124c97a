/**
 * Typed views of the two stream modes whose data the engine does not know: `"tokens"` (a
 * model's stream chunks) and `"messages"` (each complete message a node writes).
 *
 * @module
 */
import type { Message } from "../chat/messages.js";
import type { ChatStreamChunk } from "../chat/types.js";
import type { NodeContext } from "../graph/context.js";
import type { StreamEvent, StreamEventFields } from "../graph/types.js";
import { newMessageId } from "../state/add-messages.js";

/** A `"tokens"` event: one chunk of a streamed model call (`modelNode(..., { stream: true })`). */
export type TokensEvent = StreamEventFields & { mode: "tokens"; data: ChatStreamChunk };

/**
 * A `"messages"` event: one complete message as a node writes it (`modelNode`: its
 * `AIMessage`; `toolRunner`: each `ToolMessage`, in call order; your node:
 * `ctx.emit(message, { mode: "messages" })`), with the node, step and task that wrote it.
 */
export type MessagesEvent = StreamEventFields & { mode: "messages"; data: Message };

/**
 * Whether a stream event is a `"tokens"` event; narrows `data` to a `ChatStreamChunk`.
 * @example
 * ```ts
 * for await (const e of agent.stream(input, { modes: ["tokens"] }))
 *   if (isTokensEvent(e)) process.stdout.write(e.data.contentDelta ?? "");
 * ```
 */
export function isTokensEvent(e: Pick<StreamEvent, "mode">): e is TokensEvent {
  return e.mode === "tokens";
}

/**
 * Whether a stream event is a `"messages"` event; narrows `data` to a `Message`.
 * @example
 * ```ts
 * for await (const e of agent.stream(input, { modes: ["messages"] }))
 *   if (isMessagesEvent(e)) console.log(e.node, e.data.type, e.data.content);
 * ```
 */
export function isMessagesEvent(e: Pick<StreamEvent, "mode">): e is MessagesEvent {
  return e.mode === "messages";
}

/**
 * Send `written` as `"messages"` events (one a message, in order) when the run streams that
 * mode; a message without an id gets its id here, so the event and the state hold the same one.
 * Returns the messages to write (the same array when nobody streams messages). Used by
 * `modelNode` and `toolRunner`; not exported from the package.
 */
export function emitMessages(ctx: NodeContext, written: Message[]): Message[] {
  if (!ctx.streamModes.includes("messages")) return written;
  const out = written.map((m) => (m.id === null ? { ...m, id: newMessageId() } : m));
  for (const m of out) ctx.emit(m, { mode: "messages" });
  return out;
}
