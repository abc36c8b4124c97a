/**
 * `AnthropicChat`: the {@link Chat} interface over Anthropic's Messages API, through the
 * official `@anthropic-ai/sdk` package (an optional peer dependency, loaded on first use).
 *
 * @module
 */
import type Anthropic from "@anthropic-ai/sdk";
import type {
  ToolChoice as AnthropicToolChoice,
  MessageCreateParamsBase,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import type {
  Chat,
  ChatCallOptions,
  ChatRequest,
  ChatResponse,
  ChatStreamChunk,
} from "../../chat/types.js";
import { ModelProviderError, ValueError } from "../../errors/index.js";
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
import {
  fromEvent,
  fromMessage,
  LABEL,
  PROVIDER,
  streamState,
  toAnthropicMessages,
} from "./anthropic-wire.js";

/** Default `max_tokens` of every request (the Messages API requires one). */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** Options of {@link AnthropicChat}. Only `model` is required; the others default as the `@anthropic-ai/sdk` SDK does. */
export interface AnthropicChatOptions extends ProviderCallOptions {
  /** Model name, such as `"claude-sonnet-4-6"`; sent as `model`. */
  model: string;
  /** API key; defaults to the `ANTHROPIC_API_KEY` environment variable (as the SDK does). */
  apiKey?: string;
  /** Base URL of the API; defaults to `ANTHROPIC_BASE_URL` or `https://api.anthropic.com`. */
  baseURL?: string;
  /** A ready `Anthropic` client to use instead of building one; `apiKey` and `baseURL` are then ignored. Its own retries are turned off per request: nodestep retries. */
  client?: Anthropic;
  /** Most tokens to generate, sent as `max_tokens`; default 4096. */
  maxTokens?: number;
  /**
   * Prompt caching: `"auto"` sets cache breakpoints (`cache_control: { type: "ephemeral" }`)
   * on the system prompt, the last tool and the last block of the conversation's latest turn.
   * Without it, only parts marked `cache: true` get one. Cache reads come back as
   * `usage.cachedInputTokens`.
   */
  cache?: "auto";
  /** More request fields, merged into every request body last (for example `{ thinking: { type: "adaptive" } }`, or sampling fields the SDK version does not list). */
  extraBody?: JsonObject;
}

type AnthropicModule = typeof import("@anthropic-ai/sdk");

/**
 * A chat model on Anthropic's Messages API (`POST /v1/messages`).
 *
 * Maps a {@link ChatRequest}: system messages become the top-level `system` prompt (joined by
 * blank lines); AI tool calls become `tool_use` blocks and tool messages `tool_result` blocks,
 * consecutive ones merged into one user turn; tools keep their JSON schemas as `input_schema`;
 * `toolChoice` `"auto"`/`"required"`/`"none"`/a name becomes `auto`/`any`/`none`/`tool`;
 * `outputSchema` is sent as `output_config: { format: { type: "json_schema", schema } }`
 * (Anthropic's structured outputs; the JSON answer arrives as text).
 *
 * Maps back: text blocks joined as `content`; `tool_use` blocks as tool calls (streamed
 * `input_json_delta` pieces as tool-call deltas); `stop_reason` `end_turn` and `stop_sequence`
 * → `"stop"`, `tool_use` → `"tool_calls"`, `max_tokens` → `"length"`, others kept (`"refusal"`
 * also sets `refusal` to the stop details' explanation); `usage` as Anthropic reports it.
 *
 * @throws ModelProviderError from `complete`/`stream` when `@anthropic-ai/sdk` is missing (not
 *   retryable), on HTTP errors (with `status`; 408, 429, 5xx retryable), connection failures,
 *   time-outs, `error` events and streams that break off (retryable unless the error type
 *   says the request itself is wrong).
 * @throws RunCancelledError when `options.signal` fires.
 * @example
 * ```ts
 * import { AnthropicChat } from "nodestep/anthropic";
 * const chat = new AnthropicChat({ model: "claude-sonnet-4-6", maxTokens: 2048 });
 * ```
 */
export class AnthropicChat implements Chat {
  /** Model name sent with every request. */
  readonly model: string;
  /** Provider name used in errors: `"anthropic"`. */
  readonly provider = PROVIDER;
  readonly #options: AnthropicChatOptions;
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  #loaded: Promise<{ client: Anthropic; classes: SdkErrorClasses }> | null = null;

  constructor(options: AnthropicChatOptions) {
    if (typeof options?.model !== "string" || options.model === "")
      throw new TypeError(
        "AnthropicChat needs a model name: new AnthropicChat({ model: 'claude-sonnet-4-6' })",
      );
    const maxTokens = options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
    if (!Number.isInteger(maxTokens) || maxTokens < 1)
      throw new RangeError(`maxTokens must be a whole number >= 1, got ${maxTokens}`);
    this.model = options.model;
    this.#options = options;
    this.#policy = retryPolicy(options);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  #load(): Promise<{ client: Anthropic; classes: SdkErrorClasses }> {
    this.#loaded ??= (async () => {
      const mod = await loadPeer<AnthropicModule>(
        "@anthropic-ai/sdk",
        "AnthropicChat",
        PROVIDER,
        () => import("@anthropic-ai/sdk"),
      );
      const classes: SdkErrorClasses = mod;
      if (this.#options.client) return { client: this.#options.client, classes };
      const client = new mod.Anthropic({
        ...(this.#options.apiKey !== undefined ? { apiKey: this.#options.apiKey } : {}),
        ...(this.#options.baseURL !== undefined ? { baseURL: this.#options.baseURL } : {}),
        maxRetries: 0,
      });
      return { client, classes };
    })();
    this.#loaded.catch(() => {
      this.#loaded = null;
    });
    return this.#loaded;
  }

  /** The Messages API request body for `request` (without `stream`). Exposed for tests and debugging. */
  toRequestBody(request: ChatRequest): MessageCreateParamsBase {
    const auto = this.#options.cache === "auto";
    const { system, messages } = toAnthropicMessages(request.messages, auto);
    const body: MessageCreateParamsBase = {
      model: this.model,
      max_tokens: this.#options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
      messages,
    };
    if (system !== null) body.system = system;
    if (request.tools.length > 0) {
      body.tools = request.tools.map(
        (t): Tool => ({
          name: t.name,
          description: t.description,
          input_schema: { type: "object", ...t.inputSchema } as Tool.InputSchema,
        }),
      );
      if (auto) body.tools.at(-1)!.cache_control = { type: "ephemeral" };
      if (request.toolChoice !== null) body.tool_choice = toToolChoice(request.toolChoice);
    }
    const r = request.reasoning;
    if (r != null) {
      if (!("budgetTokens" in r))
        throw new ValueError(
          `AnthropicChat: reasoning { effort: "${r.effort}" } has no Anthropic setting; use reasoning { budgetTokens } (at least 1024, below maxTokens)`,
        );
      body.thinking = { type: "enabled", budget_tokens: r.budgetTokens };
    }
    if (request.outputSchema !== null)
      body.output_config = { format: { type: "json_schema", schema: request.outputSchema } };
    return { ...body, ...(this.#options.extraBody ?? {}) } as MessageCreateParamsBase;
  }

  /**
   * Send `request` and return the whole response.
   * @throws ModelProviderError, RunCancelledError (see the class).
   */
  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const { client, classes } = await this.#load();
    const body = this.toRequestBody(request);
    const message = await withRetries(
      async () => {
        const control = new CallControl(this.#timeoutMs, options.signal);
        try {
          return await client.messages.create(
            { ...body, stream: false },
            { signal: control.signal, maxRetries: 0, timeout: this.#timeoutMs },
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
    return fromMessage(message);
  }

  /**
   * Send `request` and yield the response as it is generated: usage from `message_start`,
   * text and tool-call deltas, then the finish reason and output usage from `message_delta`.
   * @throws ModelProviderError, RunCancelledError (see the class); a stream that ends before
   *   `message_stop` is a retryable `ModelProviderError`.
   */
  async *stream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatStreamChunk> {
    const { client, classes } = await this.#load();
    const body = this.toRequestBody(request);
    let control: CallControl | null = null;
    const stream = await withRetries(
      async () => {
        const attempt = new CallControl(this.#timeoutMs, options.signal);
        try {
          const s = await client.messages.create(
            { ...body, stream: true },
            { signal: attempt.signal, maxRetries: 0, timeout: this.#timeoutMs },
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
    const state = streamState();
    try {
      for await (const event of stream) {
        ctl.pause(); // the time-out runs only while waiting for the provider
        yield* fromEvent(event, state);
        ctl.arm();
      }
    } catch (e) {
      throw mapSdkError(e, { provider: PROVIDER, label: LABEL, control: ctl, classes });
    } finally {
      ctl.dispose();
    }
    const stop = ctl.stopError(PROVIDER);
    if (stop) throw stop;
    if (!state.stopped)
      throw new ModelProviderError("The Anthropic stream broke off: it ended before message_stop", {
        provider: PROVIDER,
        retryable: true,
      });
  }
}

function toToolChoice(choice: string): AnthropicToolChoice {
  if (choice === "auto") return { type: "auto" };
  if (choice === "required") return { type: "any" };
  if (choice === "none") return { type: "none" };
  return { type: "tool", name: choice };
}
