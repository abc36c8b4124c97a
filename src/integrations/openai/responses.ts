/**
 * The Responses API wire format of `OpenAIChat` (`api: "responses"`): requests, responses and
 * stream events.
 *
 * @module
 */
import type {
  Response,
  ResponseCreateParamsBase,
  ResponseFunctionCallOutputItem,
  ResponseInputContent,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import type { Message } from "../../chat/messages.js";
import type { ContentPart, ReasoningPart } from "../../chat/parts.js";
import { ToolCall } from "../../chat/tool-call.js";
import type { ChatRequest, ChatResponse, ChatStreamChunk } from "../../chat/types.js";
import { ModelProviderError } from "../../errors/index.js";
import type { JsonObject } from "../../json/index.js";
import { dataUrl, textOnly, unsupportedPart } from "../internal/parts.js";
import {
  type BodyOptions,
  openaiUsage,
  PROVIDER,
  reasoningEffort,
  schemaName,
} from "./chat-completions.js";

const RA = "OpenAI Responses";

/** Options of the Responses API only. */
export interface ResponsesOptions extends BodyOptions {
  /** Sent as `store` when set; with `false`, reasoning comes back encrypted (`include: ["reasoning.encrypted_content"]`) so that it can be sent back. */
  store?: boolean | undefined;
}

/** The Responses API request body for `request` (without `stream`). */
export function responsesBody(
  model: string,
  request: ChatRequest,
  options: ResponsesOptions,
): ResponseCreateParamsBase {
  const input: ResponseInputItem[] = [];
  request.messages.forEach((m, i) => {
    input.push(...toInputItems(m, `messages[${i}]`));
  });
  const body: ResponseCreateParamsBase = { model, input };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: "function" as const,
      name: t.name,
      description: t.description,
      parameters: t.inputSchema,
      strict: false,
    }));
    const c = request.toolChoice;
    if (c === "auto" || c === "required" || c === "none") body.tool_choice = c as "auto";
    else if (c !== null) body.tool_choice = { type: "function", name: c };
  }
  if (request.outputSchema !== null) {
    body.text = {
      format: {
        type: "json_schema",
        name: schemaName(request.outputSchema),
        schema: request.outputSchema,
        strict: true,
      },
    };
  }
  const effort = reasoningEffort(request);
  if (effort !== null) body.reasoning = { effort, summary: "auto" };
  if (options.store !== undefined) {
    body.store = options.store;
    if (!options.store) body.include = ["reasoning.encrypted_content"];
  }
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.maxTokens !== undefined) body.max_output_tokens = options.maxTokens;
  if (options.promptCacheKey !== undefined) body.prompt_cache_key = options.promptCacheKey;
  return { ...body, ...(options.extraBody ?? {}) } as ResponseCreateParamsBase;
}

/** One content part as a Responses input content part (user messages and tool results). */
function inputPart(part: ContentPart, path: string, where: string): ResponseInputContent {
  switch (part.type) {
    case "text":
      return { type: "input_text", text: part.text };
    case "image":
      return {
        type: "input_image",
        detail: "auto",
        image_url: part.url ?? dataUrl(part.mediaType ?? "", part.data ?? ""),
      };
    case "file":
      return part.url !== undefined
        ? { type: "input_file", file_url: part.url }
        : {
            type: "input_file",
            file_data: dataUrl(part.mediaType ?? "", part.data ?? ""),
            ...(part.name !== undefined ? { filename: part.name } : {}),
          };
    case "audio":
      throw unsupportedPart(
        PROVIDER,
        RA,
        part,
        path,
        where,
        "it takes no audio input; use the Chat Completions API (the default)",
      );
  }
}

/** A message as Responses input items: reasoning items, a message, function calls or a function call output. */
function toInputItems(message: Message, path: string): ResponseInputItem[] {
  const at = `${path}.content`;
  switch (message.type) {
    case "system":
      return [
        {
          role: "system",
          content: textOnly(message.content, PROVIDER, RA, at, "a system message"),
        },
      ];
    case "human":
      return [
        {
          role: "user",
          content: Array.isArray(message.content)
            ? message.content.map((p, i) => inputPart(p, `${at}[${i}]`, "a user message"))
            : (message.content ?? ""),
        },
      ];
    case "ai": {
      const items: ResponseInputItem[] = [];
      for (const r of message.reasoning)
        if (r.provider === PROVIDER && r.data !== null && r.data.type === "reasoning")
          items.push(r.data as unknown as ResponseInputItem);
      const text =
        message.content === null
          ? ""
          : textOnly(message.content, PROVIDER, RA, at, "an assistant message");
      const said = text !== "" ? text : (message.refusal ?? "");
      if (said !== "") items.push({ role: "assistant", content: said });
      for (const c of message.toolCalls)
        items.push({
          type: "function_call",
          call_id: c.id,
          name: c.name,
          arguments: ToolCall.argumentsJson(c),
        });
      return items;
    }
    case "tool":
      return [
        {
          type: "function_call_output",
          call_id: message.toolCallId ?? "",
          output: Array.isArray(message.content)
            ? message.content.map(
                (p, i) =>
                  inputPart(p, `${at}[${i}]`, "a tool result") as ResponseFunctionCallOutputItem,
              )
            : (message.content ?? ""),
        },
      ];
  }
}

/** A reasoning item's readable text: its summary texts joined by a blank line. */
function summaryText(item: { summary?: readonly { text: string }[] }): string {
  return (item.summary ?? []).map((s) => s.text).join("\n\n");
}

function reasoningPart(item: ResponseOutputItem): ReasoningPart {
  return {
    type: "reasoning",
    text: summaryText(item as { summary?: { text: string }[] }),
    provider: PROVIDER,
    data: JSON.parse(JSON.stringify(item)) as JsonObject,
  };
}

/** The finish reason of a response: `"tool_calls"` when it calls tools, `"length"` / `"content_filter"` when incomplete for that, else `"stop"`. */
function finishOf(response: Response, calls: boolean): string {
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason;
    return reason === "max_output_tokens" ? "length" : (reason ?? "incomplete");
  }
  return calls ? "tool_calls" : "stop";
}

function failure(response: Response): ModelProviderError {
  const e = response.error;
  return new ModelProviderError(
    `OpenAI Responses failed: ${e ? `${e.code}: ${e.message}` : "no error given"}`,
    {
      provider: PROVIDER,
      retryable: e?.code === "server_error" || e?.code === "rate_limit_exceeded",
    },
  );
}

/** A Responses API answer as a {@link ChatResponse}. */
export function fromResponse(response: Response): ChatResponse {
  if (response.status === "failed") throw failure(response);
  let text: string | null = null;
  let refusal: string | null = null;
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for (const item of response.output ?? []) {
    if (item.type === "message") {
      for (const c of item.content) {
        if (c.type === "output_text") text = (text ?? "") + c.text;
        else if (c.type === "refusal") refusal = (refusal ?? "") + c.refusal;
      }
    } else if (item.type === "function_call") {
      toolCalls.push(ToolCall.fromArgumentsJson(item.call_id, item.name, item.arguments));
    } else if (item.type === "reasoning") reasoning.push(reasoningPart(item));
  }
  return {
    content: text,
    refusal,
    toolCalls,
    reasoning,
    finishReason: finishOf(response, toolCalls.length > 0),
    usage: openaiUsage(response.usage),
    model: response.model ?? null,
    raw: response,
  };
}

/** What a Responses stream has shown so far. */
export interface ResponsesStreamState {
  model: string | null;
  /** Output index → tool-call index (0, 1, … in order of the function calls). */
  calls: Map<number, number>;
  /** Output index → reasoning index. */
  reasonings: Map<number, number>;
  finished: boolean;
}

export function responsesStreamState(): ResponsesStreamState {
  return { model: null, calls: new Map(), reasonings: new Map(), finished: false };
}

/**
 * One Responses stream event as {@link ChatStreamChunk}s: summary text deltas as reasoning
 * deltas (a blank line between summary parts) and the finished reasoning item as its data;
 * text, refusal and function-call argument deltas; the finish reason and usage from
 * `response.completed` / `response.incomplete`.
 * @throws ModelProviderError on `response.failed` and `error` events.
 */
export function fromResponsesEvent(
  event: ResponseStreamEvent,
  state: ResponsesStreamState,
): ChatStreamChunk[] {
  const raw = event;
  const model = state.model;
  switch (event.type) {
    case "response.created":
      state.model = event.response.model ?? null;
      return [];
    case "response.output_item.added": {
      const item = event.item;
      if (item.type === "function_call") {
        const index = state.calls.size;
        state.calls.set(event.output_index, index);
        return [
          {
            toolCallDelta: { index, id: item.call_id, name: item.name, arguments: item.arguments },
            model,
            raw,
          },
        ];
      }
      if (item.type === "reasoning") {
        const index = state.reasonings.size;
        state.reasonings.set(event.output_index, index);
        return [{ reasoningDelta: { index, text: "", provider: PROVIDER }, model, raw }];
      }
      return [];
    }
    case "response.reasoning_summary_part.added": {
      const index = state.reasonings.get(event.output_index);
      if (index === undefined || event.summary_index === 0) return [];
      return [{ reasoningDelta: { index, text: "\n\n" }, model, raw }];
    }
    case "response.reasoning_summary_text.delta": {
      const index = state.reasonings.get(event.output_index);
      if (index === undefined) return [];
      return [{ reasoningDelta: { index, text: event.delta }, model, raw }];
    }
    case "response.output_item.done": {
      const index = state.reasonings.get(event.output_index);
      if (index === undefined || event.item.type !== "reasoning") return [];
      return [{ reasoningDelta: { index, data: reasoningPart(event.item).data }, model, raw }];
    }
    case "response.output_text.delta":
      return event.delta ? [{ contentDelta: event.delta, model, raw }] : [];
    case "response.refusal.delta":
      return event.delta ? [{ refusalDelta: event.delta, model, raw }] : [];
    case "response.function_call_arguments.delta": {
      const index = state.calls.get(event.output_index);
      if (index === undefined || !event.delta) return [];
      return [{ toolCallDelta: { index, arguments: event.delta }, model, raw }];
    }
    case "response.completed":
    case "response.incomplete": {
      state.finished = true;
      const r = event.response;
      return [
        { finishReason: finishOf(r, state.calls.size > 0), model: r.model ?? model, raw },
        { usage: openaiUsage(r.usage), model: r.model ?? model, raw },
      ];
    }
    case "response.failed":
      throw failure(event.response);
    case "error":
      throw new ModelProviderError(
        `OpenAI Responses stream error: ${event.code}: ${event.message}`,
        {
          provider: PROVIDER,
          retryable: false,
        },
      );
    default:
      return [];
  }
}
