/**
 * `OpenAIChat`: the {@link Chat} interface over OpenAI's Chat Completions API, through the
 * official `openai` package (an optional peer dependency, loaded on first use).
 *
 * @module
 */
import type OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionAssistantMessageParam,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import type { Usage } from "../../chat/parts.js";
import { ToolCall } from "../../chat/tool-call.js";
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
  jsonUsage,
  loadPeer,
  type ProviderCallOptions,
  type RetryPolicy,
  retryPolicy,
  withRetries,
} from "../internal/call.js";
import { num, textOnly, usageOf } from "../internal/parts.js";
import { mapSdkError, type SdkErrorClasses } from "../internal/sdk-errors.js";

const PROVIDER = "openai";
const LABEL = "OpenAI";

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
  readonly #options: OpenAIChatOptions;
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  #loaded: Promise<{ client: OpenAI; classes: SdkErrorClasses | null }> | null = null;

  constructor(options: OpenAIChatOptions) {
    if (typeof options?.model !== "string" || options.model === "")
      throw new TypeError(
        "OpenAIChat needs a model name: new OpenAIChat({ model: 'gpt-4o-mini' })",
      );
    this.model = options.model;
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

  /** The Chat Completions request body for `request` (without `stream`). Exposed for tests and debugging. */
  toRequestBody(request: ChatRequest): ChatCompletionCreateParamsBase {
    const body: ChatCompletionCreateParamsBase = {
      model: this.model,
      messages: request.messages.map(toOpenAIMessage),
    };
    if (request.tools.length > 0) {
      body.tools = request.tools.map(
        (t): ChatCompletionTool => ({
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.inputSchema },
        }),
      );
      if (request.toolChoice !== null) body.tool_choice = toToolChoice(request.toolChoice);
    }
    if (request.outputSchema !== null) {
      body.response_format = {
        type: "json_schema",
        json_schema: {
          name: schemaName(request.outputSchema),
          schema: request.outputSchema,
          strict: true,
        },
      };
    }
    if (this.#options.temperature !== undefined) body.temperature = this.#options.temperature;
    if (this.#options.maxTokens !== undefined) body.max_completion_tokens = this.#options.maxTokens;
    return { ...body, ...(this.#options.extraBody ?? {}) } as ChatCompletionCreateParamsBase;
  }

  /**
   * Send `request` and return the whole response.
   * @throws ModelProviderError, RunCancelledError (see the class).
   */
  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const { client, classes } = await this.#load();
    const body = this.toRequestBody(request);
    const completion = await withRetries(
      async () => {
        const control = new CallControl(this.#timeoutMs, options.signal);
        try {
          return await client.chat.completions.create(
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
    return fromCompletion(completion);
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
    let control: CallControl | null = null;
    const stream = await withRetries(
      async () => {
        const attempt = new CallControl(this.#timeoutMs, options.signal);
        try {
          const s = await client.chat.completions.create(
            {
              ...body,
              stream: true,
              ...(this.#options.streamUsage === false
                ? {}
                : { stream_options: { include_usage: true } }),
            },
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
    let finished = false;
    try {
      for await (const chunk of stream) {
        ctl.pause(); // the time-out runs only while waiting for the provider
        for (const piece of fromChunk(chunk)) {
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

/** A chat message as the Chat Completions API takes it. */
function toOpenAIMessage(message: ChatRequest["messages"][number]): ChatCompletionMessageParam {
  switch (message.type) {
    case "system":
      return { role: "system", content: textOnly(message.content, PROVIDER, LABEL, "content") };
    case "human":
      return { role: "user", content: textOnly(message.content, PROVIDER, LABEL, "content") };
    case "ai": {
      const out: ChatCompletionAssistantMessageParam = {
        role: "assistant",
        content:
          message.content === null ? null : textOnly(message.content, PROVIDER, LABEL, "content"),
      };
      if (message.refusal !== null) out.refusal = message.refusal;
      if (message.toolCalls.length > 0) {
        out.tool_calls = message.toolCalls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.name, arguments: ToolCall.argumentsJson(c) },
        }));
      } else if (out.content === null && out.refusal === undefined) out.content = "";
      return out;
    }
    case "tool":
      return {
        role: "tool",
        tool_call_id: message.toolCallId ?? "",
        content: textOnly(message.content, PROVIDER, LABEL, "content"),
      };
  }
}

function toToolChoice(choice: string): ChatCompletionToolChoiceOption {
  if (choice === "auto" || choice === "required" || choice === "none") return choice;
  return { type: "function", function: { name: choice } };
}

/** The `json_schema.name` for an output schema: its `title` with characters OpenAI refuses replaced, else `"output"`. */
export function schemaName(schema: JsonObject): string {
  const title = typeof schema.title === "string" ? schema.title : "";
  const name = title.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return name === "" ? "output" : name;
}

function fromCompletion(completion: ChatCompletion): ChatResponse {
  const choice = completion.choices?.[0];
  if (!choice)
    throw new ModelProviderError("OpenAI answered with no choices", {
      provider: PROVIDER,
      retryable: false,
    });
  const message = choice.message;
  const toolCalls = (message.tool_calls ?? []).flatMap((c) =>
    c.type === "function"
      ? [ToolCall.fromArgumentsJson(c.id, c.function.name, c.function.arguments)]
      : [],
  );
  return {
    content: message.content ?? null,
    refusal: message.refusal ?? null,
    toolCalls,
    reasoning: [],
    finishReason: choice.finish_reason ?? null,
    usage: openaiUsage(completion.usage),
    model: completion.model ?? null,
    raw: completion,
  };
}

function fromChunk(chunk: ChatCompletionChunk): ChatStreamChunk[] {
  const out: ChatStreamChunk[] = [];
  const model = chunk.model ?? null;
  const choice = chunk.choices?.[0];
  const delta = choice?.delta;
  if (delta?.content) out.push({ contentDelta: delta.content, model, raw: chunk });
  if (delta?.refusal) out.push({ refusalDelta: delta.refusal, model, raw: chunk });
  for (const call of delta?.tool_calls ?? []) {
    out.push({
      toolCallDelta: {
        index: call.index,
        id: call.id ?? null,
        name: call.function?.name ?? null,
        arguments: call.function?.arguments ?? null,
      },
      model,
      raw: chunk,
    });
  }
  if (choice?.finish_reason) out.push({ finishReason: choice.finish_reason, model, raw: chunk });
  if (chunk.usage) out.push({ usage: openaiUsage(chunk.usage), model, raw: chunk });
  return out;
}

/**
 * Chat Completions usage in the one shape: `prompt_tokens` → `inputTokens`,
 * `completion_tokens` → `outputTokens`, `total_tokens` → `totalTokens`,
 * `prompt_tokens_details.cached_tokens` → `cachedInputTokens`,
 * `completion_tokens_details.reasoning_tokens` → `reasoningTokens`; the object as sent under `raw`.
 */
export function openaiUsage(usage: unknown): Usage {
  if (usage === null || typeof usage !== "object") return {};
  const u = usage as Record<string, unknown>;
  const details = (k: string, f: string) => num((u[k] as Record<string, unknown> | null)?.[f]);
  return usageOf({
    inputTokens: num(u.prompt_tokens),
    outputTokens: num(u.completion_tokens),
    totalTokens: num(u.total_tokens),
    cachedInputTokens: details("prompt_tokens_details", "cached_tokens"),
    reasoningTokens: details("completion_tokens_details", "reasoning_tokens"),
    raw: jsonUsage(usage),
  });
}
