/**
 * `aiSdkEmbeddings`: an {@link Embeddings} over any Vercel AI SDK embedding model, by its
 * shape alone (no dependency on the `ai` or `@ai-sdk/*` packages).
 *
 * @module
 */
import { MemoryStoreError } from "../errors/index.js";
import type { Embeddings } from "./types.js";

/**
 * The part of an AI SDK embedding model (`EmbeddingModelV2<string>` / `V3` of
 * `@ai-sdk/provider`, such as `openai.embedding("text-embedding-3-small")`) that is used.
 */
export interface AiSdkEmbeddingModel {
  /** The provider's model id. */
  readonly modelId: string;
  /** Most values one `doEmbed` call takes, when the provider limits it. */
  readonly maxEmbeddingsPerCall?: number | PromiseLike<number | undefined> | undefined;
  /** Embed values; called with batches of at most `maxEmbeddingsPerCall`. */
  doEmbed(options: { values: string[]; abortSignal?: AbortSignal }): PromiseLike<{
    embeddings: ArrayLike<number>[];
  }>;
}

/**
 * Wrap an AI SDK embedding model as {@link Embeddings}: texts are split into batches of the
 * model's `maxEmbeddingsPerCall` (all at once when it has none) and sent to `doEmbed` with
 * the signal as `abortSignal`.
 *
 * @throws MemoryStoreError (from `embed`) when the model returns another number of vectors than texts.
 * @example
 * ```ts
 * import { openai } from "@ai-sdk/openai";
 * const embeddings = aiSdkEmbeddings(openai.embedding("text-embedding-3-small"));
 * const store = new InMemoryStore({ index: { embeddings, dimensions: 1536 } });
 * ```
 */
export function aiSdkEmbeddings(model: AiSdkEmbeddingModel): Embeddings {
  if (typeof model?.doEmbed !== "function") {
    throw new TypeError(
      "aiSdkEmbeddings(model): model must be an AI SDK embedding model (with doEmbed)",
    );
  }
  return {
    async embed(texts, options = {}) {
      const max = (await model.maxEmbeddingsPerCall) ?? texts.length;
      const size = Number.isInteger(max) && max > 0 ? max : texts.length;
      const out: number[][] = [];
      for (let at = 0; at < texts.length; at += size) {
        const values = texts.slice(at, at + size);
        const res = await model.doEmbed({
          values,
          ...(options.signal ? { abortSignal: options.signal } : {}),
        });
        if (res.embeddings.length !== values.length) {
          throw new MemoryStoreError(
            `AI SDK model "${model.modelId}" returned ${res.embeddings.length} embeddings for ${values.length} values`,
          );
        }
        for (const e of res.embeddings) out.push(Array.from(e));
      }
      return out;
    },
  };
}
