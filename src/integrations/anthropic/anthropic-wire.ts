/**
 * The Messages API wire format of `AnthropicChat`: messages and their content blocks (text,
 * images, documents, thinking, tool use and results), prompt-cache breakpoints, answers and
 * stream events.
 *
 * @module
 */
import type {
  Message as AnthropicMessage,
  ContentBlockParam,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import type { Message } from "../../chat/messages.js";
import type { ContentPart, ReasoningPart, Usage } from "../../chat/parts.js";
import { ToolCall } from "../../chat/tool-call.js";
import type { ChatResponse, ChatStreamChunk } from "../../chat/types.js";
import type { JsonObject } from "../../json/index.js";
import { jsonUsage } from "../internal/call.js";
import { num, unsupportedPart, usageOf } from "../internal/parts.js";

export const PROVIDER = "anthropic";
export const LABEL = "Anthropic";

const EPHEMERAL = { type: "ephemeral" } as const;
const DOCUMENT_TYPES = new Set(["application/pdf", "text/plain"]);

type Block = ContentBlockParam & { cache_control?: typeof EPHEMERAL | null };

/** One content part as a Messages API content block. */
function toBlock(part: ContentPart, path: string, where: string): Block {
  let block: Block;
  switch (part.type) {
    case "text":
      block = { type: "text", text: part.text };
      break;
    case "image":
      block = {
        type: "image",
        source:
          part.url !== undefined
            ? { type: "url", url: part.url }
            : {
                type: "base64",
                media_type: part.mediaType as "image/png",
                data: part.data ?? "",
              },
      };
      break;
    case "file": {
      const title = part.name !== undefined ? { title: part.name } : {};
      if (part.url !== undefined) {
        block = { type: "document", source: { type: "url", url: part.url }, ...title };
      } else if (part.mediaType === "application/pdf") {
        block = {
          type: "document",
          source: { type: "base64", media_type: "application/pdf", data: part.data ?? "" },
          ...title,
        };
      } else if (part.mediaType === "text/plain") {
        block = {
          type: "document",
          source: {
            type: "text",
            media_type: "text/plain",
            data: Buffer.from(part.data ?? "", "base64").toString("utf8"),
          },
          ...title,
        };
      } else {
        throw unsupportedPart(
          PROVIDER,
          LABEL,
          part,
          path,
          where,
          `it takes documents of ${[...DOCUMENT_TYPES].join(" and ")} only`,
        );
      }
      break;
    }
    case "audio":
      throw unsupportedPart(PROVIDER, LABEL, part, path, where, "it takes no audio");
  }
  if (part.cache) block.cache_control = EPHEMERAL;
  return block;
}

function blocksOf(
  content: Message["content"],
  path: string,
  where: string,
  textOnlyParts = false,
): Block[] {
  if (content === null) return [];
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content.map((p, i) => {
    if (textOnlyParts && p.type !== "text")
      throw unsupportedPart(PROVIDER, LABEL, p, `${path}[${i}]`, where);
    return toBlock(p, `${path}[${i}]`, where);
  });
}

/** A reasoning part Anthropic made, as the thinking block to send back; others are not sent. */
function thinkingBlock(part: ReasoningPart): Block | null {
  if (part.provider !== PROVIDER || part.data === null) return null;
  if (typeof part.data.redacted === "string")
    return { type: "redacted_thinking", data: part.data.redacted };
  if (typeof part.data.signature === "string")
    return { type: "thinking", thinking: part.text, signature: part.data.signature };
  return null;
}

/**
 * Messages for the Messages API: system messages gathered into `system` (a string, or text
 * blocks when one carries a cache mark); the others as alternating turns, consecutive
 * user-side messages (human content and tool results) merged. An AI message sends back the
 * thinking blocks Anthropic made first, then its text and tool calls. With `cacheAuto`, the
 * last system block and the last block of the last message get a cache breakpoint.
 */
export function toAnthropicMessages(
  list: readonly Message[],
  cacheAuto: boolean,
): { system: string | TextBlockParam[] | null; messages: MessageParam[] } {
  const system: TextBlockParam[] = [];
  const messages: MessageParam[] = [];
  const push = (role: "user" | "assistant", blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  list.forEach((m, i) => {
    const at = `messages[${i}].content`;
    switch (m.type) {
      case "system":
        system.push(...(blocksOf(m.content, at, "a system message", true) as TextBlockParam[]));
        break;
      case "human": {
        const blocks = blocksOf(m.content, at, "a user message");
        push("user", blocks.length > 0 ? blocks : [{ type: "text", text: "" }]);
        break;
      }
      case "ai": {
        const blocks: Block[] = [];
        for (const r of m.reasoning) {
          const b = thinkingBlock(r);
          if (b) blocks.push(b);
        }
        blocks.push(...blocksOf(m.content, at, "an assistant message", true));
        for (const c of m.toolCalls)
          blocks.push({ type: "tool_use", id: c.id, name: c.name, input: c.arguments });
        push("assistant", blocks);
        break;
      }
      case "tool":
        push("user", [
          {
            type: "tool_result",
            tool_use_id: m.toolCallId ?? "",
            content: Array.isArray(m.content)
              ? (blocksOf(m.content, at, "a tool result") as never)
              : (m.content ?? ""),
          },
        ]);
        break;
    }
  });
  if (cacheAuto) {
    const lastSystem = system.at(-1);
    if (lastSystem) lastSystem.cache_control = EPHEMERAL;
    const lastMessage = messages.at(-1);
    const lastBlock = (lastMessage?.content as Block[] | undefined)?.at(-1);
    if (lastBlock) lastBlock.cache_control = EPHEMERAL;
  }
  // A lone text block without a cache mark is sent in the plain string form.
  for (const m of messages) {
    const [only, ...rest] = m.content as Block[];
    if (rest.length === 0 && only?.type === "text" && !only.cache_control) m.content = only.text;
  }
  const marked = system.some((b) => b.cache_control);
  return {
    system: system.length === 0 ? null : marked ? system : system.map((b) => b.text).join("\n\n"),
    messages,
  };
}

/** `stop_reason` as a finish reason: `end_turn`/`stop_sequence` → `"stop"`, `tool_use` → `"tool_calls"`, `max_tokens` → `"length"`, others kept. */
export function anthropicFinishReason(stopReason: string | null | undefined): string | null {
  switch (stopReason) {
    case null:
    case undefined:
      return null;
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
      return "length";
    default:
      return stopReason;
  }
}

function refusalText(details: { explanation?: string | null } | null | undefined): string {
  return details?.explanation ?? "The model declined to answer.";
}

const thinking = (text: string, data: JsonObject): ReasoningPart => ({
  type: "reasoning",
  text,
  provider: PROVIDER,
  data,
});

/** A Messages API answer as a {@link ChatResponse}. */
export function fromMessage(message: AnthropicMessage): ChatResponse {
  let text: string | null = null;
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for (const block of message.content ?? []) {
    if (block.type === "text") text = (text ?? "") + block.text;
    else if (block.type === "tool_use")
      toolCalls.push(
        ToolCall.fromArgumentsJson(block.id, block.name, JSON.stringify(block.input ?? {})),
      );
    else if (block.type === "thinking")
      reasoning.push(thinking(block.thinking, { signature: block.signature }));
    else if (block.type === "redacted_thinking")
      reasoning.push(thinking("", { redacted: block.data }));
  }
  return {
    content: text,
    refusal: message.stop_reason === "refusal" ? refusalText(message.stop_details) : null,
    toolCalls,
    reasoning,
    finishReason: anthropicFinishReason(message.stop_reason),
    usage: anthropicUsage(message.usage),
    model: message.model ?? null,
    raw: message,
  };
}

/** What an Anthropic stream has shown so far. */
export interface StreamState {
  model: string | null;
  /** Content-block index → tool-call index (0, 1, … in order of the tool_use blocks). */
  toolIndex: Map<number, number>;
  /** Content-block index → reasoning index (thinking and redacted thinking blocks). */
  reasoningIndex: Map<number, number>;
  stopped: boolean;
  /** Usage fields so far: `message_start`'s, then `message_delta`'s over them. */
  usage: JsonObject;
}

export function streamState(): StreamState {
  return {
    model: null,
    toolIndex: new Map(),
    reasoningIndex: new Map(),
    stopped: false,
    usage: {},
  };
}

/** One Messages API stream event as {@link ChatStreamChunk}s. */
export function* fromEvent(
  event: RawMessageStreamEvent,
  state: StreamState,
): Generator<ChatStreamChunk> {
  const raw = event;
  switch (event.type) {
    case "message_start":
      state.model = event.message.model ?? null;
      state.usage = jsonUsage(event.message.usage, true);
      yield { usage: anthropicUsage(state.usage), model: state.model, raw };
      return;
    case "content_block_start": {
      const block = event.content_block;
      const model = state.model;
      if (block.type === "text" && block.text) yield { contentDelta: block.text, model, raw };
      else if (block.type === "tool_use") {
        const index = state.toolIndex.size;
        state.toolIndex.set(event.index, index);
        const input = block.input;
        const initial =
          input && typeof input === "object" && Object.keys(input).length > 0
            ? JSON.stringify(input)
            : "";
        yield {
          toolCallDelta: { index, id: block.id, name: block.name, arguments: initial },
          model,
          raw,
        };
      } else if (block.type === "thinking" || block.type === "redacted_thinking") {
        const index = state.reasoningIndex.size;
        state.reasoningIndex.set(event.index, index);
        yield {
          reasoningDelta:
            block.type === "thinking"
              ? { index, text: block.thinking, provider: PROVIDER }
              : { index, text: "", provider: PROVIDER, data: { redacted: block.data } },
          model,
          raw,
        };
      }
      return;
    }
    case "content_block_delta": {
      const delta = event.delta;
      const model = state.model;
      if (delta.type === "text_delta" && delta.text) yield { contentDelta: delta.text, model, raw };
      else if (delta.type === "input_json_delta") {
        const index = state.toolIndex.get(event.index);
        if (index !== undefined && delta.partial_json)
          yield { toolCallDelta: { index, arguments: delta.partial_json }, model, raw };
      } else if (delta.type === "thinking_delta" || delta.type === "signature_delta") {
        const index = state.reasoningIndex.get(event.index);
        if (index === undefined) return;
        yield {
          reasoningDelta:
            delta.type === "thinking_delta"
              ? { index, text: delta.thinking }
              : { index, data: { signature: delta.signature } },
          model,
          raw,
        };
      }
      return;
    }
    case "message_delta": {
      const reason = event.delta.stop_reason;
      const model = state.model;
      if (reason === "refusal")
        yield { refusalDelta: refusalText(event.delta.stop_details), model, raw };
      if (reason) yield { finishReason: anthropicFinishReason(reason), model, raw };
      if (event.usage) {
        state.usage = { ...state.usage, ...jsonUsage(event.usage, true) };
        yield { usage: anthropicUsage(state.usage), model, raw };
      }
      return;
    }
    case "message_stop":
      state.stopped = true;
      return;
    default:
      return;
  }
}

/**
 * Anthropic usage in the one shape. Anthropic's `input_tokens` leaves out the cached ones, so
 * `inputTokens` is `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`;
 * `cachedInputTokens` is `cache_read_input_tokens`; `outputTokens` is `output_tokens`
 * (thinking included; Anthropic does not count reasoning apart); the object as sent under `raw`.
 */
export function anthropicUsage(usage: unknown): Usage {
  if (usage === null || typeof usage !== "object") return {};
  const u = usage as Record<string, unknown>;
  const input = num(u.input_tokens);
  const read = num(u.cache_read_input_tokens);
  const written = num(u.cache_creation_input_tokens);
  return usageOf({
    inputTokens: input === undefined ? undefined : input + (read ?? 0) + (written ?? 0),
    outputTokens: num(u.output_tokens),
    cachedInputTokens: read,
    raw: jsonUsage(usage),
  });
}
