/**
 * {@link fromAISdk}: any AI SDK language model (`@ai-sdk/provider` specification V3 or V4, as
 * made by `@ai-sdk/google`, `@ai-sdk/mistral`, `@ai-sdk/amazon-bedrock`, `@ai-sdk/openai-compatible`…)
 * as a nodestep {@link Chat}.
 *
 * @module
 */
import type {
  Chat,
  ChatCallOptions,
  ChatRequest,
  ChatResponse,
  ChatStreamChunk,
} from "../../chat/types.js";
import { ModelProviderError } from "../../errors/index.js";
import type { JsonObject } from "../../json/index.js";
import {
  CallControl,
  cancelledError,
  DEFAULT_TIMEOUT_MS,
  type ProviderCallOptions,
  type RetryPolicy,
  retryPolicy,
  retryWait,
  withRetries,
} from "../internal/call.js";
import { fromGenerateResult, mapAISdkError, StreamMapper } from "./from-result.js";
import { type AISdkPartRule, partSupport } from "./part-support.js";
import { type SdkCallOptions, type SpecVersion, toCallOptions, type Where } from "./to-call.js";

/**
 * The part of an AI SDK `LanguageModelV3` / `LanguageModelV4` the adapter uses. Any model of
 * an AI SDK provider package fits; nodestep needs no import of `@ai-sdk/provider` for it.
 */
export interface AISdkLanguageModel {
  readonly specificationVersion: string;
  /** Provider id such as `"google.generative-ai"` or `"openai.chat"`. */
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: never): PromiseLike<unknown>;
  doStream(options: never): PromiseLike<{ stream: ReadableStream<unknown> }>;
}

/** Options of {@link fromAISdk}. */
export interface AISdkChatOptions extends ProviderCallOptions {
  /**
   * Call settings copied into every call: `temperature`, `maxOutputTokens`, `topP`, `topK`,
   * `seed`, `stopSequences`, `headers`, `providerOptions` (by provider name)… as the AI SDK
   * names them. The request's messages, tools, tool choice, output schema and reasoning win.
   */
  settings?: JsonObject;
  /** Name the chat reports as `model` (and middleware sees as `ctx.model`); default the model's `modelId`. */
  name?: string;
  /**
   * The parts the provider package cannot send as what they are (it would write them out as
   * JSON text, or leave them out): a request with one rejects with `UnsupportedPartError`
   * before anything is sent. Default: the row of `AI_SDK_PART_SUPPORT` for the model's
   * `provider` id, else `AI_SDK_DEFAULT_UNSUPPORTED` (media in tool results and in
   * assistant messages, and the user-message media types `@ai-sdk/openai-compatible`
   * refuses itself). Pass `[]` for a provider that sends every part, or, for an
   * `@ai-sdk/openai-compatible` model made with `supportsMultiPartToolContent: true`,
   * `AI_SDK_DEFAULT_UNSUPPORTED.filter((r) => r.in !== "toolResult")`.
   */
  unsupportedParts?: readonly AISdkPartRule[];
}

type Generate = (o: SdkCallOptions) => PromiseLike<Record<string, unknown>>;
type Stream = (o: SdkCallOptions) => PromiseLike<{ stream: ReadableStream<unknown> }>;

/**
 * A {@link Chat} on an AI SDK language model. Build it with {@link fromAISdk}.
 *
 * - `complete` calls `doGenerate`, `stream` calls `doStream`; messages, content parts (images,
 *   files, audio as file parts; in tool results the `content` output), tools, tool choice, structured output (`responseFormat:
 *   { type: "json", schema }`) and reasoning effort (V4) are mapped both ways.
 * - Reasoning parts come back with `provider: "ai-sdk/<model.provider>"` and the part's
 *   `providerMetadata` as `data`; they are sent back (as `providerOptions`) only to a model of
 *   that same provider. A tool call's `providerMetadata` (Gemini 3's `thoughtSignature` of a
 *   function call) is kept as a reasoning part with text `""` and `data: { aiSdkToolCallId,
 *   providerMetadata }`, and goes back as that tool call's `providerOptions`; the answer
 *   text's (a `thoughtSignature` on a text part) as one with `data: { aiSdkText: true,
 *   providerMetadata }`, sent back on the message's first text part.
 * - Usage: `inputTokens.total` → `inputTokens`, `cacheRead` → `cachedInputTokens`,
 *   `outputTokens.total` → `outputTokens`, `outputTokens.reasoning` → `reasoningTokens`, the
 *   provider's own counts under `raw`.
 * - Parts the provider package would degrade (see `AI_SDK_PART_SUPPORT`, or the
 *   `unsupportedParts` option) reject with `UnsupportedPartError` (`partType`, `path`,
 *   `provider`), and nothing is sent.
 * - Errors: an `APICallError` becomes a {@link ModelProviderError} with its `status`,
 *   `retryable` (the SDK's `isRetryable`) and `retryAfterMs` (its `Retry-After`); retryable
 *   errors are retried `maxRetries` times (default 2) before the first chunk; `timeoutMs`
 *   (default 600,000) bounds each wait for the model; a fired signal rejects with
 *   `RunCancelledError` at once, even if the model ignores its `abortSignal`.
 */
export class AISdkChat implements Chat {
  readonly model: string;
  /** The AI SDK provider id, such as `"google.generative-ai"`. */
  readonly provider: string;
  /** Specification version of the wrapped model. */
  readonly specificationVersion: SpecVersion;
  readonly #generate: Generate;
  readonly #stream: Stream;
  readonly #settings: JsonObject;
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #label: string;
  readonly #reasoningProvider: string;
  readonly #where: Where;
  /** The parts this chat refuses (the `unsupportedParts` option, or the table's default for its provider). */
  readonly unsupportedParts: readonly AISdkPartRule[];

  constructor(model: AISdkLanguageModel, options: AISdkChatOptions = {}) {
    const version = (model as { specificationVersion?: unknown } | null)?.specificationVersion;
    if (version !== "v3" && version !== "v4")
      throw new TypeError(
        `fromAISdk needs an AI SDK language model of specification v3 or v4, got ${version === undefined ? "an object without specificationVersion" : `specificationVersion ${JSON.stringify(version)}`}: use a provider package built for ai@6 or later`,
      );
    this.specificationVersion = version;
    this.provider = model.provider;
    this.model = options.name ?? model.modelId;
    this.#generate = (o) => model.doGenerate(o as never) as PromiseLike<Record<string, unknown>>;
    this.#stream = (o) => model.doStream(o as never);
    this.#settings = options.settings ?? {};
    this.#policy = retryPolicy(options);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#label = `AI SDK model ${model.provider}/${model.modelId}`;
    this.#reasoningProvider = `ai-sdk/${model.provider}`;
    const support = partSupport(model.provider, options.unsupportedParts);
    this.unsupportedParts = support.unsupported;
    this.#where = {
      provider: this.provider,
      label: this.#label,
      version: version,
      reasoningProvider: this.#reasoningProvider,
      unsupported: support.unsupported,
      why: support.why,
    };
  }

  #call(request: ChatRequest, control: CallControl): SdkCallOptions {
    return toCallOptions(request, this.#settings, this.#where, control);
  }

  #fail(control: CallControl, e: unknown): Error {
    return control.stopError(this.provider, e) ?? mapAISdkError(e, this.provider, this.#label);
  }

  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const signal = options.signal;
    if (signal?.aborted) throw cancelledError(signal);
    for (let n = 0; ; n++) {
      try {
        return await this.#generateOnce(request, signal);
      } catch (e) {
        await retryWait(e, n, this.#policy, signal);
      }
    }
  }

  /** One attempt of `complete`. */
  async #generateOnce(
    request: ChatRequest,
    signal: AbortSignal | undefined,
  ): Promise<ChatResponse> {
    const control = new CallControl(this.#timeoutMs, signal);
    try {
      const call = this.#call(request, control);
      const result = await control.race(this.#generate(call));
      return fromGenerateResult(result, this.#reasoningProvider, this.model);
    } catch (e) {
      throw this.#fail(control, e);
    } finally {
      control.dispose();
    }
  }

  async *stream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatStreamChunk> {
    if (options.signal?.aborted) throw cancelledError(options.signal);
    let control: CallControl | null = null;
    const { stream } = await withRetries(
      async () => {
        const attempt = new CallControl(this.#timeoutMs, options.signal);
        try {
          const result = await attempt.race(this.#stream(this.#call(request, attempt)));
          control = attempt;
          return result;
        } catch (e) {
          attempt.dispose();
          throw this.#fail(attempt, e);
        }
      },
      this.#policy,
      options.signal,
    );
    const ctl = control as unknown as CallControl;
    const reader = stream.getReader();
    const mapper = new StreamMapper(this.#reasoningProvider);
    let ended = false;
    try {
      for (;;) {
        const { done, value } = await ctl.race(reader.read());
        if (done) break;
        ctl.pause(); // the time-out runs only while waiting for the model
        for (const chunk of mapper.map(value as { type: string })) yield chunk;
        ctl.arm();
      }
      ended = true;
    } catch (e) {
      throw this.#fail(ctl, e);
    } finally {
      ctl.dispose();
      if (!ended) reader.cancel().catch(() => {}); // a stream left early: let the provider stop
    }
    if (!mapper.finished)
      throw new ModelProviderError(
        `The ${this.#label} stream broke off: it ended before a finish part`,
        { provider: this.provider, retryable: true },
      );
  }
}

/**
 * Turn an AI SDK language model into a nodestep {@link Chat}.
 *
 * @param model - a model of an AI SDK provider package (`google("gemini-2.5-flash")`,
 *   `createOpenAICompatible({...})("llama-3.1")`…) of specification V3 (ai@6) or V4 (ai@7).
 * @param options - call settings (`settings`), retries (`maxRetries`, default 2), `timeoutMs`,
 *   `name`, `unsupportedParts`.
 * @throws {TypeError} the model is not a V3 or V4 language model.
 * @throws {UnsupportedPartError} (from `complete` / `stream`) a request holds a part the
 *   provider would degrade, such as an image in a tool result for `@ai-sdk/openai-compatible`.
 * @example
 * ```ts
 * import { google } from "@ai-sdk/google";
 * import { fromAISdk } from "nodestep/ai-sdk";
 * const chat = fromAISdk(google("gemini-2.5-flash"), { settings: { temperature: 0 } });
 * ```
 */
export function fromAISdk(model: AISdkLanguageModel, options: AISdkChatOptions = {}): AISdkChat {
  return new AISdkChat(model, options);
}
