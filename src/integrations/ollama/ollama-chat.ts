/**
 * `OllamaChat`: the {@link Chat} interface over Ollama's `/api/chat`, through the `ollama`
 * package (an optional peer dependency, loaded on first use).
 *
 * @module
 */
import type {
  ChatRequest as OllamaChatRequest,
  ChatResponse as OllamaChatResponse,
  Message as OllamaMessage,
  Options as OllamaModelOptions,
  Tool as OllamaTool,
} from "ollama";
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
  isRetryableStatus,
  loadPeer,
  messageOf,
  type ProviderCallOptions,
  parseRetryAfter,
  type RetryPolicy,
  retryPolicy,
  setRetryAfter,
  withRetries,
} from "../internal/call.js";
import { num, textOnly, usageOf } from "../internal/parts.js";

const PROVIDER = "ollama";
const LABEL = "Ollama";

/** Options of {@link OllamaChat}. Only `model` is required. */
export interface OllamaChatOptions extends ProviderCallOptions {
  /** Model name, such as `"llama3.2"`; sent as `model`. */
  model: string;
  /** Ollama server, such as `"http://127.0.0.1:11434"`; defaults as the `ollama` package does (`OLLAMA_HOST` is not read). */
  host?: string;
  /** Extra HTTP headers of every request (for example `Authorization` for a proxy or ollama.com). */
  headers?: Record<string, string>;
  /** The `fetch` to use; default the global one. */
  fetch?: typeof fetch;
  /** Model options sent as `options` (`temperature`, `num_ctx`, `seed`, …). */
  options?: Partial<OllamaModelOptions>;
  /** How long the model stays loaded after the call, sent as `keep_alive` (`"5m"`, or seconds). */
  keepAlive?: string | number;
  /** More request fields, merged into every request body last (for example `{ think: false }`). */
  extraBody?: JsonObject;
}

type OllamaModule = typeof import("ollama");
type OllamaClient = InstanceType<OllamaModule["Ollama"]>;

/**
 * A chat model on a local or remote Ollama server (`POST /api/chat`, NDJSON when streaming).
 *
 * Maps a {@link ChatRequest}: messages with roles `system`/`user`/`assistant`/`tool` (tool
 * calls as `tool_calls` with parsed arguments, tool results with `tool_name`); tools as
 * function tools; `outputSchema` as `format` (a JSON schema). Ollama has no tool choice:
 * `"none"` sends no tools, a tool name sends only that tool, `"auto"` and `"required"` send
 * all of them (the model is not forced).
 *
 * Ollama gives tool calls no ids, so each call gets `call_<8 hex>_<n>`: one random prefix per
 * response, `n` counting the calls of the response from 0 (an id the server does send is kept).
 * `finishReason` is `"tool_calls"` when the response calls tools, else Ollama's `done_reason`.
 * `usage` holds Ollama's counts (`prompt_eval_count`, `eval_count`) and durations (ns).
 *
 * @throws ModelProviderError from `complete`/`stream` when the `ollama` package is missing
 *   (not retryable); on HTTP errors such as 404 for a model that is not pulled (with
 *   `status`; 408, 429, 5xx retryable); when the server cannot be reached, times out, reports
 *   an error in the stream or the stream breaks off (retryable).
 * @throws RunCancelledError when `options.signal` fires.
 * @example
 * ```ts
 * import { OllamaChat } from "nodestep/ollama";
 * const chat = new OllamaChat({ model: "llama3.2", host: "http://127.0.0.1:11434" });
 * ```
 */
export class OllamaChat implements Chat {
  /** Model name sent with every request. */
  readonly model: string;
  /** Provider name used in errors: `"ollama"`. */
  readonly provider = PROVIDER;
  readonly #options: OllamaChatOptions;
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  #module: Promise<OllamaModule> | null = null;

  constructor(options: OllamaChatOptions) {
    if (typeof options?.model !== "string" || options.model === "")
      throw new TypeError("OllamaChat needs a model name: new OllamaChat({ model: 'llama3.2' })");
    this.model = options.model;
    this.#options = options;
    this.#policy = retryPolicy(options);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  #load(): Promise<OllamaModule> {
    this.#module ??= loadPeer<OllamaModule>(
      "ollama",
      "OllamaChat",
      PROVIDER,
      () => import("ollama"),
    );
    this.#module.catch(() => {
      this.#module = null;
    });
    return this.#module;
  }

  /** A client whose requests follow `control` and record the `retry-after` of failed answers. */
  #client(
    mod: OllamaModule,
    control: CallControl,
    seen: { retryAfterMs: number | null },
  ): OllamaClient {
    const base = this.#options.fetch ?? globalThis.fetch;
    const fetchWith: typeof fetch = async (input, init) => {
      const signal = init?.signal ? AbortSignal.any([init.signal, control.signal]) : control.signal;
      const response = await base(input, { ...init, signal });
      if (!response.ok) seen.retryAfterMs = parseRetryAfter((n) => response.headers.get(n));
      return response;
    };
    return new mod.Ollama({
      ...(this.#options.host !== undefined ? { host: this.#options.host } : {}),
      ...(this.#options.headers !== undefined ? { headers: this.#options.headers } : {}),
      fetch: fetchWith,
    });
  }

  /** The `/api/chat` request body for `request` (without `stream`). Exposed for tests and debugging. */
  toRequestBody(request: ChatRequest): OllamaChatRequest {
    const body: OllamaChatRequest = {
      model: this.model,
      messages: request.messages.map(toOllamaMessage),
    };
    const tools =
      request.toolChoice === "none"
        ? []
        : request.toolChoice === null || ["auto", "required"].includes(request.toolChoice)
          ? request.tools
          : request.tools.filter((t) => t.name === request.toolChoice);
    if (tools.length > 0)
      body.tools = tools.map(
        (t) =>
          ({
            type: "function",
            function: { name: t.name, description: t.description, parameters: t.inputSchema },
          }) as OllamaTool,
      );
    if (request.outputSchema !== null) body.format = request.outputSchema;
    if (this.#options.options !== undefined) body.options = this.#options.options;
    if (this.#options.keepAlive !== undefined) body.keep_alive = this.#options.keepAlive;
    return { ...body, ...(this.#options.extraBody ?? {}) } as OllamaChatRequest;
  }

  #mapError(
    e: unknown,
    control: CallControl,
    seen: { retryAfterMs: number | null },
    phase: "connect" | "stream",
  ): Error {
    if (e instanceof ModelProviderError) return e;
    const stop = control.stopError(PROVIDER, e);
    if (stop) return stop;
    const status = (e as { status_code?: unknown } | null)?.status_code;
    if (typeof status === "number") {
      const error = new ModelProviderError(`Ollama answered HTTP ${status}: ${messageOf(e)}`, {
        provider: PROVIDER,
        status,
        retryable: isRetryableStatus(status),
        cause: e,
      });
      setRetryAfter(error, seen.retryAfterMs);
      return error;
    }
    const cause = (e as { cause?: unknown } | null)?.cause;
    const detail = cause instanceof Error && cause.message ? ` (${cause.message})` : "";
    if (phase === "connect" && e instanceof TypeError)
      return new ModelProviderError(
        `Could not reach Ollama at ${this.#options.host ?? "the default host"}: ${messageOf(e)}${detail}. Is \`ollama serve\` running?`,
        { provider: PROVIDER, retryable: true, cause: e },
      );
    if (e instanceof TypeError || /Did not receive done/.test(messageOf(e)))
      return new ModelProviderError(`The Ollama stream broke off: ${messageOf(e)}${detail}`, {
        provider: PROVIDER,
        retryable: true,
        cause: e,
      });
    return new ModelProviderError(`Ollama reported an error: ${messageOf(e)}`, {
      provider: PROVIDER,
      retryable: phase === "stream",
      cause: e,
    });
  }

  /**
   * Send `request` and return the whole response.
   * @throws ModelProviderError, RunCancelledError (see the class).
   */
  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const mod = await this.#load();
    const body = this.toRequestBody(request);
    const answer = await withRetries(
      async () => {
        const control = new CallControl(this.#timeoutMs, options.signal);
        const seen = { retryAfterMs: null as number | null };
        try {
          return await this.#client(mod, control, seen).chat({ ...body, stream: false });
        } catch (e) {
          throw this.#mapError(e, control, seen, "connect");
        } finally {
          control.dispose();
        }
      },
      this.#policy,
      options.signal,
    );
    const ids = idMaker();
    const toolCalls = (answer.message?.tool_calls ?? []).map((c) => toToolCall(c, ids));
    return {
      content: answer.message?.content ? answer.message.content : null,
      refusal: null,
      toolCalls,
      reasoning: [],
      finishReason: toolCalls.length > 0 ? "tool_calls" : (answer.done_reason ?? "stop"),
      usage: ollamaUsage(answer),
      model: answer.model ?? null,
      raw: answer,
    };
  }

  /**
   * Send `request` and yield the response line by line: content deltas, each tool call whole
   * as one delta, then the finish reason and usage from the final (`done`) line.
   * @throws ModelProviderError, RunCancelledError (see the class).
   */
  async *stream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatStreamChunk> {
    const mod = await this.#load();
    const body = this.toRequestBody(request);
    let control: CallControl | null = null;
    const seen = { retryAfterMs: null as number | null };
    const lines = await withRetries(
      async () => {
        const attempt = new CallControl(this.#timeoutMs, options.signal);
        try {
          const it = await this.#client(mod, attempt, seen).chat({ ...body, stream: true });
          control = attempt;
          return it;
        } catch (e) {
          attempt.dispose();
          throw this.#mapError(e, attempt, seen, "connect");
        }
      },
      this.#policy,
      options.signal,
    );
    const ctl = control as unknown as CallControl;
    const ids = idMaker();
    let calls = 0;
    let done = false;
    try {
      for await (const part of lines) {
        ctl.pause(); // the time-out runs only while waiting for the provider
        const model = part.model ?? null;
        if (part.message?.content) yield { contentDelta: part.message.content, model, raw: part };
        for (const call of part.message?.tool_calls ?? []) {
          const { id, name, argumentsText } = wireCall(call, ids);
          yield {
            toolCallDelta: { index: calls++, id, name, arguments: argumentsText },
            model,
            raw: part,
          };
        }
        if (part.done) {
          done = true;
          yield {
            finishReason: calls > 0 ? "tool_calls" : (part.done_reason ?? "stop"),
            model,
            raw: part,
          };
          yield { usage: ollamaUsage(part), model, raw: part };
        }
        ctl.arm();
      }
    } catch (e) {
      throw this.#mapError(e, ctl, seen, "stream");
    } finally {
      ctl.dispose();
    }
    const stop = ctl.stopError(PROVIDER);
    if (stop) throw stop;
    if (!done)
      throw new ModelProviderError("The Ollama stream broke off: it ended before the final line", {
        provider: PROVIDER,
        retryable: true,
      });
  }
}

function toOllamaMessage(message: Message): OllamaMessage {
  switch (message.type) {
    case "system":
      return { role: "system", content: textOnly(message.content, PROVIDER, LABEL, "content") };
    case "human":
      return { role: "user", content: textOnly(message.content, PROVIDER, LABEL, "content") };
    case "ai": {
      const out: OllamaMessage = {
        role: "assistant",
        content: textOnly(message.content, PROVIDER, LABEL, "content"),
      };
      if (message.toolCalls.length > 0)
        out.tool_calls = message.toolCalls.map((c) => ({
          function: { name: c.name, arguments: c.arguments },
        }));
      return out;
    }
    case "tool": {
      const out: OllamaMessage = {
        role: "tool",
        content: textOnly(message.content, PROVIDER, LABEL, "content"),
      };
      if (message.name !== null) out.tool_name = message.name;
      return out;
    }
  }
}

/** Makes the ids of one response: `call_<prefix>_<n>`. */
function idMaker(): () => string {
  const prefix = globalThis.crypto.randomUUID().replace(/-/g, "").slice(0, 8);
  let n = 0;
  return () => `call_${prefix}_${n++}`;
}

type WireToolCall = NonNullable<OllamaMessage["tool_calls"]>[number];

function wireCall(call: WireToolCall, nextId: () => string) {
  const given = (call as { id?: unknown }).id;
  const id = typeof given === "string" && given !== "" ? given : nextId();
  const args: unknown = call.function?.arguments;
  const argumentsText = typeof args === "string" ? args : JSON.stringify(args ?? {});
  return { id, name: call.function?.name ?? "", argumentsText };
}

function toToolCall(call: WireToolCall, nextId: () => string): ToolCall {
  const { id, name, argumentsText } = wireCall(call, nextId);
  return ToolCall.fromArgumentsJson(id, name, argumentsText);
}

const USAGE_FIELDS = [
  "prompt_eval_count",
  "eval_count",
  "total_duration",
  "load_duration",
  "prompt_eval_duration",
  "eval_duration",
] as const;

/**
 * Ollama's counts in the one usage shape: `prompt_eval_count` → `inputTokens`, `eval_count`
 * → `outputTokens`, their sum → `totalTokens`; the counts and durations (ns) under `raw`.
 */
function ollamaUsage(answer: Partial<OllamaChatResponse>): Usage {
  const raw: JsonObject = {};
  for (const key of USAGE_FIELDS) {
    const value = answer[key];
    if (typeof value === "number") raw[key] = value;
  }
  return usageOf({
    inputTokens: num(answer.prompt_eval_count),
    outputTokens: num(answer.eval_count),
    raw,
  });
}
