/**
 * The Chat Completions wire format of `OpenAIChat`: requests, responses and stream chunks.
 *
 * @module
 */
import type {
  ChatCompletion,
  ChatCompletionAssistantMessageParam,
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import type { Message } from "../../chat/messages.js";
import type { ContentPart, ReasoningPart, Usage } from "../../chat/parts.js";
import { ToolCall } from "../../chat/tool-call.js";
import type { ChatRequest, ChatResponse, ChatStreamChunk } from "../../chat/types.js";
import { ModelProviderError, ValueError } from "../../errors/index.js";
import type { JsonObject } from "../../json/index.js";
import { jsonUsage } from "../internal/call.js";
import { dataUrl, num, textOnly, unsupportedPart, usageOf } from "../internal/parts.js";

export const PROVIDER = "openai";
export const LABEL = "OpenAI";
const CC = "OpenAI Chat Completions";

/** The request options `OpenAIChat` adds to every body. */
export interface BodyOptions {
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  promptCacheKey?: string | undefined;
  extraBody?: JsonObject | undefined;
}

/** The Chat Completions request body for `request` (without `stream`). */
export function completionsBody(
  model: string,
  request: ChatRequest,
  options: BodyOptions,
): ChatCompletionCreateParamsBase {
  const body: ChatCompletionCreateParamsBase = {
    model,
    messages: request.messages.map((m, i) => toOpenAIMessage(m, `messages[${i}]`)),
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map(
      (t): ChatCompletionTool => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.inputSchema },
      }),
    );
    if (request.toolChoice !== null) body.tool_choice = toToolChoice(request.toolChoice);
  }
  if (request.outputSchema !== null) {
    body.response_format = {
      type: "json_schema",
      json_schema: {
        name: schemaName(request.outputSchema),
        schema: request.outputSchema,
        strict: true,
      },
    };
  }
  const effort = reasoningEffort(request);
  if (effort !== null) body.reasoning_effort = effort;
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.maxTokens !== undefined) body.max_completion_tokens = options.maxTokens;
  if (options.promptCacheKey !== undefined) body.prompt_cache_key = options.promptCacheKey;
  return { ...body, ...(options.extraBody ?? {}) } as ChatCompletionCreateParamsBase;
}

/**
 * The effort of `request.reasoning`, for OpenAI's `reasoning_effort` / `reasoning.effort`.
 * @throws ValueError for a `budgetTokens` (OpenAI has no token budget).
 */
export function reasoningEffort(
  request: ChatRequest,
): "minimal" | "low" | "medium" | "high" | null {
  const r = request.reasoning;
  if (r == null) return null;
  if ("effort" in r) return r.effort;
  throw new ValueError(
    `OpenAIChat: reasoning { budgetTokens: ${r.budgetTokens} } has no OpenAI setting; use reasoning { effort: "low" | "medium" | "high" }`,
  );
}

/** One content part as a Chat Completions user content part. */
function userPart(part: ContentPart, path: string): ChatCompletionContentPart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return {
        type: "image_url",
        image_url: { url: part.url ?? dataUrl(part.mediaType ?? "", part.data ?? "") },
      };
    case "file":
      if (part.data === undefined)
        throw unsupportedPart(
          PROVIDER,
          CC,
          part,
          path,
          null,
          'it takes files as data only; send the data, or use api: "responses"',
        );
      return {
        type: "file",
        file: {
          file_data: dataUrl(part.mediaType ?? "", part.data),
          ...(part.name !== undefined ? { filename: part.name } : {}),
        },
      };
    case "audio":
      if (part.format !== "wav" && part.format !== "mp3")
        throw unsupportedPart(PROVIDER, CC, part, path, null, "it takes wav or mp3 audio only");
      return { type: "input_audio", input_audio: { data: part.data, format: part.format } };
  }
}

/** A chat message as the Chat Completions API takes it. */
function toOpenAIMessage(message: Message, path: string): ChatCompletionMessageParam {
  const at = `${path}.content`;
  switch (message.type) {
    case "system":
      return {
        role: "system",
        content: textOnly(message.content, PROVIDER, CC, at, "a system message"),
      };
    case "human":
      return {
        role: "user",
        content: Array.isArray(message.content)
          ? message.content.map((p, i) => userPart(p, `${at}[${i}]`))
          : (message.content ?? ""),
      };
    case "ai": {
      const out: ChatCompletionAssistantMessageParam = {
        role: "assistant",
        content:
          message.content === null
            ? null
            : textOnly(message.content, PROVIDER, CC, at, "an assistant message"),
      };
      if (message.refusal !== null) out.refusal = message.refusal;
      if (message.toolCalls.length > 0) {
        out.tool_calls = message.toolCalls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.name, arguments: ToolCall.argumentsJson(c) },
        }));
      } else if (out.content === null && out.refusal === undefined) out.content = "";
      return out;
    }
    case "tool":
      if (Array.isArray(message.content)) {
        const other = message.content.findIndex((p) => p.type !== "text");
        if (other >= 0)
          throw unsupportedPart(
            PROVIDER,
            CC,
            message.content[other]!,
            `${at}[${other}]`,
            "a tool result",
            'use api: "responses", whose tool results take images and files',
          );
      }
      return {
        role: "tool",
        tool_call_id: message.toolCallId ?? "",
        content: textOnly(message.content, PROVIDER, CC, at, "a tool result"),
      };
  }
}

function toToolChoice(choice: string): ChatCompletionToolChoiceOption {
  if (choice === "auto" || choice === "required" || choice === "none") return choice;
  return { type: "function", function: { name: choice } };
}

/** The `json_schema.name` for an output schema: its `title` with characters OpenAI refuses replaced, else `"output"`. */
export function schemaName(schema: JsonObject): string {
  const title = typeof schema.title === "string" ? schema.title : "";
  const name = title.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return name === "" ? "output" : name;
}

/** `reasoning_content`, which some Chat Completions servers (DeepSeek, vLLM) send, as a reasoning part. */
function reasoningContent(message: unknown): ReasoningPart[] {
  const text = (message as { reasoning_content?: unknown } | null)?.reasoning_content;
  return typeof text === "string" && text !== ""
    ? [{ type: "reasoning", text, provider: PROVIDER, data: null }]
    : [];
}

/** A Chat Completions answer as a {@link ChatResponse}. */
export function fromCompletion(completion: ChatCompletion): ChatResponse {
  const choice = completion.choices?.[0];
  if (!choice)
    throw new ModelProviderError("OpenAI answered with no choices", {
      provider: PROVIDER,
      retryable: false,
    });
  const message = choice.message;
  const toolCalls = (message.tool_calls ?? []).flatMap((c) =>
    c.type === "function"
      ? [ToolCall.fromArgumentsJson(c.id, c.function.name, c.function.arguments)]
      : [],
  );
  return {
    content: message.content ?? null,
    refusal: message.refusal ?? null,
    toolCalls,
    reasoning: reasoningContent(message),
    finishReason: choice.finish_reason ?? null,
    usage: openaiUsage(completion.usage),
    model: completion.model ?? null,
    raw: completion,
  };
}

/** One Chat Completions stream chunk as {@link ChatStreamChunk}s. */
export function fromChunk(chunk: ChatCompletionChunk): ChatStreamChunk[] {
  const out: ChatStreamChunk[] = [];
  const model = chunk.model ?? null;
  const choice = chunk.choices?.[0];
  const delta = choice?.delta;
  const thinking = (delta as { reasoning_content?: unknown } | undefined)?.reasoning_content;
  if (typeof thinking === "string" && thinking !== "")
    out.push({
      reasoningDelta: { index: 0, text: thinking, provider: PROVIDER },
      model,
      raw: chunk,
    });
  if (delta?.content) out.push({ contentDelta: delta.content, model, raw: chunk });
  if (delta?.refusal) out.push({ refusalDelta: delta.refusal, model, raw: chunk });
  for (const call of delta?.tool_calls ?? []) {
    out.push({
      toolCallDelta: {
        index: call.index,
        id: call.id ?? null,
        name: call.function?.name ?? null,
        arguments: call.function?.arguments ?? null,
      },
      model,
      raw: chunk,
    });
  }
  if (choice?.finish_reason) out.push({ finishReason: choice.finish_reason, model, raw: chunk });
  if (chunk.usage) out.push({ usage: openaiUsage(chunk.usage), model, raw: chunk });
  return out;
}

/**
 * OpenAI usage in the one shape, for both APIs: `prompt_tokens` / `input_tokens` →
 * `inputTokens`, `completion_tokens` / `output_tokens` → `outputTokens`, `total_tokens` →
 * `totalTokens`, `prompt_tokens_details.cached_tokens` / `input_tokens_details.cached_tokens`
 * → `cachedInputTokens`, `completion_tokens_details.reasoning_tokens` /
 * `output_tokens_details.reasoning_tokens` → `reasoningTokens`; the object as sent under `raw`.
 */
export function openaiUsage(usage: unknown): Usage {
  if (usage === null || typeof usage !== "object") return {};
  const u = usage as Record<string, unknown>;
  const detail = (k: string, f: string) => num((u[k] as Record<string, unknown> | null)?.[f]);
  return usageOf({
    inputTokens: num(u.prompt_tokens) ?? num(u.input_tokens),
    outputTokens: num(u.completion_tokens) ?? num(u.output_tokens),
    totalTokens: num(u.total_tokens),
    cachedInputTokens:
      detail("prompt_tokens_details", "cached_tokens") ??
      detail("input_tokens_details", "cached_tokens"),
    reasoningTokens:
      detail("completion_tokens_details", "reasoning_tokens") ??
      detail("output_tokens_details", "reasoning_tokens"),
    raw: jsonUsage(usage),
  });
}
