/**
 * Requests, responses, stream chunks and the {@link Chat} interface: the same for every chat integration.
 *
 * @module
 */
import type { JsonObject } from "../json/index.js";
import type { Message } from "./messages.js";
import type {
  ContentPart,
  MessageContent,
  ReasoningOptions,
  ReasoningPart,
  Usage,
} from "./parts.js";
import { type ToolCall, ToolCall as ToolCalls } from "./tool-call.js";

/** Tool description sent to the model. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON schema of the arguments. */
  inputSchema: JsonObject;
}

/** Whether the model may (`"auto"`), must (`"required"`) or must not (`"none"`) call tools; another string names the tool to call; `null` sends no choice. */
export type ToolChoice = "auto" | "required" | "none" | (string & {}) | null;

/** Request to a chat model, the same for every chat integration. */
export interface ChatRequest {
  messages: Message[];
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
  /** JSON schema the answer must follow, or `null`. Its `title`, when set, names it. */
  outputSchema: JsonObject | null;
  /** How much the model may reason, where the provider has a setting; absent or `null` leaves the provider's default. */
  reasoning?: ReasoningOptions | null;
}

/** Reply from a chat model, the same for every chat integration. */
export interface ChatResponse {
  /** Answer text, or parts (text and images); `null` when the model only calls tools or refuses. */
  content: MessageContent;
  /** The model's refusal text, when it declined to answer. */
  refusal: string | null;
  toolCalls: ToolCall[];
  /** The model's reasoning, in the order it came; `[]` when none. */
  reasoning: ReasoningPart[];
  /** Why the model stopped, as the chat integration reports it. */
  finishReason: string | null;
  /** Token counts in the one shape of every integration (the provider's own under `raw`). */
  usage: Usage;
  /** Model that answered, as the chat integration names it. */
  model: string | null;
  /** The response object the chat integration received, for fields nodestep does not map. Not stored in state. */
  raw: unknown;
  /** What the chat layer recorded about the call (`fallbackChat`: `{ fallback: { model, skipped } }`); stored on the `AIMessage`. Absent when nothing was recorded. */
  responseMetadata?: JsonObject;
}

/** A {@link ChatResponse} whose fields may be left out; they take their defaults. Tool calls may omit `arguments` and `argumentsError`. */
export type ChatResponseInit = Partial<Omit<ChatResponse, "toolCalls">> & {
  toolCalls?: Array<Pick<ToolCall, "id" | "name"> & Partial<ToolCall>>;
};

/** Part of one streamed tool call; pieces with the same `index` form one call, `arguments` being the next piece of its argument text. */
export interface ToolCallDelta {
  index: number;
  id?: string | null;
  name?: string | null;
  arguments?: string | null;
}

/**
 * Part of one streamed reasoning part; pieces with the same `index` form one
 * {@link ReasoningPart}: `text` is the next piece of its text, `data` keys are merged into
 * its data (a later key replaces an earlier one), `provider` names its integration.
 */
export interface ReasoningDelta {
  index: number;
  text?: string | null;
  provider?: string | null;
  data?: JsonObject | null;
}

/** One incremental piece of a streamed response. Every field is optional. */
export interface ChatStreamChunk {
  /** Next part of the answer text. */
  contentDelta?: string | null;
  /** A whole non-text part of the answer (an image), in its place after the text so far. */
  contentPart?: ContentPart | null;
  /** Part of the model's reasoning: kept apart from `contentDelta`, so a `tokens` event with it is reasoning, not answer. */
  reasoningDelta?: ReasoningDelta | null;
  /** Next part of the refusal text. */
  refusalDelta?: string | null;
  /** Part of one tool call. */
  toolCallDelta?: ToolCallDelta | null;
  /** Why the model stopped; set on a final chunk. */
  finishReason?: string | null;
  /** Token counts; set on the chunk that reports them (later chunks' keys replace earlier ones'). */
  usage?: Usage | null;
  /** Model that answered. */
  model?: string | null;
  /** The event object the chat integration received. */
  raw?: unknown;
  /** Metadata of the call (see {@link ChatResponse.responseMetadata}); keys of later chunks replace earlier ones'. */
  responseMetadata?: JsonObject | null;
}

/** Options of one model call. */
export interface ChatCallOptions {
  /** Stops the call promptly, streaming included, when it fires. */
  signal?: AbortSignal;
}

/**
 * A chat model: any object with a `model` name, `complete` and `stream`.
 *
 * @example
 * ```ts
 * const echo: Chat = {
 *   model: "echo",
 *   async complete(request) { return { content: textOf(request.messages.at(-1)?.content) ?? "" }; },
 *   async *stream(request) { yield { contentDelta: textOf(request.messages.at(-1)?.content) ?? "" }; },
 * };
 * ```
 */
export interface Chat {
  /** Name of the model; middleware sees it as `ctx.model`. */
  readonly model: string;
  /** Send a request and return the full response; omitted fields take their defaults. */
  complete(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponseInit>;
  /** Send a request and yield the response as it is generated: content, tool-call, finish and usage chunks in arrival order. */
  stream(request: ChatRequest, options?: ChatCallOptions): AsyncIterable<ChatStreamChunk>;
}

/** Build a {@link ChatRequest}; omitted fields take their defaults (`tools: []`, `toolChoice: null`, `outputSchema: null`; `reasoning` is set only when given). */
export function ChatRequest(init: Partial<ChatRequest> & { messages: Message[] }): ChatRequest {
  const request: ChatRequest = {
    messages: init.messages,
    tools: init.tools ?? [],
    toolChoice: init.toolChoice ?? null,
    outputSchema: init.outputSchema ?? null,
  };
  // (Set after, not spread from an object made for it: the same keys in the same order.)
  if (init.reasoning != null) request.reasoning = init.reasoning;
  return request;
}

/** Build a full {@link ChatResponse} from one whose fields may be left out. */
export function ChatResponse(init: ChatResponseInit = {}): ChatResponse {
  const response: ChatResponse = {
    content: init.content ?? null,
    refusal: init.refusal ?? null,
    toolCalls: (init.toolCalls ?? []).map((c) => ToolCalls.of(c)),
    reasoning: init.reasoning ?? [],
    finishReason: init.finishReason ?? null,
    usage: init.usage ?? {},
    model: init.model ?? null,
    raw: init.raw ?? null,
  };
  // (Set after, not spread from an object made for it: the same keys in the same order.)
  if (init.responseMetadata !== undefined) response.responseMetadata = init.responseMetadata;
  return response;
}
