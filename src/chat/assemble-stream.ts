import { ModelProviderError } from "../errors/index.js";
import { ToolCall } from "./tool-call.js";
import type { ChatResponse, ChatStreamChunk } from "./types.js";

interface PartialCall {
  id: string | null;
  name: string | null;
  args: string;
}

/**
 * Collect streamed chunks into a single response: joined content and refusal, tool calls
 * assembled from their deltas by `index` (ordered by index), the last finish reason, usage
 * and model named by the chunks. A call whose argument text is not a JSON object gets
 * `argumentsError`; it never throws for that.
 *
 * @param chunks - the chunks produced by `Chat.stream`.
 * @param options.provider - provider named in errors (default `"stream"`).
 * @throws ModelProviderError if a streamed tool call has no id or no name.
 */
export async function assembleStream(
  chunks: AsyncIterable<ChatStreamChunk>,
  options: { provider?: string } = {},
): Promise<ChatResponse> {
  let content: string | null = null;
  let refusal: string | null = null;
  let finishReason: string | null = null;
  let usage: ChatResponse["usage"] | null = null;
  let model: string | null = null;
  let raw: unknown = null;
  const calls = new Map<number, PartialCall>();
  for await (const chunk of chunks) {
    if (chunk.contentDelta != null) content = (content ?? "") + chunk.contentDelta;
    if (chunk.refusalDelta != null) refusal = (refusal ?? "") + chunk.refusalDelta;
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
    if (chunk.raw !== undefined) raw = chunk.raw;
  }
  const toolCalls = [...calls.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, c]) => {
      if (!c.id || !c.name) {
        const missing = !c.id && !c.name ? "an id and a name" : !c.id ? "an id" : "a name";
        throw new ModelProviderError(
          `Streamed tool call at index ${index} has no ${missing.replace(/^an? /, "")}: the stream never sent ${missing} for it`,
          { provider: options.provider ?? "stream", retryable: false },
        );
      }
      return ToolCall.fromArgumentsJson(c.id, c.name, c.args);
    });
  return { content, refusal, toolCalls, finishReason, usage: usage ?? {}, model, raw };
}
