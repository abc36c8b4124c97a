import { ModelProviderError, RunCancelledError } from "../errors/index.js";
import { checkScriptedResponse } from "./scripted-check.js";
import { ToolCall } from "./tool-call.js";
import {
  type Chat,
  type ChatCallOptions,
  type ChatRequest,
  ChatResponse,
  type ChatResponseInit,
  type ChatStreamChunk,
} from "./types.js";

/**
 * One scripted reply: a response (fields may be left out), a plain string (a text answer),
 * an `Error` to throw from the call, or a function of the request that returns one of those.
 */
export type ScriptedResponse =
  | ChatResponseInit
  | string
  | Error
  | ((request: ChatRequest) => ChatResponseInit | string | Error);

/**
 * A chat model for tests: it returns the given responses in order and records every request, with no network.
 *
 * `stream()` yields the same response as chunks: each reasoning part as one delta, the text
 * word by word (a non-text content part as one `contentPart` chunk in its place), each tool
 * call as one delta, then a final chunk with the finish reason and usage. Content parts
 * stream back as parts: text pieces between non-text parts are joined into one text part.
 *
 * @example
 * ```ts
 * const chat = new ScriptedChat([
 *   { toolCalls: [{ id: "call_1", name: "get_order_status", arguments: { orderId: "A-1001" } }] },
 *   "Order A-1001 has shipped.",
 * ]);
 * ```
 * @throws TypeError from the constructor (or, for a function's result, from the call) for a
 *   malformed response, naming it and the field: an unknown field, `content` that is not a
 *   string, a tool call without a string `id` or `name`, `arguments` that are not an object or
 *   nest deeper than `MAX_JSON_DEPTH`.
 * @throws ModelProviderError from `complete`/`stream` when a call comes after the last response.
 */
export class ScriptedChat implements Chat {
  /** Model name; `"scripted"` unless given. */
  readonly model: string;
  /** Every request received, in order. */
  readonly requests: ChatRequest[] = [];
  readonly #responses: readonly ScriptedResponse[];

  constructor(responses: readonly ScriptedResponse[], options: { model?: string } = {}) {
    if (!Array.isArray(responses)) throw new TypeError("ScriptedChat takes an array of responses");
    responses.forEach((r, i) => {
      const ok =
        typeof r === "string" ||
        typeof r === "function" ||
        r instanceof Error ||
        (r !== null &&
          typeof r === "object" &&
          !Array.isArray(r) &&
          (r.toolCalls === undefined || Array.isArray(r.toolCalls)));
      if (!ok) {
        throw new TypeError(
          `ScriptedChat: response ${i} must be a ChatResponse object (toolCalls an array), a string, an Error or a function, got ${r === null ? "null" : Array.isArray(r) ? "an array" : typeof r}`,
        );
      }
      if (typeof r === "object" && !(r instanceof Error)) checkScriptedResponse(r, `response ${i}`);
    });
    this.#responses = responses;
    this.model = options.model ?? "scripted";
  }

  /** How many responses have not been used yet. */
  get remaining(): number {
    return this.#responses.length - this.requests.length;
  }

  #next(request: ChatRequest, signal: AbortSignal | undefined): ChatResponse {
    if (signal?.aborted)
      throw new RunCancelledError("The model call was cancelled", { cause: signal.reason });
    const index = this.requests.length;
    this.requests.push(request);
    const entry = this.#responses[index];
    if (entry === undefined) {
      throw new ModelProviderError(
        `ScriptedChat has no response for request ${index + 1}: it was given ${this.#responses.length} response${this.#responses.length === 1 ? "" : "s"}. Add a response for every model call the run makes.`,
        { provider: "scripted", retryable: false },
      );
    }
    const value = typeof entry === "function" ? entry(request) : entry;
    if (
      typeof value !== "string" &&
      !(value instanceof Error) &&
      (value === null || typeof value !== "object" || Array.isArray(value))
    ) {
      throw new TypeError(
        `ScriptedChat: the function of response ${index} returned ${value === null ? "null" : typeof value}, not a response, a string or an Error`,
      );
    }
    if (value instanceof Error) throw value;
    if (typeof value === "object") checkScriptedResponse(value, `response ${index}`);
    const response = ChatResponse(typeof value === "string" ? { content: value } : value);
    if (response.finishReason === null)
      response.finishReason = response.toolCalls.length > 0 ? "tool_calls" : "stop";
    if (response.model === null) response.model = this.model;
    return response;
  }

  /** Return the next scripted response. */
  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    return this.#next(request, options.signal);
  }

  /** Yield the next scripted response as chunks. */
  async *stream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatStreamChunk> {
    const response = this.#next(request, options.signal);
    const check = () => {
      if (options.signal?.aborted)
        throw new RunCancelledError("The model stream was cancelled", {
          cause: options.signal.reason,
        });
    };
    let index = 0;
    for (const part of response.reasoning) {
      check();
      yield {
        reasoningDelta: {
          index: index++,
          text: part.text,
          provider: part.provider,
          data: part.data,
        },
        model: response.model,
      };
    }
    const content = response.content;
    for (const part of typeof content === "string"
      ? [{ type: "text" as const, text: content }]
      : (content ?? [])) {
      if (part.type !== "text") {
        check();
        yield { contentPart: part, model: response.model };
        continue;
      }
      for (const piece of part.text.match(/\S+\s*|\s+/g) ?? []) {
        check();
        yield { contentDelta: piece, model: response.model };
      }
    }
    if (response.refusal) {
      check();
      yield { refusalDelta: response.refusal, model: response.model };
    }
    index = 0;
    for (const call of response.toolCalls) {
      check();
      yield {
        toolCallDelta: {
          index: index++,
          id: call.id,
          name: call.name,
          arguments: ToolCall.argumentsJson(call),
        },
        model: response.model,
      };
    }
    check();
    yield { finishReason: response.finishReason, usage: response.usage, model: response.model };
  }
}
