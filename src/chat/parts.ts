/**
 * Content parts (text, image, file, audio) and reasoning parts of chat messages: plain JSON
 * objects told apart by their `type` field.
 *
 * A message's `content` is a string, `null`, or a list of {@link ContentPart}s. A string stays
 * a string: parts are only used when a message carries more than text.
 *
 * @module
 */
import type { JsonObject } from "../json/index.js";
import { lazyObject } from "../lazy.js";
import { chatSchemas } from "./schemas.js";

/**
 * Text. `cache: true` marks a prompt-cache breakpoint after this part (Anthropic's
 * `cache_control: { type: "ephemeral" }`; other integrations ignore it).
 */
export type TextPart = {
  type: "text";
  text: string;
  cache?: boolean;
};

/**
 * An image: by `url` (an `https:` or `data:` URL), or by `data` (base64, no `data:` prefix)
 * with its `mediaType` (`"image/png"`, `"image/jpeg"`, `"image/gif"`, `"image/webp"`).
 * Exactly one of `url` and `data` is set.
 */
export type ImagePart = {
  type: "image";
  url?: string;
  data?: string;
  mediaType?: string;
  cache?: boolean;
};

/**
 * A file, such as a PDF: by `url`, or by `data` (base64) with its `mediaType`
 * (`"application/pdf"`, `"text/plain"`…); `name` is the file name sent where the provider
 * takes one. Exactly one of `url` and `data` is set.
 */
export type FilePart = {
  type: "file";
  url?: string;
  data?: string;
  mediaType?: string;
  name?: string;
  cache?: boolean;
};

/** Audio: `data` (base64) in `format` (`"wav"`, `"mp3"`…). */
export type AudioPart = {
  type: "audio";
  data: string;
  format: string;
  cache?: boolean;
};

/** One part of a message's content. */
export type ContentPart = TextPart | ImagePart | FilePart | AudioPart;

/** A message's content: text, nothing, or a list of parts. */
export type MessageContent = string | ContentPart[] | null;

/**
 * A piece of the model's reasoning, kept on `AIMessage.reasoning` in the order it came.
 *
 * `text` is the readable reasoning or its summary (`""` when the provider gives none, as for
 * Anthropic's redacted thinking). `provider` names the integration that produced it
 * (`"anthropic"`, `"openai"`, `"ollama"`…); `data` is that provider's opaque data, sent back
 * unchanged on the next turn to the same provider (and never to another):
 * - Anthropic thinking: `{ signature }`; redacted thinking: `{ redacted: "<data>" }`;
 * - OpenAI Responses reasoning item: the item as returned (`id`, `summary`,
 *   `encrypted_content` when asked for);
 * - Ollama thinking, Chat Completions `reasoning_content`: `null`.
 */
export type ReasoningPart = {
  type: "reasoning";
  text: string;
  provider: string;
  data: JsonObject | null;
};

/**
 * How much the model may reason, where the provider has a setting for it: an effort
 * (OpenAI `reasoning.effort` / `reasoning_effort`, Ollama `think`) or a token budget
 * (Anthropic `thinking.budget_tokens`).
 */
export type ReasoningOptions =
  | { effort: "minimal" | "low" | "medium" | "high" }
  | { budgetTokens: number };

/**
 * Token counts, the same for every chat integration (each a number of tokens, or absent when
 * the provider does not report it), and the provider's own figures under `raw`.
 *
 * - `inputTokens`: prompt tokens in all, cached ones included;
 * - `outputTokens`: generated tokens, reasoning included;
 * - `totalTokens`: input + output;
 * - `cachedInputTokens`: input tokens read from the provider's prompt cache;
 * - `reasoningTokens`: output tokens spent on reasoning;
 * - `raw`: the usage object as the provider sent it.
 */
export type Usage = {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cachedInputTokens?: number;
  reasoningTokens?: number;
  raw?: JsonObject;
};

// The schemas stand for the ones chat/schemas.ts builds on first use (no zod at import).

/** Zod schema of a {@link TextPart}. */
export const TextPartSchema = lazyObject(() => chatSchemas().text);

/** Zod schema of an {@link ImagePart} (exactly one of `url` and `data`; `data` needs `mediaType`). */
export const ImagePartSchema = lazyObject(() => chatSchemas().image);

/** Zod schema of a {@link FilePart} (exactly one of `url` and `data`; `data` needs `mediaType`). */
export const FilePartSchema = lazyObject(() => chatSchemas().file);

/** Zod schema of an {@link AudioPart}. */
export const AudioPartSchema = lazyObject(() => chatSchemas().audio);

/** Zod schema of a {@link ContentPart}. */
export const ContentPartSchema = lazyObject(() => chatSchemas().contentPart);

/** Zod schema of a {@link MessageContent}; `null` when omitted. */
export const MessageContentSchema = lazyObject(() => chatSchemas().content);

/** Zod schema of a {@link ReasoningPart}. */
export const ReasoningPartSchema = lazyObject(() => chatSchemas().reasoning);

/** Zod schema of a {@link Usage} (other keys, as in usage stored before this shape, are kept). */
export const UsageSchema = lazyObject(() => chatSchemas().usage);

/**
 * The text of a message's content: the string itself, the text parts joined (`""` between
 * them), or `null` for `null` content or parts with no text part.
 * @example textOf([{ type: "text", text: "See " }, { type: "image", url: "https://x/y.png" }, { type: "text", text: "this" }]) // "See this"
 */
export function textOf(content: MessageContent | undefined): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === "string") return content;
  let text: string | null = null;
  for (const p of content) if (p.type === "text") text = (text ?? "") + p.text;
  return text;
}

/** Whether content holds a part other than text. */
export function hasNonTextParts(content: MessageContent | undefined): boolean {
  return Array.isArray(content) && content.some((p) => p.type !== "text");
}
