/**
 * Shared runtime of the built-in chat integrations: one call's abort and time-out control,
 * bounded retries with exponential back-off and jitter, and lazy loading of optional SDKs.
 * Internal: not part of the public API.
 *
 * @module
 */
import { ModelProviderError, RunCancelledError } from "../../errors/index.js";
import type { JsonObject } from "../../json/index.js";

/**
 * Time-out and retry options shared by the chat integrations. Retries cover 408, 429, 5xx,
 * connection failures and time-outs (a stream only until its response starts).
 */
export interface ProviderCallOptions {
  /** Retries after the first attempt; default 2. `0` turns retries off. */
  maxRetries?: number;
  /** Limit of one attempt in ms: for `complete` the whole response, for `stream` the wait for the response and then for each next chunk (time the caller spends between chunks does not count). Default 600 000 (10 minutes). */
  timeoutMs?: number;
  /** First back-off delay in ms, doubled on each retry, with jitter; default 500. A `retry-after` header takes precedence. */
  initialRetryDelayMs?: number;
  /** Longest back-off delay in ms; default 8000. */
  maxRetryDelayMs?: number;
}

/** Default limit of one attempt, in milliseconds (10 minutes, as the OpenAI and Anthropic SDKs). */
export const DEFAULT_TIMEOUT_MS = 600_000;
/** Default number of retries after the first attempt. */
export const DEFAULT_MAX_RETRIES = 2;
/** Default first back-off delay, in milliseconds; it doubles on each retry. */
export const DEFAULT_INITIAL_RETRY_DELAY_MS = 500;
/** Default longest back-off delay, in milliseconds. */
export const DEFAULT_MAX_RETRY_DELAY_MS = 8_000;
/** Longest `retry-after` a retry waits for, in milliseconds; a longer one gives up at once. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** The error a cancelled call throws. */
export function cancelledError(
  signal: AbortSignal | undefined,
  what = "model call",
): RunCancelledError {
  return new RunCancelledError(`The ${what} was cancelled`, { cause: signal?.reason });
}

/** Whether an HTTP status means that trying again can help: 408, 429 and every 5xx. */
export function isRetryableStatus(status: number | undefined): boolean {
  return status === 408 || status === 429 || (status !== undefined && status >= 500);
}

/**
 * Abort and time-out control of one attempt: `signal` fires when the caller's signal fires
 * or when `timeoutMs` passes without `arm()` being called again.
 *
 * Cheap per call and per stream chunk: the `AbortController` is made when `signal` is first
 * read (Node takes a few µs to make one; a model that never reads its signal costs none), at
 * most one timer runs at a time (`arm()` and `pause()` only move the start of the current
 * wait; the timer, when it fires early, waits on for the rest), and `race` rejects the
 * pending wait directly, without an abort listener per wait.
 */
export class CallControl {
  /** Set when the time-out fired (rather than the caller's signal). */
  timedOut = false;
  #controller: AbortController | null = null;
  #aborted = false;
  #reason: unknown;
  readonly #timeoutMs: number | null;
  readonly #userSignal: AbortSignal | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the current wait for the provider started (`performance.now()`), or -1 while paused. */
  #waitStart = -1;
  /** Rejects the promise `race` is waiting on, while it waits. */
  #rejectWait: ((reason: unknown) => void) | null = null;

  constructor(timeoutMs: number | null, userSignal: AbortSignal | undefined) {
    this.#timeoutMs = timeoutMs;
    this.#userSignal = userSignal;
    if (userSignal?.aborted) this.handleEvent();
    else userSignal?.addEventListener("abort", this, { once: true });
    this.arm();
  }

  /** The caller's signal fired (this object is its listener: no closure per call). */
  handleEvent(): void {
    this.#abort(this.#userSignal?.reason);
  }

  /** The timer fired: time out, or wait on for the rest of the current wait. */
  static #fire(control: CallControl): void {
    control.#timer = undefined;
    if (control.#waitStart < 0 || control.#aborted) return; // paused: arm() starts a new timer
    const left = control.#waitStart + (control.#timeoutMs as number) - performance.now();
    if (left > 0) {
      control.#timer = setTimeout(CallControl.#fire, left, control);
      return;
    }
    control.timedOut = true;
    control.#abort(new Error(`timed out after ${control.#timeoutMs} ms`));
  }

  /** The attempt's signal, for the provider: it fires on the caller's cancel or the time-out. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const reject = this.#rejectWait;
    this.#rejectWait = null;
    reject?.(reason);
  }

  /** Whether the caller cancelled the call. */
  get cancelled(): boolean {
    return this.#userSignal?.aborted === true;
  }

  /** Start (or restart) the time-out: a new wait for the provider begins now. */
  arm(): void {
    if (this.#timeoutMs === null || this.#timeoutMs <= 0 || this.#aborted) return;
    this.#waitStart = performance.now();
    if (this.#timer === undefined)
      this.#timer = setTimeout(CallControl.#fire, this.#timeoutMs, this);
  }

  /** Stop the time-out while the caller, not the provider, is the one taking time (between stream chunks). */
  pause(): void {
    this.#waitStart = -1;
  }

  /** Stop the timer and the listener; call when the attempt is over. */
  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#waitStart = -1;
    this.#rejectWait = null;
    this.#userSignal?.removeEventListener("abort", this);
  }

  /**
   * Wait for `promise`, but reject with the abort reason as soon as `signal` fires (the
   * caller's signal or the time-out), whether or not the provider listens to it. One wait at
   * a time.
   */
  race<T>(promise: PromiseLike<T>): Promise<T> {
    if (this.#aborted) return Promise.reject(this.#reason);
    return new Promise<T>((resolve, reject) => {
      this.#rejectWait = reject;
      promise.then(
        (value) => {
          this.#rejectWait = null;
          resolve(value);
        },
        (error: unknown) => {
          this.#rejectWait = null;
          reject(error);
        },
      );
    });
  }

  /**
   * The error to throw when the attempt stopped because of this control, or `null`:
   * `RunCancelledError` when the caller cancelled, a retryable `ModelProviderError` on time-out.
   */
  stopError(provider: string, cause?: unknown): Error | null {
    if (this.cancelled) return cancelledError(this.#userSignal);
    if (this.timedOut)
      return new ModelProviderError(
        `The ${provider} call timed out after ${this.#timeoutMs} ms (timeoutMs)`,
        { provider, retryable: true, cause },
      );
    return null;
  }
}

/** How often and how long to retry. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First back-off delay in ms; it doubles on each retry. */
  initialDelayMs: number;
  /** Longest back-off delay in ms. */
  maxDelayMs: number;
}

const retryAfter = new WeakMap<Error, number>();

/** Remember the server's `retry-after` (in ms) for a mapped error. */
export function setRetryAfter(error: Error, ms: number | null): void {
  if (ms !== null) retryAfter.set(error, ms);
}

/**
 * Parse the `retry-after-ms` and `retry-after` headers (seconds or an HTTP date) into milliseconds.
 * @returns the delay in ms, or `null` when there is none.
 */
export function parseRetryAfter(
  get: (name: string) => string | null | undefined,
  now = Date.now(),
): number | null {
  const ms = get("retry-after-ms");
  if (ms != null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = get("retry-after");
  if (value == null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * Back-off before retry number `attempt + 1`: `min(maxDelayMs, initialDelayMs * 2^attempt)`,
 * half of it fixed and half random ("equal jitter").
 */
export function backoffDelayMs(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** attempt);
  return base / 2 + (random() * base) / 2;
}

/** Wait `ms`, or throw `RunCancelledError` as soon as `signal` fires. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Run `attempt` until it succeeds, retrying a retryable `ModelProviderError` at most
 * `policy.maxRetries` times. The wait is the server's `retry-after` when it gave one (up to
 * {@link MAX_RETRY_AFTER_MS}), otherwise {@link backoffDelayMs}. The last error is thrown,
 * its message saying how many attempts were made.
 */
export async function withRetries<T>(
  attempt: (n: number) => Promise<T>,
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      await retryWait(e, n, policy, signal);
    }
  }
}

/**
 * After attempt `n` (from 0) failed with `e`: wait before the next attempt, or throw. Throws
 * `e` itself when it is not a retryable `ModelProviderError`, or when the first attempt's
 * `retry-after` is too long or retries are off; after more attempts, a `ModelProviderError`
 * saying how many were made. The loop of {@link withRetries}, for callers that keep the
 * first attempt free of a closure.
 */
export async function retryWait(
  e: unknown,
  n: number,
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!(e instanceof ModelProviderError) || !e.retryable) throw e;
  const after = retryAfter.get(e);
  if (n >= policy.maxRetries || (after !== undefined && after > MAX_RETRY_AFTER_MS)) {
    if (n === 0) throw e;
    throw new ModelProviderError(`${e.message} (gave up after ${n + 1} attempts)`, {
      provider: e.provider,
      status: e.status,
      retryable: e.retryable,
      cause: e.cause,
    });
  }
  await sleep(after ?? backoffDelayMs(n, policy), signal);
}

/** The retry policy of an integration's options, with the defaults filled in. */
export function retryPolicy(options: {
  maxRetries?: number | undefined;
  initialRetryDelayMs?: number | undefined;
  maxRetryDelayMs?: number | undefined;
}): RetryPolicy {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0)
    throw new RangeError(`maxRetries must be a whole number >= 0, got ${maxRetries}`);
  return {
    maxRetries,
    initialDelayMs: options.initialRetryDelayMs ?? DEFAULT_INITIAL_RETRY_DELAY_MS,
    maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS,
  };
}

/**
 * Import an optional peer SDK on first use.
 * @throws ModelProviderError (not retryable) naming the package to install when it is missing.
 */
export async function loadPeer<T>(
  pkg: string,
  user: string,
  provider: string,
  importer: () => Promise<T>,
): Promise<T> {
  try {
    return await importer();
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    const missing =
      code === "ERR_MODULE_NOT_FOUND" ||
      code === "MODULE_NOT_FOUND" ||
      /Cannot find (module|package)/.test(String((e as Error | null)?.message));
    throw new ModelProviderError(
      missing
        ? `${user} needs the "${pkg}" package, which is not installed: run \`npm install ${pkg}\``
        : `${user} could not load the "${pkg}" package: ${(e as Error | null)?.message ?? String(e)}`,
      { provider, retryable: false, cause: e },
    );
  }
}

/** A JSON copy of a provider's usage object (undefined dropped), or `{}`. */
export function jsonUsage(usage: unknown, dropNull = false): JsonObject {
  if (usage === null || typeof usage !== "object") return {};
  const copy = jsonCopy(usage, 0) as JsonObject;
  if (dropNull) for (const key of Object.keys(copy)) if (copy[key] === null) delete copy[key];
  return copy;
}

/**
 * `JSON.parse(JSON.stringify(value))` without the text in between, for the plain data
 * providers return (usage, metadata): the same result, key order included. Anything else
 * (a `toJSON`, a class instance, a bigint, nesting past 64 levels, which may be a cycle) goes
 * through JSON itself, with its result or its error.
 */
function jsonCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value + 0 : null; // + 0: -0 is written 0
    case "object":
      break;
    default:
      return JSON.parse(JSON.stringify(value) ?? "null") as unknown;
  }
  if (value === null) return null;
  const proto = Object.getPrototypeOf(value) as unknown;
  const plain = Array.isArray(value) || proto === Object.prototype || proto === null;
  if (!plain || depth > 64 || typeof (value as { toJSON?: unknown }).toJSON === "function")
    return JSON.parse(JSON.stringify(value)) as unknown;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const t = typeof v;
      out[i] =
        v === undefined || t === "function" || t === "symbol" ? null : jsonCopy(v, depth + 1);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    const t = typeof v;
    if (v === undefined || t === "function" || t === "symbol") continue;
    const copied = jsonCopy(v, depth + 1);
    if (key === "__proto__")
      Object.defineProperty(out, key, {
        value: copied,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = copied;
  }
  return out;
}

/** Message text of an unknown thrown value. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
