/**
 * AI SDK results → nodestep: generate results, stream parts, usage, finish reasons and errors.
 *
 * @module
 */
import type { ContentPart, ReasoningPart, Usage } from "../../chat/parts.js";
import { ToolCall } from "../../chat/tool-call.js";
import type { ChatResponse, ChatStreamChunk } from "../../chat/types.js";
import { ModelProviderError } from "../../errors/index.js";
import type { JsonObject } from "../../json/index.js";
import { isRetryableStatus, jsonUsage, parseRetryAfter, setRetryAfter } from "../internal/call.js";
import { num, usageOf } from "../internal/parts.js";

/** AI SDK unified finish reasons → nodestep's (OpenAI-style) names. */
const FINISH: Record<string, string> = {
  stop: "stop",
  length: "length",
  "content-filter": "content_filter",
  "tool-calls": "tool_calls",
  error: "error",
  interrupted: "interrupted",
  other: "other",
};

/** Map an AI SDK finish reason (`{ unified, raw }`, or a plain string in older models). */
export function finishReasonOf(reason: unknown): string | null {
  const unified =
    typeof reason === "string" ? reason : (reason as { unified?: unknown } | null)?.unified;
  return typeof unified === "string" ? (FINISH[unified] ?? unified) : null;
}

/** Map AI SDK usage (`inputTokens.{total,cacheRead}`, `outputTokens.{total,reasoning}`) to {@link Usage}. */
export function usageFromSdk(usage: unknown): Usage {
  if (usage === null || typeof usage !== "object") return {};
  const u = usage as Record<string, unknown>;
  const input = u.inputTokens as Record<string, unknown> | number | undefined;
  const output = u.outputTokens as Record<string, unknown> | number | undefined;
  const field = (v: typeof input, k: string) =>
    typeof v === "object" && v !== null ? num(v[k]) : undefined;
  return usageOf({
    inputTokens: typeof input === "number" ? input : field(input, "total"),
    outputTokens: typeof output === "number" ? output : field(output, "total"),
    cachedInputTokens: field(input, "cacheRead") ?? num(u.cachedInputTokens),
    reasoningTokens: field(output, "reasoning") ?? num(u.reasoningTokens),
    raw:
      u.raw !== undefined
        ? jsonUsage(u.raw)
        : jsonUsage({ inputTokens: input, outputTokens: output }, true),
  });
}

function base64(data: unknown): string {
  if (typeof data === "string") return data;
  if (data instanceof Uint8Array) return Buffer.from(data).toString("base64");
  const d = data as { type?: string; data?: unknown; url?: URL } | null;
  if (d?.type === "data") return base64(d.data);
  return "";
}

/** A generated file (V3 `data`, V4 `{ type: "data" | "url" }`) as an image or file part. */
export function filePart(mediaType: string, data: unknown): ContentPart {
  const type = mediaType.startsWith("image/") ? "image" : "file";
  const d = data as { type?: string; url?: URL } | null;
  if (d !== null && typeof d === "object" && d.type === "url" && d.url !== undefined)
    return { type, url: String(d.url), mediaType };
  return { type, data: base64(data), mediaType };
}

function metadata(value: unknown): JsonObject | null {
  return value !== null && typeof value === "object" ? jsonUsage(value) : null;
}

type SdkContent = { type: string } & Record<string, unknown>;

/**
 * Key of a reasoning part's `data` naming the tool call whose `providerMetadata` the part
 * keeps (Gemini's `thoughtSignature` of a function call): nodestep's tool calls carry no
 * provider data, so it rides in the message's reasoning, and goes back as that tool call's
 * `providerOptions`. The part's `data` is `{ aiSdkToolCallId, providerMetadata }`, its text `""`.
 */
export const TOOL_CALL_METADATA = "aiSdkToolCallId";

/**
 * Key of a reasoning part's `data` (set to `true`) marking it as the keeper of the answer
 * text's `providerMetadata` (Gemini's `thoughtSignature` on a text part); it goes back as the
 * `providerOptions` of the message's first text part. `data` is `{ aiSdkText, providerMetadata }`.
 */
export const TEXT_METADATA = "aiSdkText";

function textReasoning(provider: string, meta: JsonObject): ReasoningPart {
  return {
    type: "reasoning",
    text: "",
    provider,
    data: { [TEXT_METADATA]: true, providerMetadata: meta },
  };
}

/** The reasoning part keeping a tool call's provider metadata (see {@link TOOL_CALL_METADATA}). */
function toolCallReasoning(provider: string, id: string, meta: JsonObject): ReasoningPart {
  return {
    type: "reasoning",
    text: "",
    provider,
    data: { [TOOL_CALL_METADATA]: id, providerMetadata: meta },
  };
}

/** Map a `doGenerate` result to a {@link ChatResponse}. */
export function fromGenerateResult(
  result: Record<string, unknown>,
  reasoningProvider: string,
  fallbackModel: string,
): ChatResponse {
  const parts: ContentPart[] = [];
  const reasoning: ReasoningPart[] = [];
  const toolCalls: ToolCall[] = [];
  let onlyText = true;
  for (const c of (result.content as SdkContent[] | undefined) ?? []) {
    if (c.type === "text") {
      parts.push({ type: "text", text: String(c.text) });
      const meta = metadata(c.providerMetadata);
      if (meta !== null) reasoning.push(textReasoning(reasoningProvider, meta));
    } else if (c.type === "reasoning")
      reasoning.push({
        type: "reasoning",
        text: String(c.text),
        provider: reasoningProvider,
        data: metadata(c.providerMetadata),
      });
    else if (c.type === "tool-call" && c.providerExecuted !== true) {
      const id = String(c.toolCallId);
      toolCalls.push(ToolCall.fromArgumentsJson(id, String(c.toolName), c.input as string));
      const meta = metadata(c.providerMetadata);
      if (meta !== null) reasoning.push(toolCallReasoning(reasoningProvider, id, meta));
    } else if (c.type === "file") {
      parts.push(filePart(String(c.mediaType), c.data));
      onlyText = false;
    }
  }
  const structured = result.structuredOutputText;
  const text = parts.map((p) => (p.type === "text" ? p.text : "")).join("");
  const content =
    typeof structured === "string"
      ? structured
      : parts.length === 0
        ? null
        : onlyText
          ? text
          : parts;
  const response = result.response as { modelId?: unknown } | undefined;
  return {
    content,
    refusal: null,
    toolCalls,
    reasoning,
    finishReason: finishReasonOf(result.finishReason),
    usage: usageFromSdk(result.usage),
    model: typeof response?.modelId === "string" ? response.modelId : fallbackModel,
    raw: result,
  };
}

/** State of one stream: indexes of reasoning parts and tool calls by the ids the parts carry. */
export class StreamMapper {
  readonly #reasoning = new Map<string, number>();
  readonly #tools = new Map<string, number>();
  #model: string | null = null;
  finished = false;
  constructor(readonly reasoningProvider: string) {}

  #index(map: Map<string, number>, id: string): number {
    let i = map.get(id);
    if (i === undefined) {
      i = map.size;
      map.set(id, i);
    }
    return i;
  }

  /** One chunk, with the model (once known) and the part it came from. */
  #out(chunk: ChatStreamChunk, part: SdkContent): ChatStreamChunk[] {
    if (this.#model !== null) chunk.model = this.#model;
    chunk.raw = part;
    return [chunk];
  }

  /** The chunks of one stream part (none for `stream-start`, `ping`, `raw`, `source`…). */
  map(part: SdkContent): ChatStreamChunk[] {
    switch (part.type) {
      case "response-metadata":
        if (typeof part.modelId === "string") this.#model = part.modelId;
        return [];
      case "text-start":
      case "text-delta": {
        if (part.providerMetadata === undefined)
          return part.type === "text-start" || part.delta === ""
            ? []
            : this.#out({ contentDelta: String(part.delta) }, part);
        const meta = metadata(part.providerMetadata);
        const out: ChatStreamChunk = {};
        if (part.type === "text-delta" && part.delta !== "") out.contentDelta = String(part.delta);
        if (meta !== null)
          out.reasoningDelta = {
            index: this.#index(this.#reasoning, `text:${String(part.id)}`),
            provider: this.reasoningProvider,
            data: textReasoning(this.reasoningProvider, meta).data as JsonObject,
          };
        return Object.keys(out).length === 0 ? [] : this.#out(out, part);
      }
      case "reasoning-start":
      case "reasoning-delta":
      case "reasoning-end": {
        const data = metadata(part.providerMetadata);
        const text = part.type === "reasoning-delta" ? String(part.delta) : "";
        if (text === "" && data === null && part.type !== "reasoning-start") return [];
        return this.#out(
          {
            reasoningDelta: {
              index: this.#index(this.#reasoning, String(part.id)),
              provider: this.reasoningProvider,
              ...(text !== "" ? { text } : {}),
              ...(data !== null ? { data } : {}),
            },
          },
          part,
        );
      }
      case "tool-input-start":
        if (part.providerExecuted === true) return [];
        return this.#out(
          {
            toolCallDelta: {
              index: this.#index(this.#tools, String(part.id)),
              id: String(part.id),
              name: String(part.toolName),
            },
          },
          part,
        );
      case "tool-input-delta": {
        const index = this.#tools.get(String(part.id));
        if (index === undefined) return [];
        return this.#out({ toolCallDelta: { index, arguments: String(part.delta) } }, part);
      }
      case "tool-call": {
        if (part.providerExecuted === true) return [];
        const id = String(part.toolCallId);
        const meta = metadata(part.providerMetadata);
        const kept: ChatStreamChunk[] =
          meta === null
            ? []
            : this.#out(
                {
                  reasoningDelta: {
                    index: this.#index(this.#reasoning, `tool-call:${id}`),
                    provider: this.reasoningProvider,
                    data: toolCallReasoning(this.reasoningProvider, id, meta).data as JsonObject,
                  },
                },
                part,
              );
        if (this.#tools.has(id)) return kept;
        return [
          ...kept,
          ...this.#out(
            {
              toolCallDelta: {
                index: this.#index(this.#tools, id),
                id,
                name: String(part.toolName),
                arguments: String(part.input ?? ""),
              },
            },
            part,
          ),
        ];
      }
      case "file":
        return this.#out({ contentPart: filePart(String(part.mediaType), part.data) }, part);
      case "finish":
        this.finished = true;
        return this.#out(
          {
            finishReason: finishReasonOf(part.finishReason),
            usage: usageFromSdk(part.usage),
          },
          part,
        );
      case "error":
        throw part.error;
      default:
        return [];
    }
  }
}

const API_CALL_ERROR = Symbol.for("vercel.ai.error.AI_APICallError");
const AI_ERROR = Symbol.for("vercel.ai.error");

/**
 * Map an error of an AI SDK model to a {@link ModelProviderError}: an `APICallError` keeps its
 * HTTP status, `isRetryable` (or, without one, 408/429/5xx) and its `Retry-After` header as the
 * wait before a retry; other AI SDK errors are not retryable.
 */
export function mapAISdkError(e: unknown, provider: string, label: string): ModelProviderError {
  if (e instanceof ModelProviderError) return e;
  const err = e as Record<PropertyKey, unknown> | null;
  if (err !== null && typeof err === "object" && err[API_CALL_ERROR] === true) {
    const status = num(err.statusCode);
    const headers = (err.responseHeaders ?? {}) as Record<string, string>;
    const retryable =
      typeof err.isRetryable === "boolean" ? err.isRetryable : isRetryableStatus(status);
    const lower: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
    const after = parseRetryAfter((name) => lower[name]);
    const mapped = new ModelProviderError(
      `${label} call failed${status !== undefined ? ` (HTTP ${status})` : ""}: ${String(err.message)}`,
      {
        provider,
        ...(status !== undefined ? { status } : {}),
        ...(after !== null ? { retryAfterMs: after } : {}),
        retryable,
        cause: e,
      },
    );
    setRetryAfter(mapped, after);
    return mapped;
  }
  const message = e instanceof Error ? e.message : String(e);
  const sdk = err !== null && typeof err === "object" && err[AI_ERROR] === true;
  return new ModelProviderError(
    `${label} call failed${sdk ? ` (${String(err?.name)})` : ""}: ${message}`,
    {
      provider,
      retryable: false,
      cause: e,
    },
  );
}
