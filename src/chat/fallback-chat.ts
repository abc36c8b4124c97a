/**
 * {@link fallbackChat}: a {@link Chat} that tries an ordered list of models, moving on when one
 * fails with a provider error, a rate limit or a time-out, never for a bad request.
 *
 * @module
 */
import { FallbackExhaustedError, ModelProviderError } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";
import type {
  Chat,
  ChatCallOptions,
  ChatRequest,
  ChatResponseInit,
  ChatStreamChunk,
} from "./types.js";

/** Why a model was skipped: `"rate_limit"` (429), `"timeout"` (408 or the call's time-out), `"unsupported"` (a part it cannot send), `"provider_error"` (anything else it moves on for). */
export type SkipReason = "rate_limit" | "timeout" | "unsupported" | "provider_error";

/** One skipped model, as recorded in `responseMetadata.fallback.skipped`. */
export interface SkippedModel {
  model: string;
  reason: SkipReason;
  /** HTTP status, or `null` when the provider gave none. */
  status: number | null;
  /** The error's message. */
  message: string;
}

/** Options of {@link fallbackChat}. */
export interface FallbackChatOptions {
  /** Name the chat reports as `model`; default the names joined: `"a|b"`. */
  name?: string;
  /**
   * Whether an error moves on to the next model. Default {@link isFallbackError}: a
   * `ModelProviderError` whose status is not 400 or 422 (a bad request fails the same way
   * everywhere). Cancellations, `ValidationError`s and other errors of the caller never move on.
   */
  shouldFallback?: (error: unknown) => boolean;
}

/** The default rule of {@link fallbackChat}: a `ModelProviderError` other than a bad request (HTTP 400 or 422). */
export function isFallbackError(error: unknown): boolean {
  return error instanceof ModelProviderError && error.status !== 400 && error.status !== 422;
}

function skipOf(model: string, error: unknown): SkippedModel {
  const e = error as Partial<ModelProviderError> & { name?: string; message?: string };
  const status = typeof e.status === "number" ? e.status : null;
  const reason: SkipReason =
    status === 429
      ? "rate_limit"
      : status === 408 || /timed out/.test(String(e.message))
        ? "timeout"
        : e.name === "UnsupportedPartError"
          ? "unsupported"
          : "provider_error";
  return { model, reason, status, message: String(e.message ?? error) };
}

function metadataOf(model: string, skipped: SkippedModel[]): JsonObject {
  return { fallback: { model, skipped: skipped.map((s) => ({ ...s })) } };
}

function exhausted(
  skipped: SkippedModel[],
  attempts: { model: string; error: unknown }[],
): FallbackExhaustedError {
  const last = attempts.at(-1)?.error as ModelProviderError | undefined;
  return new FallbackExhaustedError(
    `All ${attempts.length} models failed: ${skipped.map((s) => `${s.model}: ${s.message}`).join("; ")}`,
    {
      attempts,
      ...(typeof last?.status === "number" ? { status: last.status } : {}),
      retryable: attempts.some((a) => (a.error as ModelProviderError).retryable === true),
      cause: last,
    },
  );
}

/**
 * A {@link Chat} on an ordered list of models: each call goes to the first; when it fails with
 * an error `shouldFallback` accepts, the next is tried, and so on. The answer's
 * `responseMetadata.fallback` (stored on the `AIMessage`) records `model` (which one answered)
 * and `skipped` (each model before it: `{ model, reason, status, message }`).
 *
 * A stream falls back only before its first chunk: once a model has sent a chunk, its errors
 * are the stream's. The metadata comes as a last chunk (`{ responseMetadata }`).
 *
 * Each model keeps its own retries (`maxRetries` of the integration): a model is skipped only
 * once they are spent. LangGraph/LangChain name: `model.withFallbacks([...])`.
 *
 * @param models - the models, in order; at least one.
 * @throws {TypeError} `models` is empty or holds something that is not a Chat.
 * @throws {FallbackExhaustedError} (from a call) every model failed with an error it moves on for.
 * @example
 * ```ts
 * const chat = fallbackChat([await chatModel("openai:gpt-4o-mini"), await chatModel("anthropic:claude-3-5-haiku-latest")]);
 * ```
 */
export function fallbackChat(models: readonly Chat[], options: FallbackChatOptions = {}): Chat {
  if (!Array.isArray(models) || models.length === 0)
    throw new TypeError("fallbackChat needs at least one model");
  models.forEach((m, i) => {
    if (typeof m?.complete !== "function" || typeof m.stream !== "function")
      throw new TypeError(
        `fallbackChat: models[${i}] is not a Chat (it needs complete and stream)`,
      );
  });
  const list = models.slice();
  const moveOn = options.shouldFallback ?? isFallbackError;
  const name = options.name ?? list.map((m) => m.model).join("|");

  return {
    model: name,
    async complete(request: ChatRequest, call?: ChatCallOptions): Promise<ChatResponseInit> {
      const skipped: SkippedModel[] = [];
      const attempts: { model: string; error: unknown }[] = [];
      for (const chat of list) {
        try {
          const response = await chat.complete(request, call);
          return {
            ...response,
            model: response.model ?? chat.model,
            responseMetadata: {
              ...(response.responseMetadata ?? {}),
              ...metadataOf(chat.model, skipped),
            },
          };
        } catch (e) {
          if (call?.signal?.aborted || !moveOn(e)) throw e;
          skipped.push(skipOf(chat.model, e));
          attempts.push({ model: chat.model, error: e });
        }
      }
      throw exhausted(skipped, attempts);
    },
    async *stream(request: ChatRequest, call?: ChatCallOptions): AsyncGenerator<ChatStreamChunk> {
      const skipped: SkippedModel[] = [];
      const attempts: { model: string; error: unknown }[] = [];
      for (const chat of list) {
        const iterator = chat.stream(request, call)[Symbol.asyncIterator]();
        let first: IteratorResult<ChatStreamChunk>;
        try {
          first = await iterator.next();
        } catch (e) {
          if (call?.signal?.aborted || !moveOn(e)) throw e;
          skipped.push(skipOf(chat.model, e));
          attempts.push({ model: chat.model, error: e });
          continue;
        }
        try {
          if (!first.done) yield first.value;
          for (let r = first; !r.done; ) {
            r = await iterator.next();
            if (!r.done) yield r.value;
          }
        } finally {
          await iterator.return?.();
        }
        yield { responseMetadata: metadataOf(chat.model, skipped) };
        return;
      }
      throw exhausted(skipped, attempts);
    },
  };
}
