/**
 * Errors of chat models: an invalid history, unparseable structured output, provider failures,
 * an unknown model string.
 */

import { NodestepError, type NodestepErrorOptions } from "./base.js";

/** The message history is not valid for a model call: a tool call without its result right after it, or a result that answers no call. */
export class ChatHistoryError extends NodestepError {
  /** Node that found the problem. */
  readonly node: string | undefined;
  /** Index in the messages of the message at fault. */
  readonly index: number | undefined;
  constructor(message: string, options?: NodestepErrorOptions & { node?: string; index?: number }) {
    super(message, options);
    this.node = options?.node;
    this.index = options?.index;
  }
}

/**
 * New input was refused on a thread whose messages end in an `AIMessage` with tool calls that
 * have no results (a pending approval in the tool step, or a stopped tool turn): the input
 * would follow the unanswered calls and the next model call would fail. Nothing of the run
 * was written (but a rollback its `onBusy: "rollback"` did first, which stays and which the
 * message names): answer the pending interrupts, continue with `invoke(null, { threadId })`,
 * or fork the thread. Raised by `buildReactAgent`'s `checkInput`; a `ChatHistoryError`.
 */
export class PendingToolCallsError extends ChatHistoryError {
  readonly threadId: string;
  readonly branchId: string;
  /** Ids of the tool calls without a result, in the order of the `AIMessage`. */
  readonly callIds: readonly string[];
  /** Keys of the interrupts the thread waits on (empty after a stopped tool turn). */
  readonly interruptKeys: readonly string[];
  /**
   * The id of the event to fork the thread at to send the input on a branch: the one before
   * the model's request (the branch keeps the human message that led to it); `null` when the
   * log has none.
   */
  readonly forkAt: string | null;
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      threadId: string;
      branchId: string;
      index: number;
      callIds: readonly string[];
      interruptKeys: readonly string[];
      forkAt?: string | null;
    },
  ) {
    super(message, options);
    this.threadId = options.threadId;
    this.branchId = options.branchId;
    this.callIds = options.callIds;
    this.interruptKeys = options.interruptKeys;
    this.forkAt = options.forkAt ?? null;
  }
}

/** The model's final answer does not parse into the `outputSchema`. */
export class StructuredOutputError extends NodestepError {
  readonly schemaName: string;
  readonly rawContent: string | null;
  constructor(
    message: string,
    options: NodestepErrorOptions & { schemaName: string; rawContent: string | null },
  ) {
    super(message, options);
    this.schemaName = options.schemaName;
    this.rawContent = options.rawContent;
  }
}

/** A chat model provider failed: authentication, rate limit, server error, time-out, a broken stream, or a malformed streamed tool call. */
export class ModelProviderError extends NodestepError {
  /** Provider name such as `"openai"`, `"anthropic"`, `"ollama"`, `"scripted"`. */
  readonly provider: string;
  /** HTTP status, when the provider answered with one. */
  readonly status: number | undefined;
  /** Whether trying the same call again can help (rate limits, server errors, time-outs). */
  readonly retryable: boolean;
  /** How long the provider asked to wait before a retry (its `Retry-After` header), in ms, when it said. */
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      provider: string;
      status?: number;
      retryable?: boolean;
      retryAfterMs?: number;
    },
  ) {
    super(message, options);
    this.provider = options.provider;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * A message holds a part the chat integration cannot send (audio to Anthropic, a file to
 * Ollama…): it is never dropped silently. `partType` is the part's `type`, `path` where it is
 * in the request (`messages[2].content[1]`).
 */
export class UnsupportedPartError extends ModelProviderError {
  readonly partType: string;
  readonly path: string;
  constructor(
    message: string,
    options: NodestepErrorOptions & { provider: string; partType: string; path: string },
  ) {
    super(message, { ...options, retryable: false });
    this.partType = options.partType;
    this.path = options.path;
  }
}

/**
 * Every model of a `fallbackChat` failed with an error it moves on for. `attempts` lists each
 * model and its error, in order; `status` and `retryable` are the last error's.
 */
export class FallbackExhaustedError extends ModelProviderError {
  readonly attempts: readonly { model: string; error: unknown }[];
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      attempts: readonly { model: string; error: unknown }[];
      status?: number;
      retryable?: boolean;
    },
  ) {
    super(message, { ...options, provider: "fallback" });
    this.attempts = options.attempts;
  }
}

/**
 * A model string given to `chatModel` cannot be made into a chat model: it is not
 * `provider:model`, the provider is unknown, or its package is not installed. The message is
 * one line saying what to do (`npm install @ai-sdk/mistral`, `registerProvider(...)`).
 */
export class ModelSpecError extends NodestepError {
  /** The model string, as given. */
  readonly spec: string;
  constructor(message: string, options: NodestepErrorOptions & { spec: string }) {
    super(message, options);
    this.spec = options.spec;
  }
}

/**
 * A run asks for a model (by name, `model` of a server run) that the process running it does
 * not offer: a `nodestep worker` started without that name in `--models`. `choices` are the
 * names it offers (the current model first). The server answers it with status 400.
 * @example new UnknownModelError('worker: run "r1" asks for model "m-9"…', { model: "m-9", choices: ["m-1"] })
 */
export class UnknownModelError extends NodestepError {
  /** The model name the run asked for. */
  readonly model: string;
  /** The names that would have been accepted. */
  readonly choices: readonly string[];
  constructor(
    message: string,
    options: NodestepErrorOptions & { model: string; choices: readonly string[] },
  ) {
    super(message, options);
    this.model = options.model;
    this.choices = options.choices;
  }
}
