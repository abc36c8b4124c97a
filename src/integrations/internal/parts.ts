/**
 * Helpers the chat integrations share for content parts and usage.
 *
 * @module
 */
import type { ContentPart, MessageContent } from "../../chat/parts.js";
import { UnsupportedPartError } from "../../errors/index.js";

/** What a part is, for error messages: `an image part (url)`, `a file part "report.pdf" (data)`. */
export function describePart(part: ContentPart): string {
  switch (part.type) {
    case "text":
      return "a text part";
    case "image":
      return `an image part (${part.url !== undefined ? "url" : "data"})`;
    case "file":
      return `a file part${part.name !== undefined ? ` "${part.name}"` : ""} (${part.url !== undefined ? "url" : (part.mediaType ?? "data")})`;
    case "audio":
      return `an audio part (${part.format})`;
  }
}

/**
 * The error for a part an integration cannot send.
 * @param where - what cannot take it, such as `"a tool result"`, or `null` for the provider as a whole.
 */
export function unsupportedPart(
  provider: string,
  label: string,
  part: ContentPart,
  path: string,
  where: string | null = null,
  hint = "",
): UnsupportedPartError {
  return new UnsupportedPartError(
    `${label} cannot send ${describePart(part)}${where ? ` in ${where}` : ""} (${path})${hint ? `: ${hint}` : ""}`,
    { provider, partType: part.type, path },
  );
}

/** The content as text: a string as it is, `null` as `""`, text parts joined; any other part raises {@link UnsupportedPartError}. */
export function textOnly(
  content: MessageContent,
  provider: string,
  label: string,
  path: string,
  where: string | null = null,
): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  let text = "";
  content.forEach((p, i) => {
    if (p.type !== "text") throw unsupportedPart(provider, label, p, `${path}[${i}]`, where);
    text += p.text;
  });
  return text;
}

/** A `data:` URL of base64 data. */
export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/** A number when the value is one, else `undefined` (usage fields a provider may leave out). */
export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** Usage without its absent keys, in the shape's order. */
export function usageOf(u: {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  totalTokens?: number | undefined;
  cachedInputTokens?: number | undefined;
  reasoningTokens?: number | undefined;
  raw?: import("../../json/index.js").JsonObject | undefined;
}): import("../../chat/parts.js").Usage {
  const out: import("../../chat/parts.js").Usage = {};
  if (u.inputTokens !== undefined) out.inputTokens = u.inputTokens;
  if (u.outputTokens !== undefined) out.outputTokens = u.outputTokens;
  if (u.totalTokens !== undefined) out.totalTokens = u.totalTokens;
  else if (u.inputTokens !== undefined && u.outputTokens !== undefined)
    out.totalTokens = u.inputTokens + u.outputTokens;
  if (u.cachedInputTokens !== undefined) out.cachedInputTokens = u.cachedInputTokens;
  if (u.reasoningTokens !== undefined) out.reasoningTokens = u.reasoningTokens;
  if (u.raw !== undefined) out.raw = u.raw;
  return out;
}
