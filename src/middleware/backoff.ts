/**
 * Exponential back-off with jitter, and the clock retries wait on: shared by
 * `ModelRetryMiddleware` and `ToolRetryMiddleware`.
 *
 * @module
 */
import { RunCancelledError, ValueError } from "../errors/index.js";

/**
 * How long to wait between attempts. Retry `n` (1 for the wait after the first failure) waits
 * `min(maxDelayMs, initialDelayMs * backoffFactor^(n-1)) * (1 - jitter * random())` ms,
 * rounded to a whole ms: with `jitter: 0.5` between half the delay and all of it.
 */
export interface BackoffOptions {
  /** Wait before the first retry, in ms; a number ≥ 0. Default 500. */
  initialDelayMs?: number;
  /** Each wait is this many times the one before; a number ≥ 1. Default 2. */
  backoffFactor?: number;
  /** No wait is longer, in ms; a number ≥ 0. Default 30 000. */
  maxDelayMs?: number;
  /** Share of the wait taken off at random, from 0 (none) to 1 (all of it); default 0.5. */
  jitter?: number;
}

/**
 * What retries read the time from and wait on. Tests pass a fake one so that waits are exact
 * and instant.
 */
export interface RetryClock {
  /** The time, in ms. */
  now(): number;
  /**
   * Wait `ms` milliseconds; reject when `signal` fires (`RunCancelledError`).
   */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/**
 * The clock of the process: `Date.now()` and `setTimeout`; `sleep` rejects with
 * `RunCancelledError` when the signal fires.
 * @example await systemClock.sleep(100, ctx.signal);
 */
export const systemClock: RetryClock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(cancelled(signal));
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(cancelled(signal));
      };
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  },
};

function cancelled(signal: AbortSignal): RunCancelledError {
  return new RunCancelledError("The run was cancelled while waiting to retry", {
    cause: signal.reason,
  });
}

/** Back-off options checked, with defaults filled in. */
export type Backoff = Required<BackoffOptions>;

function number(
  owner: string,
  name: string,
  value: unknown,
  fallback: number,
  min: number,
  max = Infinity,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    const range = max === Infinity ? `a number ≥ ${min}` : `a number from ${min} to ${max}`;
    throw new ValueError(`${owner}: ${name} must be ${range}, got ${String(value)}`);
  }
  return value;
}

/**
 * Check back-off options and fill in the defaults.
 * @throws ValueError naming the option and the value when one is out of range.
 */
export function checkBackoff(owner: string, options: BackoffOptions): Backoff {
  return {
    initialDelayMs: number(owner, "initialDelayMs", options.initialDelayMs, 500, 0),
    backoffFactor: number(owner, "backoffFactor", options.backoffFactor, 2, 1),
    maxDelayMs: number(owner, "maxDelayMs", options.maxDelayMs, 30_000, 0),
    jitter: number(owner, "jitter", options.jitter, 0.5, 0, 1),
  };
}

/**
 * Check an attempt count: an integer ≥ 1.
 * @throws ValueError otherwise.
 */
export function checkAttempts(owner: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new ValueError(`${owner}: maxAttempts must be an integer ≥ 1, got ${String(value)}`);
  }
  return value;
}

/**
 * The wait before retry `retry` (1 for the first), in whole ms.
 * @example backoffDelay(3, { initialDelayMs: 100, backoffFactor: 2, maxDelayMs: 1000, jitter: 0.5 }, () => 0.5) // 300
 */
export function backoffDelay(retry: number, b: Backoff, random: () => number): number {
  const base = Math.min(b.maxDelayMs, b.initialDelayMs * b.backoffFactor ** (retry - 1));
  return Math.round(base * (1 - b.jitter * random()));
}
