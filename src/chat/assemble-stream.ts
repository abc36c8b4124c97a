import { ModelProviderError } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";
import type { ContentPart, MessageContent, ReasoningPart, Usage } from "./parts.js";
import { ToolCall } from "./tool-call.js";
import type { ChatResponse, ChatStreamChunk } from "./types.js";

interface PartialCall {
  id: string | null;
  name: string | null;
  args: string;
}

interface PartialReasoning {
  text: string;
  provider: string | null;
  data: JsonObject | null;
}

/**
 * Collect streamed chunks into a single response: joined content and refusal (content is a
 * list of parts when a chunk carried a `contentPart`: the text so far as a text part, then the
 * part, in arrival order), tool calls assembled from their deltas by `index` (ordered by
 * index), reasoning parts assembled from their deltas by `index` (text joined, data keys
 * merged), the last finish reason, usage (later keys replace earlier ones) and model named by
 * the chunks. A call whose argument text is not a JSON object gets `argumentsError`; it never
 * throws for that.
 *
 * @param chunks - the chunks produced by `Chat.stream`.
 * @param options.provider - provider named in errors and on reasoning parts whose deltas name none (default `"stream"`).
 * @param options.onChunk - called with each chunk as it arrives, before it is collected (a
 *   model node sends it as a `"tokens"` event from here: no second iterator per chunk).
 * @throws ModelProviderError if a streamed tool call has no id or no name.
 */
export async function assembleStream(
  chunks: AsyncIterable<ChatStreamChunk>,
  options: { provider?: string; onChunk?: (chunk: ChatStreamChunk) => void } = {},
): Promise<ChatResponse> {
  const provider = options.provider ?? "stream";
  let text: string | null = null;
  let parts: ContentPart[] | null = null;
  let refusal: string | null = null;
  let finishReason: string | null = null;
  let usage: Usage | null = null;
  let model: string | null = null;
  let metadata: JsonObject | null = null;
  let raw: unknown = null;
  const calls = new Map<number, PartialCall>();
  let reasoning: Map<number, PartialReasoning> | null = null;
  const onChunk = options.onChunk;
  for await (const chunk of chunks) {
    if (onChunk) onChunk(chunk);
    if (chunk.contentDelta != null) text = (text ?? "") + chunk.contentDelta;
    if (chunk.contentPart != null) {
      parts ??= [];
      if (text !== null) parts.push({ type: "text", text });
      text = null;
      parts.push(chunk.contentPart);
    }
    if (chunk.refusalDelta != null) refusal = (refusal ?? "") + chunk.refusalDelta;
    const r = chunk.reasoningDelta;
    if (r != null) {
      reasoning ??= new Map();
      let part = reasoning.get(r.index);
      if (!part) {
        part = { text: "", provider: null, data: null };
        reasoning.set(r.index, part);
      }
      if (r.text) part.text += r.text;
      if (r.provider) part.provider = r.provider;
      if (r.data) part.data = { ...(part.data ?? {}), ...r.data };
    }
    const d = chunk.toolCallDelta;
    if (d != null) {
      let call = calls.get(d.index);
      if (!call) {
        call = { id: null, name: null, args: "" };
        calls.set(d.index, call);
      }
      if (d.id) call.id = d.id;
      if (d.name) call.name = call.name && call.name !== d.name ? call.name + d.name : d.name;
      if (d.arguments) call.args += d.arguments;
    }
    if (chunk.finishReason != null) finishReason = chunk.finishReason;
    if (chunk.usage != null) usage = { ...(usage ?? {}), ...chunk.usage };
    if (chunk.model != null) model = chunk.model;
    if (chunk.responseMetadata != null)
      metadata = { ...(metadata ?? {}), ...chunk.responseMetadata };
    if (chunk.raw !== undefined) raw = chunk.raw;
  }
  const toolCalls = [...calls.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, c]) => {
      if (!c.id || !c.name) {
        const missing = !c.id && !c.name ? "an id and a name" : !c.id ? "an id" : "a name";
        throw new ModelProviderError(
          `Streamed tool call at index ${index} has no ${missing.replace(/^an? /, "")}: the stream never sent ${missing} for it`,
          { provider, retryable: false },
        );
      }
      return ToolCall.fromArgumentsJson(c.id, c.name, c.args);
    });
  let content: MessageContent = text;
  if (parts !== null) {
    if (text !== null) parts.push({ type: "text", text });
    content = parts;
  }
  const reasoningParts: ReasoningPart[] = reasoning
    ? [...reasoning.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([, p]) => ({
          type: "reasoning",
          text: p.text,
          provider: p.provider ?? provider,
          data: p.data,
        }))
    : [];
  return {
    content,
    refusal,
    toolCalls,
    reasoning: reasoningParts,
    finishReason,
    usage: usage ?? {},
    model,
    raw,
    ...(metadata !== null ? { responseMetadata: metadata } : {}),
  };
}
