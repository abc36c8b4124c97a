/**
 * Which content parts an AI SDK provider package sends as what they are, and which it would
 * degrade without a word (write out as JSON text, or leave out): the adapter refuses those
 * with `UnsupportedPartError` before anything is sent.
 *
 * @module
 */

/** Where a part is: a user (human) message, an assistant (AI) message, or a tool result. */
export type AISdkPartPlace = "user" | "assistant" | "toolResult";

/**
 * A kind of part a provider cannot send (for the `unsupportedParts` option of `fromAISdk`). Each
 * field left out matches anything; a text part never matches (text is always sent).
 *
 * @example
 * ```ts
 * // images and files in tool results, and any media in assistant messages:
 * const rules: AISdkPartRule[] = [{ in: "toolResult" }, { in: "assistant" }];
 * // only media given by URL (not base64 data) in tool results:
 * const urls: AISdkPartRule[] = [{ in: "toolResult", source: "url" }];
 * ```
 */
export interface AISdkPartRule {
  /** Where the part is; absent: anywhere. */
  in?: AISdkPartPlace;
  /** The part's type; absent: any part but text. */
  type?: "image" | "file" | "audio";
  /** Whether the part holds a `url` or base64 `data`; absent: either. */
  source?: "url" | "data";
  /**
   * Media types the rule does not match (`"image/*"` matches every image type): a rule with
   * `except` matches only parts whose media type is known and not listed. An audio part's
   * media type is `audio/<format>` (`audio/mpeg` for `"mp3"`). Absent: any media type.
   */
  except?: readonly string[];
}

/** One row of {@link AI_SDK_PART_SUPPORT}. */
export interface AISdkPartSupportRow {
  /** The provider package. */
  package: string;
  /** Whether a model's `provider` id is of this package. */
  matches: (provider: string) => boolean;
  /** What the package would degrade, and so the adapter refuses. */
  unsupported: readonly AISdkPartRule[];
  /** What the package would do with a refused part, by where it is (for the error message). */
  why: Readonly<Partial<Record<AISdkPartPlace, string>>>;
}

/**
 * The parts each provider package (read in its source) cannot send, by the model's `provider`
 * id. A model of a provider not in the table gets {@link AI_SDK_DEFAULT_UNSUPPORTED}.
 *
 * | `model.provider` | package | refused (would be degraded) | sent |
 * | --- | --- | --- | --- |
 * | `google.generative-ai`, `google.vertex.*` | `@ai-sdk/google` (Gemini `generateContent`) | media given by URL in tool results (written out as JSON text) and in assistant messages (refused by the package) | images, files and audio in user messages (`inlineData` / `fileData`); base64 media in tool results and assistant messages (`inlineData`) |
 * | any other, such as `<name>.chat` of `@ai-sdk/openai-compatible` | unknown | every image, file and audio part in tool results (`@ai-sdk/openai-compatible` writes them out as JSON text) and in assistant messages (it leaves them out); in user messages what the package itself refuses: files of another media type than images, video, text, PDF and wav / mp3 audio, PDF and audio given by URL, audio of another format than wav and mp3 | in user messages: images, video and text (data or URL), PDFs and wav / mp3 audio as base64 data (`image_url`, `video_url`, `text`, `file`, `input_audio`) |
 */
export const AI_SDK_PART_SUPPORT: readonly AISdkPartSupportRow[] = [
  {
    package: "@ai-sdk/google",
    matches: (p) => p === "google.generative-ai" || p.startsWith("google.vertex."),
    unsupported: [
      { in: "toolResult", source: "url" },
      { in: "assistant", source: "url" },
    ],
    why: {
      toolResult:
        "@ai-sdk/google would write a media URL in a tool result out as JSON text; send the media as base64 data",
      assistant:
        "@ai-sdk/google takes no media URL in an assistant message; send the media as base64 data",
    },
  },
];

/** The audio media types `@ai-sdk/openai-compatible` sends (as `input_audio`). */
const COMPATIBLE_AUDIO: readonly string[] = ["audio/wav", "audio/mp3", "audio/mpeg"];

/**
 * What the adapter refuses for a provider not in {@link AI_SDK_PART_SUPPORT} (such as
 * `@ai-sdk/openai-compatible`, whose provider id is the name its user chose): media in tool
 * results and in assistant messages, and in user messages the media types and sources the
 * package refuses itself (a zip file, a PDF by URL, flac audio). Where the provider does send them (an
 * `@ai-sdk/openai-compatible` model made with `supportsMultiPartToolContent: true`), pass
 * `unsupportedParts: [{ in: "assistant" }]` (or `[]`) to `fromAISdk`.
 */
export const AI_SDK_DEFAULT_UNSUPPORTED: readonly AISdkPartRule[] = [
  { in: "toolResult" },
  { in: "assistant" },
  // What @ai-sdk/openai-compatible refuses itself in a user message (its
  // convertToOpenAICompatibleContentPart): found before the call, so the error names the part.
  { in: "user", type: "file", source: "url", except: ["image/*", "video/*", "text/*"] },
  {
    in: "user",
    type: "file",
    except: ["image/*", "video/*", "text/*", "application/pdf", ...COMPATIBLE_AUDIO],
  },
  { in: "user", type: "audio", source: "url" },
  { in: "user", type: "audio", except: COMPATIBLE_AUDIO },
];

const DEFAULT_WHY: AISdkPartSupportRow["why"] = {
  user: "@ai-sdk/openai-compatible (the default for providers fromAISdk has no row for) refuses it in a user message: it sends images, video and text, PDFs and wav or mp3 audio as base64 data; pass unsupportedParts to fromAISdk if this provider sends it",
  toolResult:
    "@ai-sdk/openai-compatible (the default for providers fromAISdk has no row for) would write it out as JSON text; pass unsupportedParts to fromAISdk if this provider sends it",
  assistant:
    "@ai-sdk/openai-compatible (the default for providers fromAISdk has no row for) would leave it out; pass unsupportedParts to fromAISdk if this provider sends it",
};

/** The parts a model of `provider` cannot send, and why, by place: the option when given, else the table's row, else the default. */
export function partSupport(
  provider: string,
  option: readonly AISdkPartRule[] | undefined,
): { unsupported: readonly AISdkPartRule[]; why: (place: AISdkPartPlace) => string } {
  if (option !== undefined)
    return { unsupported: option, why: () => "the unsupportedParts option of fromAISdk lists it" };
  const row = AI_SDK_PART_SUPPORT.find((r) => r.matches(provider));
  const why = row?.why ?? DEFAULT_WHY;
  return {
    unsupported: row?.unsupported ?? AI_SDK_DEFAULT_UNSUPPORTED,
    why: (place) => why[place] ?? "the provider package would not send it",
  };
}

/** The media type of an audio part in `format`, as the adapter sends it (`"mp3"` → `audio/mpeg`). */
export function audioMediaType(format: string): string {
  return `audio/${format === "mp3" ? "mpeg" : format}`;
}

function mediaTypeListed(mediaType: string, list: readonly string[]): boolean {
  const type = mediaType.toLowerCase();
  return list.some((m) =>
    m.endsWith("/*") ? type.startsWith(m.slice(0, -1)) : type === m.toLowerCase(),
  );
}

/** Whether a non-text part of `type` at `place`, with a `url` or `data`, matches one of the rules. */
export function isUnsupported(
  rules: readonly AISdkPartRule[],
  place: AISdkPartPlace,
  part: { type: string; url?: string | undefined; mediaType?: string | undefined; format?: string },
): boolean {
  if (part.type === "text") return false;
  const source = part.url !== undefined ? "url" : "data";
  const mediaType =
    part.type === "audio" && part.format !== undefined
      ? audioMediaType(part.format)
      : part.mediaType;
  return rules.some(
    (r) =>
      (r.in === undefined || r.in === place) &&
      (r.type === undefined || r.type === part.type) &&
      (r.source === undefined || r.source === source) &&
      (r.except === undefined ||
        (mediaType !== undefined && !mediaTypeListed(mediaType, r.except))),
  );
}
