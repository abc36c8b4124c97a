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
 * | any other, such as `<name>.chat` of `@ai-sdk/openai-compatible` | unknown | every image, file and audio part in tool results (`@ai-sdk/openai-compatible` writes them out as JSON text) and in assistant messages (it leaves them out) | images, files and audio in user messages (`image_url`, `file`, `input_audio`) |
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

/**
 * What the adapter refuses for a provider not in {@link AI_SDK_PART_SUPPORT} (such as
 * `@ai-sdk/openai-compatible`, whose provider id is the name its user chose): media in tool
 * results and in assistant messages. Where the provider does send them (an
 * `@ai-sdk/openai-compatible` model made with `supportsMultiPartToolContent: true`), pass
 * `unsupportedParts: [{ in: "assistant" }]` (or `[]`) to `fromAISdk`.
 */
export const AI_SDK_DEFAULT_UNSUPPORTED: readonly AISdkPartRule[] = [
  { in: "toolResult" },
  { in: "assistant" },
];

const DEFAULT_WHY: AISdkPartSupportRow["why"] = {
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

/** Whether a non-text part of `type` at `place`, with a `url` or `data`, matches one of the rules. */
export function isUnsupported(
  rules: readonly AISdkPartRule[],
  place: AISdkPartPlace,
  part: { type: string; url?: string | undefined },
): boolean {
  if (part.type === "text") return false;
  const source = part.url !== undefined ? "url" : "data";
  return rules.some(
    (r) =>
      (r.in === undefined || r.in === place) &&
      (r.type === undefined || r.type === part.type) &&
      (r.source === undefined || r.source === source),
  );
}
