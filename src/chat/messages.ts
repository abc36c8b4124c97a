/**
 * Chat messages: plain JSON objects told apart by their `type` field.
 *
 * @module
 */
import type { z } from "zod";
import type { JsonObject } from "../json/index.js";
import { lazyObject } from "../lazy.js";
import type { MessageContent, ReasoningPart, Usage } from "./parts.js";
import { chatSchemas } from "./schemas.js";
import type { ToolCall } from "./tool-call.js";

/** Instruction message for the model. Its role is `"system"`. */
export interface SystemMessage {
  type: "system";
  /** Optional id, for example to remove the message later; `addMessages` gives one when `null`. */
  id: string | null;
  /** Text, or parts (text, image, file, audio). */
  content: MessageContent;
}

/** Message written by the user. Its role is `"user"`. */
export interface HumanMessage {
  type: "human";
  id: string | null;
  /** Text, or parts (text, image, file, audio). */
  content: MessageContent;
}

/** Reply produced by the model: text, a refusal, or tool calls. Its role is `"assistant"`. */
export interface AIMessage {
  type: "ai";
  id: string | null;
  /** Answer text, or parts (text and, where a model returns them, images); `null` when the model only calls tools or refuses. */
  content: MessageContent;
  /** The model's refusal text, when it declined to answer. */
  refusal: string | null;
  toolCalls: ToolCall[];
  /** The model's reasoning, in the order it came (`[]` when none); sent back to the same provider on the next turn. */
  reasoning: ReasoningPart[];
  /** Why the model stopped, as the chat integration reports it. */
  finishReason: string | null;
  usage: Usage;
  /**
   * What the chat layer recorded about the call, when it recorded something; absent otherwise.
   * `fallbackChat` sets `fallback: { model, skipped }` (which model answered, and why the ones
   * before it were skipped); `modelNode` sets `model` (the model the usage is billed for) when
   * the response reports usage. JSON, stored with the message.
   */
  responseMetadata?: JsonObject;
}

/** Result of a tool call. Its role is `"tool"`. */
export interface ToolMessage {
  type: "tool";
  id: string | null;
  /** The tool's result: text, or parts (an image it rendered, a file it fetched). */
  content: MessageContent;
  /** Name of the tool that ran. */
  name: string | null;
  /** Id of the {@link ToolCall} this message answers. */
  toolCallId: string | null;
  /** The arguments the tool ran with, when middleware changed them from the call's; otherwise `null`. */
  arguments: JsonObject | null;
}

/** Any chat message. */
export type Message = SystemMessage | HumanMessage | AIMessage | ToolMessage;

/** Role of a message as a chat integration sends it. */
export type Role = "system" | "user" | "assistant" | "tool";

const ROLES = { system: "system", human: "user", ai: "assistant", tool: "tool" } as const;

/** The role of a message: `"system"`, `"user"`, `"assistant"` or `"tool"`. */
export function roleOf(message: Message): Role {
  return ROLES[message.type];
}

// A message builder takes one object; `new HumanMessage("hi")` (LangChain's form) would
// otherwise build a message with no content, silently.
function checkInit(builder: string, init: unknown): void {
  if (typeof init === "object" && init !== null && !Array.isArray(init)) return;
  const got =
    typeof init === "string"
      ? `the string ${JSON.stringify(init.length > 40 ? `${init.slice(0, 40)}…` : init)}`
      : init === null
        ? "null"
        : Array.isArray(init)
          ? "an array"
          : `a ${typeof init}`;
  throw new TypeError(
    `${builder}(init): init must be an object such as { content: "…" }, got ${got}`,
  );
}

/**
 * Build a {@link SystemMessage}.
 * @throws TypeError when `init` is not an object (`SystemMessage("…")`)
 * @example SystemMessage({ content: "You answer questions about orders." })
 */
export function SystemMessage(
  init: { content?: MessageContent; id?: string | null } = {},
): SystemMessage {
  checkInit("SystemMessage", init);
  return { type: "system", id: init.id ?? null, content: init.content ?? null };
}

/**
 * Build a {@link HumanMessage}.
 * @throws TypeError when `init` is not an object (`HumanMessage("…")`)
 * @example HumanMessage({ content: "Where is order A-1001?" })
 */
export function HumanMessage(
  init: { content?: MessageContent; id?: string | null } = {},
): HumanMessage {
  checkInit("HumanMessage", init);
  return { type: "human", id: init.id ?? null, content: init.content ?? null };
}

/**
 * Build an {@link AIMessage}; omitted fields take their defaults (`null`, `[]`, `{}`).
 * @throws TypeError when `init` is not an object (`AIMessage("…")`)
 */
export function AIMessage(
  init: {
    content?: MessageContent;
    id?: string | null;
    refusal?: string | null;
    toolCalls?: ToolCall[];
    reasoning?: ReasoningPart[];
    finishReason?: string | null;
    usage?: Usage;
    responseMetadata?: JsonObject | null;
  } = {},
): AIMessage {
  checkInit("AIMessage", init);
  return {
    type: "ai",
    id: init.id ?? null,
    content: init.content ?? null,
    refusal: init.refusal ?? null,
    toolCalls: init.toolCalls ?? [],
    reasoning: init.reasoning ?? [],
    finishReason: init.finishReason ?? null,
    usage: init.usage ?? {},
    ...(init.responseMetadata != null && Object.keys(init.responseMetadata).length > 0
      ? { responseMetadata: init.responseMetadata }
      : {}),
  };
}

/**
 * Build a {@link ToolMessage}.
 * @throws TypeError when `init` is not an object (`ToolMessage("…")`)
 */
export function ToolMessage(
  init: {
    content?: MessageContent;
    id?: string | null;
    name?: string | null;
    toolCallId?: string | null;
    arguments?: JsonObject | null;
  } = {},
): ToolMessage {
  checkInit("ToolMessage", init);
  return {
    type: "tool",
    id: init.id ?? null,
    content: init.content ?? null,
    name: init.name ?? null,
    toolCallId: init.toolCallId ?? null,
    arguments: init.arguments ?? null,
  };
}

// The schemas stand for the ones chat/schemas.ts builds on first use (no zod at import).

/** Zod schema of a {@link SystemMessage}; fills defaults for omitted fields. */
export const SystemMessageSchema = lazyObject(() => chatSchemas().system);
/** Zod schema of a {@link HumanMessage}. */
export const HumanMessageSchema = lazyObject(() => chatSchemas().human);
/** Zod schema of an {@link AIMessage}. */
export const AIMessageSchema = lazyObject(() => chatSchemas().ai);
/** Zod schema of a {@link ToolMessage}. */
export const ToolMessageSchema = lazyObject(() => chatSchemas().tool);

/** Zod schema of any {@link Message}, told apart by `type`. */
export const MessageSchema: z.ZodType<Message, unknown> = lazyObject(() => chatSchemas().message);
