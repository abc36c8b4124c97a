/**
 * `ModelRetryMiddleware`: call the model again after a provider failure, with exponential
 * back-off and jitter, within a number of attempts and a time budget.
 *
 * @module
 */
import type { ChatRequest, ChatResponse } from "../chat/types.js";
import { ModelProviderError, UnsupportedPartError, ValueError } from "../errors/index.js";
import {
  type BackoffOptions,
  backoffDelay,
  checkAttempts,
  checkBackoff,
  type RetryClock,
  systemClock,
} from "./backoff.js";
import type { Middleware, ModelMiddlewareContext } from "./types.js";
import { wasStreamed } from "./wrap-hooks.js";

/**
 * HTTP statuses retried by default: time-out (408), conflict (409), too early (425), rate
 * limit (429), server errors (500, 502, 503, 504), overloaded (529).
 * @example ModelRetryMiddleware({ statuses: [...RETRY_STATUSES, 520] })
 */
export const RETRY_STATUSES: readonly number[] = [408, 409, 425, 429, 500, 502, 503, 504, 529];

/** Options of {@link ModelRetryMiddleware}. */
export interface ModelRetryOptions extends BackoffOptions {
  /** Attempts in all, the first included; an integer ≥ 1. Default 3. */
  maxAttempts?: number;
  /**
   * Time budget of all the attempts and waits of one model call, in ms from the start of the
   * first attempt: a retry whose wait would end past it is not made (the last error is
   * thrown). A number ≥ 0; default 60 000.
   */
  budgetMs?: number;
  /** HTTP statuses that are retried; default {@link RETRY_STATUSES}. */
  statuses?: readonly number[];
  /** Decide yourself which errors are retried (replaces the status rule). */
  retryOn?: (error: unknown) => boolean;
  /** Random numbers in [0, 1) for the jitter; default `Math.random`. */
  random?: () => number;
  /** Time and waits; default the system clock. */
  clock?: RetryClock;
}

/** Payload of the `"custom"` event sent before each retry (streamed, not stored). */
export interface ModelRetryEvent {
  kind: "model_retry";
  /** Name of the chat model. */
  model: string;
  /** The attempt that failed (1 for the first). */
  attempt: number;
  /** The wait before the next attempt, in ms. */
  delayMs: number;
  /** The failed attempt's HTTP status, when it had one. */
  status: number | null;
  /** The failed attempt's error message. */
  message: string;
}

/** The middleware made by {@link ModelRetryMiddleware}. */
export interface ModelRetryMiddleware extends Middleware {
  readonly name: "ModelRetryMiddleware";
  wrapModelCall(
    request: ChatRequest,
    next: (request: ChatRequest) => Promise<ChatResponse>,
    ctx: ModelMiddlewareContext,
  ): Promise<ChatResponse>;
}

/**
 * The default retry rule: a `ModelProviderError` (not an `UnsupportedPartError`) whose status
 * is in `statuses`, or with no status and `retryable: true` (a time-out, a dropped
 * connection). A bad request (400), an authentication error (401/403), a validation error of
 * the caller's and every other error are not retried.
 * @example isRetryableModelError(new ModelProviderError("busy", { provider: "openai", status: 503 })) // true
 */
export function isRetryableModelError(
  error: unknown,
  statuses: readonly number[] = RETRY_STATUSES,
): boolean {
  if (!(error instanceof ModelProviderError) || error instanceof UnsupportedPartError) return false;
  if (error.status !== undefined) return statuses.includes(error.status);
  return error.retryable;
}

/**
 * Retry failed model calls.
 *
 * Its `wrapModelCall` hook calls the model; when the call fails with an error the rule
 * retries (see {@link isRetryableModelError}, or `retryOn`), it waits and calls again, at most
 * `maxAttempts` times in all. Wait before retry `n`: the provider's hint (`retryAfterMs` of
 * the `ModelProviderError`, from its `Retry-After` header) when it gave one, else
 * `min(maxDelayMs, initialDelayMs * backoffFactor^(n-1)) * (1 - jitter * random())`, rounded.
 * A retry whose wait would end more than `budgetMs` after the first attempt started is not
 * made. With `stream: true`, a stream that fails after its first chunk is not retried (its
 * tokens are out; like `fallbackChat`, only before the first chunk). When it gives up, the
 * last error is thrown as it is (so a `fallbackChat` or the run
 * sees the provider's error).
 *
 * Each attempt is a `chat <model>` span (with `nodestep.attempt` from the second); before each
 * retry a `"custom"` {@link ModelRetryEvent} is emitted (streamed, not stored: nothing a run
 * resumes from depends on it). A cancelled run stops waiting at once (`RunCancelledError`).
 * Place it after `ModelCallLimitMiddleware` (which counts in `beforeModel`, once per call).
 *
 * @param options - see {@link ModelRetryOptions}.
 * @throws ValueError when an option is out of range (named in the message).
 * @example
 * ```ts
 * const agent = buildReactAgent(chat, { tools, middleware: [ModelRetryMiddleware({ maxAttempts: 4, initialDelayMs: 250 })] });
 * ```
 */
export function ModelRetryMiddleware(options: ModelRetryOptions = {}): ModelRetryMiddleware {
  const owner = "ModelRetryMiddleware";
  const maxAttempts = checkAttempts(owner, options.maxAttempts, 3);
  const backoff = checkBackoff(owner, options);
  const budgetMs = options.budgetMs ?? 60_000;
  if (typeof budgetMs !== "number" || Number.isNaN(budgetMs) || budgetMs < 0) {
    throw new ValueError(`${owner}: budgetMs must be a number ≥ 0, got ${String(budgetMs)}`);
  }
  const statuses = options.statuses ?? RETRY_STATUSES;
  if (!Array.isArray(statuses) || !statuses.every((s) => Number.isInteger(s))) {
    throw new ValueError(`${owner}: statuses must be an array of HTTP status integers`);
  }
  const retryOn = options.retryOn ?? ((e: unknown) => isRetryableModelError(e, statuses));
  const random = options.random ?? Math.random;
  const clock = options.clock ?? systemClock;

  return {
    name: "ModelRetryMiddleware",
    async wrapModelCall(request, next, ctx) {
      const start = clock.now();
      for (let attempt = 1; ; attempt++) {
        try {
          return await next(request);
        } catch (e) {
          if (attempt >= maxAttempts || ctx.node.signal.aborted || wasStreamed(e) || !retryOn(e))
            throw e;
          const hint = e instanceof ModelProviderError ? e.retryAfterMs : undefined;
          const delayMs = hint ?? backoffDelay(attempt, backoff, random);
          if (clock.now() + delayMs - start > budgetMs) throw e;
          const event: ModelRetryEvent = {
            kind: "model_retry",
            model: ctx.model,
            attempt,
            delayMs,
            status: e instanceof ModelProviderError ? (e.status ?? null) : null,
            message: e instanceof Error ? e.message : String(e),
          };
          ctx.node.emit(event);
          await clock.sleep(delayMs, ctx.node.signal);
        }
      }
    },
  };
}
