/**
 * `ToolRetryMiddleware`: per-tool retry policies (which errors, how many times, back-off).
 *
 * @module
 */
import {
  ContextNotProvidedError,
  GraphConfigError,
  RunCancelledError,
  ToolDeniedError,
  ValidationError,
  ValueError,
} from "../errors/index.js";
import { isGraphInterrupt } from "../graph/context.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import {
  type Backoff,
  type BackoffOptions,
  backoffDelay,
  checkAttempts,
  checkBackoff,
  type RetryClock,
  systemClock,
} from "./backoff.js";
import type { Middleware, ToolMiddlewareContext } from "./types.js";

/** A class of errors, for `retryOn` lists. */
export type ErrorClass = abstract new (...args: never[]) => Error;

/** How one tool is retried. */
export interface ToolRetryPolicy extends BackoffOptions {
  /** Attempts in all, the first included; an integer ≥ 1. Default 3. */
  maxAttempts?: number;
  /**
   * Which errors are retried: a list of error classes (an error that is an instance of one),
   * or a function. Default: every error except those never retried (below).
   */
  retryOn?: readonly ErrorClass[] | ((error: unknown) => boolean);
}

/** Options of {@link ToolRetryMiddleware}. */
export interface ToolRetryOptions {
  /** Policies by tool name. */
  tools?: Readonly<Record<string, ToolRetryPolicy>>;
  /** The policy of every tool not in `tools`; default none (those tools run once). */
  default?: ToolRetryPolicy | null;
  /** Random numbers in [0, 1) for the jitter; default `Math.random`. */
  random?: () => number;
  /** Time and waits; default the system clock. */
  clock?: RetryClock;
}

/** Payload of the `"custom"` event sent before each tool retry (streamed, not stored). */
export interface ToolRetryEvent {
  kind: "tool_retry";
  tool: string;
  toolCallId: string | null;
  /** The attempt that failed (1 for the first). */
  attempt: number;
  /** The wait before the next attempt, in ms. */
  delayMs: number;
  /** The failed attempt's error: its class name and message. */
  error: { name: string; message: string };
}

/** The middleware made by {@link ToolRetryMiddleware}. */
export interface ToolRetryMiddleware extends Middleware {
  readonly name: "ToolRetryMiddleware";
  wrapToolCall(
    args: JsonObject,
    next: (args: JsonObject) => Promise<JsonValue>,
    ctx: ToolMiddlewareContext,
  ): Promise<JsonValue>;
}

/** Errors no policy retries: a pause, a denial, a cancelled run, a bad result, a configuration error. */
const NEVER: readonly ErrorClass[] = [
  ToolDeniedError,
  RunCancelledError,
  ValidationError,
  ContextNotProvidedError,
  GraphConfigError,
];

interface Checked {
  maxAttempts: number;
  backoff: Backoff;
  retryOn: (error: unknown) => boolean;
}

function checkPolicy(owner: string, policy: ToolRetryPolicy): Checked {
  if (typeof policy !== "object" || policy === null) {
    throw new ValueError(`${owner}: a retry policy must be an object, got ${String(policy)}`);
  }
  const r = policy.retryOn;
  let retryOn: (error: unknown) => boolean;
  if (r === undefined) retryOn = () => true;
  else if (typeof r === "function") retryOn = r;
  else if (Array.isArray(r) && r.every((c) => typeof c === "function")) {
    retryOn = (e) => r.some((cls) => e instanceof cls);
  } else {
    throw new ValueError(`${owner}: retryOn must be a list of error classes or a function`);
  }
  return {
    maxAttempts: checkAttempts(owner, policy.maxAttempts, 3),
    backoff: checkBackoff(owner, policy),
    retryOn,
  };
}

/**
 * Retry failed tool calls, with a policy per tool.
 *
 * Its `wrapToolCall` hook runs the tool; when it throws an error its policy retries, it waits
 * (`min(maxDelayMs, initialDelayMs * backoffFactor^(n-1)) * (1 - jitter * random())` ms before
 * retry `n`, rounded) and runs it again, at most `maxAttempts` times in all; then the last
 * error goes on to `onToolError` and the tool runner's `toolErrors` policy as it would without
 * retries. Never retried, whatever the policy says: an interrupt, `ToolDeniedError`,
 * `RunCancelledError`, `ValidationError` (a result that does not match the tool's output
 * schema), `ContextNotProvidedError`, `GraphConfigError`, and any error once the run is
 * cancelled. Arguments are checked before the hook (an invalid call is never retried).
 *
 * A call whose result is stored is never run again, so never retried: the tool runner keeps
 * each finished call's result (in its task's cache, saved to the log), and a run resumed after
 * a crash or an interrupt answers those calls from it. The tool's span records each attempt
 * (a `nodestep.attempt` event); before each retry a `"custom"` {@link ToolRetryEvent} is emitted.
 *
 * @param options - `{ tools: { name: policy }, default, random, clock }`.
 * @throws ValueError when a policy or an option is invalid (named in the message).
 * @example
 * ```ts
 * const retry = ToolRetryMiddleware({
 *   tools: { fetch_page: { maxAttempts: 4, initialDelayMs: 200, retryOn: [FetchError] } },
 * });
 * ```
 */
export function ToolRetryMiddleware(options: ToolRetryOptions): ToolRetryMiddleware {
  if (typeof options !== "object" || options === null) {
    throw new ValueError("ToolRetryMiddleware: options { tools, default } are required");
  }
  const policies = new Map<string, Checked>();
  for (const [name, policy] of Object.entries(options.tools ?? {})) {
    policies.set(name, checkPolicy(`ToolRetryMiddleware (tool "${name}")`, policy));
  }
  const fallback =
    options.default === undefined || options.default === null
      ? null
      : checkPolicy("ToolRetryMiddleware (default policy)", options.default);
  const random = options.random ?? Math.random;
  const clock = options.clock ?? systemClock;

  return {
    name: "ToolRetryMiddleware",
    async wrapToolCall(args, next, ctx) {
      const policy = policies.get(ctx.tool.name) ?? fallback;
      if (policy === null) return next(args);
      const signal = ctx.toolContext.signal;
      for (let attempt = 1; ; attempt++) {
        try {
          return await next(args);
        } catch (e) {
          if (
            attempt >= policy.maxAttempts ||
            signal.aborted ||
            isGraphInterrupt(e) ||
            NEVER.some((cls) => e instanceof cls) ||
            !policy.retryOn(e)
          ) {
            throw e;
          }
          const delayMs = backoffDelay(attempt, policy.backoff, random);
          const event: ToolRetryEvent = {
            kind: "tool_retry",
            tool: ctx.tool.name,
            toolCallId: ctx.toolCallId,
            attempt,
            delayMs,
            error:
              e instanceof Error
                ? { name: e.name, message: e.message }
                : { name: typeof e, message: String(e) },
          };
          ctx.toolContext.emit(event);
          await clock.sleep(delayMs, signal);
        }
      }
    },
  };
}
