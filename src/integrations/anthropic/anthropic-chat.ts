/**
 * `AnthropicChat`: the {@link Chat} interface over Anthropic's Messages API, through the
 * official `@anthropic-ai/sdk` package (an optional peer dependency, loaded on first use).
 *
 * @module
 */
import type Anthropic from "@anthropic-ai/sdk";
import type {
  Message as AnthropicMessage,
  ToolChoice as AnthropicToolChoice,
  ContentBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  RawMessageStreamEvent,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import type { Message } from "../../chat/messages.js";
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

const PROVIDER = "anthropic";
const LABEL = "Anthropic";

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
    const { system, messages } = toAnthropicMessages(request.messages);
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
      if (request.toolChoice !== null) body.tool_choice = toToolChoice(request.toolChoice);
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
    const state: StreamState = { model: null, toolIndex: new Map(), stopped: false, usage: {} };
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

/**
 * Messages for the Messages API: system messages gathered into `system`; the others as
 * alternating turns, consecutive user-side messages (human text and tool results) merged.
 */
function toAnthropicMessages(list: readonly Message[]): {
  system: string | null;
  messages: MessageParam[];
} {
  const system: string[] = [];
  const messages: MessageParam[] = [];
  const push = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of list) {
    switch (m.type) {
      case "system":
        if (m.content) system.push(textOnly(m.content, PROVIDER, LABEL, "content"));
        break;
      case "human":
        push("user", [{ type: "text", text: textOnly(m.content, PROVIDER, LABEL, "content") }]);
        break;
      case "ai": {
        const blocks: ContentBlockParam[] = [];
        if (m.content)
          blocks.push({ type: "text", text: textOnly(m.content, PROVIDER, LABEL, "content") });
        for (const c of m.toolCalls)
          blocks.push({ type: "tool_use", id: c.id, name: c.name, input: c.arguments });
        push("assistant", blocks);
        break;
      }
      case "tool":
        push("user", [
          {
            type: "tool_result",
            tool_use_id: m.toolCallId ?? "",
            content: textOnly(m.content, PROVIDER, LABEL, "content"),
          },
        ]);
        break;
    }
  }
  // A lone text block is sent in the plain string form.
  for (const m of messages) {
    const [only, ...rest] = m.content as ContentBlockParam[];
    if (rest.length === 0 && only?.type === "text") m.content = only.text;
  }
  return { system: system.length > 0 ? system.join("\n\n") : null, messages };
}

function toToolChoice(choice: string): AnthropicToolChoice {
  if (choice === "auto") return { type: "auto" };
  if (choice === "required") return { type: "any" };
  if (choice === "none") return { type: "none" };
  return { type: "tool", name: choice };
}

/** `stop_reason` as a finish reason: `end_turn`/`stop_sequence` → `"stop"`, `tool_use` → `"tool_calls"`, `max_tokens` → `"length"`, others kept. */
export function anthropicFinishReason(stopReason: string | null | undefined): string | null {
  switch (stopReason) {
    case null:
    case undefined:
      return null;
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
      return "length";
    default:
      return stopReason;
  }
}

function refusalText(details: { explanation?: string | null } | null | undefined): string {
  return details?.explanation ?? "The model declined to answer.";
}

function fromMessage(message: AnthropicMessage): ChatResponse {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of message.content ?? []) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "tool_use")
      toolCalls.push(
        ToolCall.fromArgumentsJson(block.id, block.name, JSON.stringify(block.input ?? {})),
      );
  }
  return {
    content: texts.length > 0 ? texts.join("") : null,
    refusal: message.stop_reason === "refusal" ? refusalText(message.stop_details) : null,
    toolCalls,
    reasoning: [],
    finishReason: anthropicFinishReason(message.stop_reason),
    usage: anthropicUsage(message.usage),
    model: message.model ?? null,
    raw: message,
  };
}

interface StreamState {
  model: string | null;
  /** Content-block index → tool-call index (0, 1, … in order of the tool_use blocks). */
  toolIndex: Map<number, number>;
  stopped: boolean;
  /** Usage fields so far: `message_start`'s, then `message_delta`'s over them. */
  usage: JsonObject;
}

function* fromEvent(event: RawMessageStreamEvent, state: StreamState): Generator<ChatStreamChunk> {
  switch (event.type) {
    case "message_start":
      state.model = event.message.model ?? null;
      state.usage = jsonUsage(event.message.usage, true);
      yield { usage: anthropicUsage(state.usage), model: state.model, raw: event };
      return;
    case "content_block_start": {
      const block = event.content_block;
      if (block.type === "text" && block.text)
        yield { contentDelta: block.text, model: state.model, raw: event };
      else if (block.type === "tool_use") {
        const index = state.toolIndex.size;
        state.toolIndex.set(event.index, index);
        const input = block.input;
        const initial =
          input && typeof input === "object" && Object.keys(input).length > 0
            ? JSON.stringify(input)
            : "";
        yield {
          toolCallDelta: { index, id: block.id, name: block.name, arguments: initial },
          model: state.model,
          raw: event,
        };
      }
      return;
    }
    case "content_block_delta": {
      const delta = event.delta;
      if (delta.type === "text_delta" && delta.text)
        yield { contentDelta: delta.text, model: state.model, raw: event };
      else if (delta.type === "input_json_delta") {
        const index = state.toolIndex.get(event.index);
        if (index !== undefined && delta.partial_json)
          yield {
            toolCallDelta: { index, arguments: delta.partial_json },
            model: state.model,
            raw: event,
          };
      }
      return;
    }
    case "message_delta": {
      const reason = event.delta.stop_reason;
      if (reason === "refusal")
        yield {
          refusalDelta: refusalText(event.delta.stop_details),
          model: state.model,
          raw: event,
        };
      if (reason)
        yield { finishReason: anthropicFinishReason(reason), model: state.model, raw: event };
      if (event.usage) state.usage = { ...state.usage, ...jsonUsage(event.usage, true) };
      if (event.usage) yield { usage: anthropicUsage(state.usage), model: state.model, raw: event };
      return;
    }
    case "message_stop":
      state.stopped = true;
      return;
    default:
      return;
  }
}

/**
 * Anthropic usage in the one shape. Anthropic's `input_tokens` leaves out the cached ones, so
 * `inputTokens` is `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`;
 * `cachedInputTokens` is `cache_read_input_tokens`; `outputTokens` is `output_tokens`
 * (thinking included; Anthropic does not count reasoning apart); the object as sent under `raw`.
 */
export function anthropicUsage(usage: unknown): Usage {
  if (usage === null || typeof usage !== "object") return {};
  const u = usage as Record<string, unknown>;
  const input = num(u.input_tokens);
  const read = num(u.cache_read_input_tokens);
  const written = num(u.cache_creation_input_tokens);
  return usageOf({
    inputTokens: input === undefined ? undefined : input + (read ?? 0) + (written ?? 0),
    outputTokens: num(u.output_tokens),
    cachedInputTokens: read,
    raw: jsonUsage(usage),
  });
}
