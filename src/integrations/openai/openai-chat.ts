/**
 * `OpenAIChat`: the {@link Chat} interface over OpenAI's Chat Completions API, through the
 * official `openai` package (an optional peer dependency, loaded on first use).
 *
 * @module
 */
import type OpenAI from "openai";
import type { ChatCompletionCreateParamsBase } from "openai/resources/chat/completions";
import type { ResponseCreateParamsBase } from "openai/resources/responses/responses";
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
  DEFAULT_TIMEOUT_MS,
  loadPeer,
  type ProviderCallOptions,
  type RetryPolicy,
  retryPolicy,
  withRetries,
} from "../internal/call.js";
import { mapSdkError, type SdkErrorClasses } from "../internal/sdk-errors.js";
import { completionsBody, fromChunk, fromCompletion, LABEL, PROVIDER } from "./chat-completions.js";
import {
  fromResponse,
  fromResponsesEvent,
  responsesBody,
  responsesStreamState,
} from "./responses.js";

/** Options of {@link OpenAIChat}. Only `model` is required; the others default as the `openai` SDK does. */
export interface OpenAIChatOptions extends ProviderCallOptions {
  /** Model name, such as `"gpt-4o-mini"`; sent as `model`. */
  model: string;
  /** API key; defaults to the `OPENAI_API_KEY` environment variable (as the SDK does). */
  apiKey?: string;
  /** Base URL of the API, for OpenAI-compatible servers (vLLM, llama.cpp, LM Studio, Ollama's `/v1`); defaults to `OPENAI_BASE_URL` or `https://api.openai.com/v1`. */
  baseURL?: string;
  /** A ready `OpenAI` client to use instead of building one; `apiKey` and `baseURL` are then ignored. Its own retries are turned off per request: nodestep retries. */
  client?: OpenAI;
  /** Sampling temperature, sent as `temperature` when set. */
  temperature?: number;
  /** Most tokens to generate, sent as `max_completion_tokens` when set. */
  maxTokens?: number;
  /** Ask for a final usage chunk when streaming (`stream_options.include_usage`); default `true`. Turn off for servers that reject `stream_options`. */
  streamUsage?: boolean;
  /** Which API: `"chat"` (default), Chat Completions (`POST /chat/completions`), which compatible servers speak; or `"responses"`, the Responses API (`POST /responses`), which sends reasoning items back and takes images and files in tool results. */
  api?: "chat" | "responses";
  /** Sent as `prompt_cache_key` (both APIs): requests with the same key share OpenAI's prompt cache. Cached tokens come back as `usage.cachedInputTokens`. */
  promptCacheKey?: string;
  /** Responses API only: sent as `store` when set; with `false`, reasoning is asked for encrypted (`include: ["reasoning.encrypted_content"]`) so that it can be sent back. */
  store?: boolean;
  /** More request fields, merged into every request body last (for example `{ seed: 1 }` or a server's own fields). */
  extraBody?: JsonObject;
}

type OpenAIModule = typeof import("openai");

/**
 * A chat model on OpenAI's Chat Completions API (`POST /chat/completions`), or on any server
 * that speaks it (set `baseURL`).
 *
 * Maps a {@link ChatRequest}: system, human, AI (with tool calls and refusals) and tool
 * messages; tools as function tools with their JSON schemas; `toolChoice`; `outputSchema` as
 * `response_format: { type: "json_schema", json_schema: { name, schema, strict: true } }`
 * (name from the schema's `title`, else `"output"`). Streaming asks for a usage chunk.
 *
 * @throws ModelProviderError from `complete`/`stream` when the `openai` package is missing
 *   (not retryable), on HTTP errors (with `status`; 408, 429 and 5xx are `retryable`, 401 is
 *   not), on connection failures, time-outs and streams that break off (retryable), after
 *   retrying as `maxRetries` allows.
 * @throws RunCancelledError when `options.signal` fires, during the call or the stream.
 * @example
 * ```ts
 * import { OpenAIChat } from "nodestep/openai";
 * const chat = new OpenAIChat({ model: "gpt-4o-mini" }); // OPENAI_API_KEY from the environment
 * const agent = buildReactAgent(chat, { tools: [getOrderStatus] });
 * ```
 */
export class OpenAIChat implements Chat {
  /** Model name sent with every request. */
  readonly model: string;
  /** Provider name used in errors: `"openai"`. */
  readonly provider = PROVIDER;
  /** The API it calls: `"chat"` (Chat Completions) or `"responses"`. */
  readonly api: "chat" | "responses";
  readonly #options: OpenAIChatOptions;
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  #loaded: Promise<{ client: OpenAI; classes: SdkErrorClasses | null }> | null = null;

  constructor(options: OpenAIChatOptions) {
    if (typeof options?.model !== "string" || options.model === "")
      throw new TypeError(
        "OpenAIChat needs a model name: new OpenAIChat({ model: 'gpt-4o-mini' })",
      );
    if (options.api !== undefined && options.api !== "chat" && options.api !== "responses")
      throw new TypeError(
        `OpenAIChat: api must be "chat" or "responses", got ${JSON.stringify(options.api)}`,
      );
    this.model = options.model;
    this.api = options.api ?? "chat";
    this.#options = options;
    this.#policy = retryPolicy(options);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  #load(): Promise<{ client: OpenAI; classes: SdkErrorClasses | null }> {
    this.#loaded ??= (async () => {
      const mod = await loadPeer<OpenAIModule>(
        "openai",
        "OpenAIChat",
        PROVIDER,
        () => import("openai"),
      );
      const classes: SdkErrorClasses = mod;
      if (this.#options.client) return { client: this.#options.client, classes };
      try {
        const client = new mod.OpenAI({
          ...(this.#options.apiKey !== undefined ? { apiKey: this.#options.apiKey } : {}),
          ...(this.#options.baseURL !== undefined ? { baseURL: this.#options.baseURL } : {}),
          maxRetries: 0,
        });
        return { client, classes };
      } catch (e) {
        throw new ModelProviderError(
          `OpenAIChat could not create the OpenAI client: ${(e as Error).message}`,
          {
            provider: PROVIDER,
            retryable: false,
            cause: e,
          },
        );
      }
    })();
    this.#loaded.catch(() => {
      this.#loaded = null;
    });
    return this.#loaded;
  }

  /** The request body for `request` (without `stream`): Chat Completions, or Responses with `api: "responses"`. Exposed for tests and debugging. */
  toRequestBody(request: ChatRequest): ChatCompletionCreateParamsBase | ResponseCreateParamsBase {
    const o = this.#options;
    const common = {
      temperature: o.temperature,
      maxTokens: o.maxTokens,
      promptCacheKey: o.promptCacheKey,
      extraBody: o.extraBody,
    };
    return this.api === "responses"
      ? responsesBody(this.model, request, { ...common, store: o.store })
      : completionsBody(this.model, request, common);
  }

  /**
   * Send `request` and return the whole response.
   * @throws ModelProviderError, RunCancelledError (see the class).
   */
  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const { client, classes } = await this.#load();
    const body = this.toRequestBody(request);
    const responses = this.api === "responses";
    const answer = await withRetries(
      async () => {
        const control = new CallControl(this.#timeoutMs, options.signal);
        const opts = { signal: control.signal, maxRetries: 0, timeout: this.#timeoutMs };
        try {
          return responses
            ? await client.responses.create(
                { ...(body as ResponseCreateParamsBase), stream: false },
                opts,
              )
            : await client.chat.completions.create(
                { ...(body as ChatCompletionCreateParamsBase), stream: false },
                opts,
              );
        } catch (e) {
          throw mapSdkError(e, { provider: PROVIDER, label: LABEL, control, classes });
        } finally {
          control.dispose();
        }
      },
      this.#policy,
      options.signal,
    );
    return responses
      ? fromResponse(answer as import("openai/resources/responses/responses").Response)
      : fromCompletion(answer as import("openai/resources/chat/completions").ChatCompletion);
  }

  /**
   * Send `request` and yield the response as it is generated: content, refusal and tool-call
   * deltas, then a chunk with the finish reason and one with the usage.
   * @throws ModelProviderError, RunCancelledError (see the class); a stream that ends before a
   *   finish reason arrived is a retryable `ModelProviderError`.
   */
  async *stream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatStreamChunk> {
    const { client, classes } = await this.#load();
    const body = this.toRequestBody(request);
    const responses = this.api === "responses";
    const state = responsesStreamState();
    let control: CallControl | null = null;
    const stream = await withRetries(
      async () => {
        const attempt = new CallControl(this.#timeoutMs, options.signal);
        try {
          const opts = { signal: attempt.signal, maxRetries: 0, timeout: this.#timeoutMs };
          const s: AsyncIterable<unknown> = responses
            ? await client.responses.create(
                { ...(body as ResponseCreateParamsBase), stream: true },
                opts,
              )
            : await client.chat.completions.create(
                {
                  ...(body as ChatCompletionCreateParamsBase),
                  stream: true,
                  ...(this.#options.streamUsage === false
                    ? {}
                    : { stream_options: { include_usage: true } }),
                },
                opts,
              );
          control = attempt;
          return s;
        } catch (e) {
          attempt.dispose();
          throw mapSdkError(e, { provider: PROVIDER, label: LABEL, control: attempt, classes });
        }
      },
      this.#policy,
      options.signal,
    );
    const ctl = control as unknown as CallControl;
    let finished = false;
    try {
      for await (const chunk of stream) {
        ctl.pause(); // the time-out runs only while waiting for the provider
        const pieces = responses
          ? fromResponsesEvent(
              chunk as import("openai/resources/responses/responses").ResponseStreamEvent,
              state,
            )
          : fromChunk(chunk as import("openai/resources/chat/completions").ChatCompletionChunk);
        for (const piece of pieces) {
          if (piece.finishReason != null) finished = true;
          yield piece;
        }
        ctl.arm();
      }
    } catch (e) {
      throw mapSdkError(e, { provider: PROVIDER, label: LABEL, control: ctl, classes });
    } finally {
      ctl.dispose();
    }
    const stop = ctl.stopError(PROVIDER);
    if (stop) throw stop;
    if (!finished)
      throw new ModelProviderError(
        "The OpenAI stream broke off: it ended before the model finished (no finish_reason)",
        { provider: PROVIDER, retryable: true },
      );
  }
}
