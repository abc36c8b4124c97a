/**
 * Content parts (text, image, file, audio) and reasoning parts of chat messages: plain JSON
 * objects told apart by their `type` field.
 *
 * A message's `content` is a string, `null`, or a list of {@link ContentPart}s. A string stays
 * a string: parts are only used when a message carries more than text.
 *
 * @module
 */
import { z } from "zod";
import type { JsonObject } from "../json/index.js";

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

const cache = z.boolean().optional();
const jsonObject = z.record(z.string(), z.json()) as unknown as z.ZodType<JsonObject>;

/** Zod schema of a {@link TextPart}. */
export const TextPartSchema = z.strictObject({ type: z.literal("text"), text: z.string(), cache });

function urlOrData<T extends { url?: string; data?: string; mediaType?: string }>(
  part: T,
  ctx: z.RefinementCtx,
  kind: string,
): void {
  if ((part.url === undefined) === (part.data === undefined)) {
    ctx.addIssue({ code: "custom", message: `An ${kind} part needs exactly one of url and data` });
  } else if (part.data !== undefined && part.mediaType === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["mediaType"],
      message: `An ${kind} part with data needs its mediaType`,
    });
  }
}

/** Zod schema of an {@link ImagePart}. */
export const ImagePartSchema = z
  .strictObject({
    type: z.literal("image"),
    url: z.string().optional(),
    data: z.string().optional(),
    mediaType: z.string().optional(),
    cache,
  })
  .superRefine((p, ctx) => urlOrData(p, ctx, "image"));

/** Zod schema of a {@link FilePart}. */
export const FilePartSchema = z
  .strictObject({
    type: z.literal("file"),
    url: z.string().optional(),
    data: z.string().optional(),
    mediaType: z.string().optional(),
    name: z.string().optional(),
    cache,
  })
  .superRefine((p, ctx) => urlOrData(p, ctx, "file"));

/** Zod schema of an {@link AudioPart}. */
export const AudioPartSchema = z.strictObject({
  type: z.literal("audio"),
  data: z.string(),
  format: z.string(),
  cache,
});

/** Zod schema of a {@link ContentPart}. */
export const ContentPartSchema = z.union([
  TextPartSchema,
  ImagePartSchema,
  FilePartSchema,
  AudioPartSchema,
]) as unknown as z.ZodType<ContentPart>;

/** Zod schema of a {@link MessageContent}; `null` when omitted. */
export const MessageContentSchema = z
  .union([z.string(), z.array(ContentPartSchema)])
  .nullable()
  .default(null) as unknown as z.ZodType<MessageContent, unknown>;

/** Zod schema of a {@link ReasoningPart}. */
export const ReasoningPartSchema = z.strictObject({
  type: z.literal("reasoning"),
  text: z.string(),
  provider: z.string(),
  data: jsonObject.nullable(),
});

/** Zod schema of a {@link Usage} (other keys, as in usage stored before this shape, are kept). */
export const UsageSchema = z.looseObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  totalTokens: z.number().optional(),
  cachedInputTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
  raw: jsonObject.optional(),
}) as unknown as z.ZodType<Usage>;

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
