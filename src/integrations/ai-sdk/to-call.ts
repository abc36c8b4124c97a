/**
 * nodestep requests → the AI SDK's call options (`LanguageModelV3CallOptions` /
 * `LanguageModelV4CallOptions`): messages, content parts, tools, tool choice, structured output
 * and reasoning.
 *
 * @module
 */
import type { Message } from "../../chat/messages.js";
import type { ContentPart, MessageContent } from "../../chat/parts.js";
import type { ChatRequest, ToolChoice } from "../../chat/types.js";
import { ModelProviderError } from "../../errors/index.js";
import type { JsonObject } from "../../json/index.js";
import { unsupportedPart } from "../internal/parts.js";
import { schemaName } from "../openai/chat-completions.js";
import { TEXT_METADATA, TOOL_CALL_METADATA } from "./from-result.js";
import {
  type AISdkPartPlace,
  type AISdkPartRule,
  audioMediaType,
  isUnsupported,
} from "./part-support.js";

/** Specification versions of `@ai-sdk/provider` language models this adapter speaks. */
export type SpecVersion = "v3" | "v4";

/** One message of an AI SDK prompt (the shape shared by V3 and V4). */
export type SdkMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: SdkPart[] }
  | { role: "assistant"; content: SdkPart[] }
  | { role: "tool"; content: SdkPart[] };

/** A prompt part (text, file, reasoning, tool call, tool result) as plain data. */
export type SdkPart = { type: string } & Record<string, unknown>;

/** Call options sent to `doGenerate` / `doStream` (the fields nodestep sets). */
export interface SdkCallOptions {
  prompt: SdkMessage[];
  tools?: Array<{ type: "function"; name: string; description?: string; inputSchema: JsonObject }>;
  toolChoice?: { type: "auto" | "none" | "required" } | { type: "tool"; toolName: string };
  responseFormat?: { type: "json"; schema: JsonObject; name: string };
  reasoning?: "minimal" | "low" | "medium" | "high";
  abortSignal?: AbortSignal;
  [key: string]: unknown;
}

const CONTROL = Symbol("nodestep.callControl");

/** The `abortSignal` property of call options: the signal of the control under {@link CONTROL}. */
const ABORT_SIGNAL: PropertyDescriptor = {
  get(this: { [CONTROL]: { readonly signal: AbortSignal } }) {
    return this[CONTROL].signal;
  },
  set(this: object, value: unknown) {
    Object.defineProperty(this, "abortSignal", {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  },
  enumerable: true,
  configurable: true,
};

/** The model a request is mapped for. */
export interface Where {
  provider: string;
  label: string;
  version: SpecVersion;
  reasoningProvider: string;
  /** The parts the model's provider package would degrade (see `part-support.ts`). */
  unsupported: readonly AISdkPartRule[];
  /** Why they are refused, by where the part is, for the error message. */
  why: (place: AISdkPartPlace) => string;
}

const PLACE: Record<AISdkPartPlace, string> = {
  user: "a user message",
  assistant: "an assistant message",
  toolResult: "a tool result",
};

function fileData(version: SpecVersion, part: { url?: string; data?: string }): unknown {
  if (part.url !== undefined) {
    const url = new URL(part.url);
    return version === "v4" ? { type: "url", url } : url;
  }
  return version === "v4" ? { type: "data", data: part.data } : part.data;
}

function toPart(part: ContentPart, path: string, w: Where, place: AISdkPartPlace): SdkPart {
  if (isUnsupported(w.unsupported, place, part))
    throw unsupportedPart(w.provider, w.label, part, path, PLACE[place], w.why(place));
  if (place === "toolResult" && w.version === "v3") return toV3ToolResultPart(part, path, w);
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return {
        type: "file",
        mediaType: part.mediaType ?? "image/*",
        data: fileData(w.version, part),
      };
    case "file":
      if (part.mediaType === undefined)
        throw unsupportedPart(w.provider, w.label, part, path, null, "a file part needs mediaType");
      return {
        type: "file",
        mediaType: part.mediaType,
        data: fileData(w.version, part),
        ...(part.name !== undefined ? { filename: part.name } : {}),
      };
    case "audio":
      return {
        type: "file",
        mediaType: audioMediaType(part.format),
        data: fileData(w.version, part),
      };
  }
}

/**
 * A part of a V3 tool result's `content` output, whose media parts are `image-data`,
 * `image-url`, `file-data` and `file-url` (V4 uses the `file` part of messages).
 */
function toV3ToolResultPart(part: ContentPart, path: string, w: Where): SdkPart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return part.url !== undefined
        ? { type: "image-url", url: part.url }
        : { type: "image-data", data: part.data, mediaType: part.mediaType ?? "image/*" };
    case "file":
      if (part.url !== undefined) return { type: "file-url", url: part.url };
      if (part.mediaType === undefined)
        throw unsupportedPart(w.provider, w.label, part, path, null, "a file part needs mediaType");
      return {
        type: "file-data",
        data: part.data,
        mediaType: part.mediaType,
        ...(part.name !== undefined ? { filename: part.name } : {}),
      };
    case "audio":
      return { type: "file-data", data: part.data, mediaType: audioMediaType(part.format) };
  }
}

function toParts(
  content: MessageContent,
  path: string,
  w: Where,
  place: AISdkPartPlace,
): SdkPart[] {
  if (content === null) return [];
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content.map((p, i) => toPart(p, `${path}[${i}]`, w, place));
}

function systemText(content: MessageContent, path: string, w: Where): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  let text = "";
  content.forEach((p, i) => {
    if (p.type !== "text")
      throw unsupportedPart(w.provider, w.label, p, `${path}[${i}]`, "a system message");
    text += p.text;
  });
  return text;
}

function toMessage(message: Message, i: number, w: Where): SdkMessage {
  const path = `messages[${i}].content`;
  switch (message.type) {
    case "system":
      return { role: "system", content: systemText(message.content, path, w) };
    case "human":
      return { role: "user", content: toParts(message.content, path, w, "user") };
    case "ai": {
      const content: SdkPart[] = [];
      const callOptions = new Map<string, unknown>();
      let textOptions: unknown = null;
      for (const r of message.reasoning) {
        if (r.provider !== w.reasoningProvider) continue; // opaque data goes back only to its maker
        const callId = r.data?.[TOOL_CALL_METADATA];
        if (typeof callId === "string") {
          callOptions.set(callId, r.data?.providerMetadata); // a tool call's own, such as a thoughtSignature
          continue;
        }
        if (r.data?.[TEXT_METADATA] === true) {
          textOptions = r.data.providerMetadata; // the answer text's own
          continue;
        }
        content.push({
          type: "reasoning",
          text: r.text,
          ...(r.data !== null ? { providerOptions: r.data } : {}),
        });
      }
      const parts = toParts(message.content, path, w, "assistant");
      const firstText = parts.find((p) => p.type === "text");
      if (firstText !== undefined && textOptions != null) firstText.providerOptions = textOptions;
      content.push(...parts);
      if (message.content === null && message.refusal !== null)
        content.push({ type: "text", text: message.refusal });
      for (const c of message.toolCalls) {
        const options = callOptions.get(c.id);
        content.push({
          type: "tool-call",
          toolCallId: c.id,
          toolName: c.name,
          input: c.arguments,
          ...(options != null ? { providerOptions: options } : {}),
        });
      }
      return { role: "assistant", content };
    }
    case "tool": {
      const parts = toParts(message.content, path, w, "toolResult");
      const onlyText = parts.every((p) => p.type === "text");
      const output = onlyText
        ? { type: "text", value: parts.map((p) => p.text as string).join("") }
        : { type: "content", value: parts };
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: message.toolCallId ?? "",
            toolName: message.name ?? "",
            output,
          },
        ],
      };
    }
  }
}

function toToolChoice(choice: ToolChoice): SdkCallOptions["toolChoice"] {
  if (choice === null) return undefined;
  if (choice === "auto" || choice === "none" || choice === "required")
    return { type: choice as "auto" | "none" | "required" };
  return { type: "tool", toolName: choice };
}

/**
 * Build the AI SDK call options of one request. `settings` (temperature, maxOutputTokens,
 * providerOptions…) are copied in first; the request's own fields win. `abortSignal` is a
 * getter of `control.signal` (enumerable, so spreads and `Object.keys` see it).
 *
 * @throws {UnsupportedPartError} a system message holds a non-text part, a file part has no
 *   mediaType, or a part matches one of `w.unsupported` (the provider would degrade it).
 * @throws {ModelProviderError} the request asks for `reasoning: { budgetTokens }` (the AI SDK takes an effort), or any reasoning of a V3 model.
 */
export function toCallOptions(
  request: ChatRequest,
  settings: JsonObject,
  w: Where,
  control: { readonly signal: AbortSignal },
): SdkCallOptions {
  const options: SdkCallOptions = {
    ...settings,
    prompt: request.messages.map((m, i) => toMessage(m, i, w)),
  };
  // Read when the model reads it (a real provider passes it to fetch); one that never does
  // costs no AbortController. The getter is shared; the control sits under a symbol.
  Object.defineProperty(options, CONTROL, { value: control });
  Object.defineProperty(options, "abortSignal", ABORT_SIGNAL);
  if (request.tools.length > 0) {
    options.tools = request.tools.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
    }));
    const choice = toToolChoice(request.toolChoice);
    if (choice !== undefined) options.toolChoice = choice;
  }
  if (request.outputSchema !== null)
    options.responseFormat = {
      type: "json",
      schema: request.outputSchema,
      name: schemaName(request.outputSchema),
    };
  const reasoning = request.reasoning;
  if (reasoning != null) {
    if (!("effort" in reasoning) || w.version === "v3")
      throw new ModelProviderError(
        w.version === "v3"
          ? `${w.label} is an AI SDK V3 model, which has no reasoning setting: pass it in providerOptions`
          : `${w.label} takes reasoning as { effort }, not { budgetTokens }: pass a token budget in providerOptions`,
        { provider: w.provider, retryable: false },
      );
    options.reasoning = reasoning.effort;
  }
  return options;
}
