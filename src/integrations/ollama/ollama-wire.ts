/**
 * The `/api/chat` wire format of `OllamaChat`: messages (text, base64 images, thinking, tool
 * calls and results), tool-call ids and usage.
 *
 * @module
 */
import type { ChatResponse as OllamaChatResponse, Message as OllamaMessage } from "ollama";
import type { Message } from "../../chat/messages.js";
import type { ReasoningPart, Usage } from "../../chat/parts.js";
import { ToolCall } from "../../chat/tool-call.js";
import type { JsonObject } from "../../json/index.js";
import { num, unsupportedPart, usageOf } from "../internal/parts.js";

export const PROVIDER = "ollama";
export const LABEL = "Ollama";

/** Content as Ollama takes it: the text parts joined, images as base64 in `images`; any other part raises. */
function contentOf(
  content: Message["content"],
  path: string,
  where: string,
  images: boolean,
): { content: string; images?: string[] } {
  if (!Array.isArray(content)) return { content: content ?? "" };
  let text = "";
  const list: string[] = [];
  content.forEach((p, i) => {
    const at = `${path}[${i}]`;
    if (p.type === "text") text += p.text;
    else if (p.type === "image" && images) {
      const data = p.data ?? /^data:[^;,]+;base64,(.*)$/s.exec(p.url ?? "")?.[1];
      if (data === undefined)
        throw unsupportedPart(
          PROVIDER,
          LABEL,
          p,
          at,
          where,
          "it takes images as base64 data only (or a data: URL)",
        );
      list.push(data);
    } else throw unsupportedPart(PROVIDER, LABEL, p, at, where);
  });
  return list.length > 0 ? { content: text, images: list } : { content: text };
}

export function toOllamaMessage(message: Message, i: number): OllamaMessage {
  const at = `messages[${i}].content`;
  switch (message.type) {
    case "system":
      return { role: "system", ...contentOf(message.content, at, "a system message", false) };
    case "human":
      return { role: "user", ...contentOf(message.content, at, "a user message", true) };
    case "ai": {
      const out: OllamaMessage = {
        role: "assistant",
        ...contentOf(message.content, at, "an assistant message", false),
      };
      const thinking = message.reasoning
        .filter((r) => r.provider === PROVIDER)
        .map((r) => r.text)
        .join("");
      if (thinking !== "") out.thinking = thinking;
      if (message.toolCalls.length > 0)
        out.tool_calls = message.toolCalls.map((c) => ({
          function: { name: c.name, arguments: c.arguments },
        }));
      return out;
    }
    case "tool": {
      const out: OllamaMessage = {
        role: "tool",
        ...contentOf(message.content, at, "a tool result", true),
      };
      if (message.name !== null) out.tool_name = message.name;
      return out;
    }
  }
}

/** Ollama's thinking text as a reasoning part. */
export function thinkingOf(message: { thinking?: string } | undefined): ReasoningPart[] {
  const text = message?.thinking;
  return text ? [{ type: "reasoning", text, provider: PROVIDER, data: null }] : [];
}

/** Makes the ids of one response: `call_<prefix>_<n>`. */
export function idMaker(): () => string {
  const prefix = globalThis.crypto.randomUUID().replace(/-/g, "").slice(0, 8);
  let n = 0;
  return () => `call_${prefix}_${n++}`;
}

type WireToolCall = NonNullable<OllamaMessage["tool_calls"]>[number];

export function wireCall(call: WireToolCall, nextId: () => string) {
  const given = (call as { id?: unknown }).id;
  const id = typeof given === "string" && given !== "" ? given : nextId();
  const args: unknown = call.function?.arguments;
  const argumentsText = typeof args === "string" ? args : JSON.stringify(args ?? {});
  return { id, name: call.function?.name ?? "", argumentsText };
}

export function toToolCall(call: WireToolCall, nextId: () => string): ToolCall {
  const { id, name, argumentsText } = wireCall(call, nextId);
  return ToolCall.fromArgumentsJson(id, name, argumentsText);
}

const USAGE_FIELDS = [
  "prompt_eval_count",
  "eval_count",
  "total_duration",
  "load_duration",
  "prompt_eval_duration",
  "eval_duration",
] as const;

/**
 * Ollama's counts in the one usage shape: `prompt_eval_count` → `inputTokens`, `eval_count`
 * → `outputTokens`, their sum → `totalTokens`; the counts and durations (ns) under `raw`.
 */
export function ollamaUsage(answer: Partial<OllamaChatResponse>): Usage {
  const raw: JsonObject = {};
  for (const key of USAGE_FIELDS) {
    const value = answer[key];
    if (typeof value === "number") raw[key] = value;
  }
  return usageOf({
    inputTokens: num(answer.prompt_eval_count),
    outputTokens: num(answer.eval_count),
    raw,
  });
}
