/**
 * `HistoryTrimMiddleware`: keep the messages sent to the model within a message or token
 * budget, never separating a tool call from its result.
 *
 * @module
 */
import type { Message } from "../chat/messages.js";
import type { ChatRequest } from "../chat/types.js";
import { ValueError } from "../errors/index.js";
import type { Middleware, ModelMiddlewareContext } from "./types.js";

/** Options of {@link HistoryTrimMiddleware}; give `maxMessages`, `maxTokens` or both. */
export interface HistoryTrimOptions {
  /** Most messages sent, the leading system messages included; a positive integer. */
  maxMessages?: number;
  /** Most tokens sent (as `countTokens` counts them), the leading system messages included; a positive integer. */
  maxTokens?: number;
  /** Tokens of one message; default {@link estimateTokens} (characters / 4, rounded up). */
  countTokens?: (message: Message) => number;
  /**
   * Where the kept window may start: `"any"` (default) any message that is not a tool result;
   * `"human"` a user message only (for providers that want the conversation to open with one).
   */
  startOn?: "any" | "human";
}

/** The middleware made by {@link HistoryTrimMiddleware}. */
export interface HistoryTrimMiddleware extends Middleware {
  readonly name: "HistoryTrimMiddleware";
  /** Returns a trimmed copy of the request, or nothing when it fits. */
  beforeModel(request: ChatRequest, ctx: ModelMiddlewareContext): ChatRequest | undefined;
}

/** Tokens the default estimate counts for one image, file or audio part (about what providers bill for a mid-size image or a page). */
export const PART_TOKENS = 1000;

/**
 * The default token estimate of a message: its characters divided by 4, rounded up, plus
 * {@link PART_TOKENS} for each image, file or audio part (their base64 data is not counted as
 * text). Counted: the text (of a string or of text parts), the refusal, the reasoning text,
 * and each tool call's name and JSON arguments.
 * @example estimateTokens(HumanMessage({ content: "Where is order A-1001?" })) // 6
 * @example estimateTokens(HumanMessage({ content: [{ type: "text", text: "What is this?" }, { type: "image", url: "https://x/y.png" }] })) // 1004
 */
export function estimateTokens(message: Message): number {
  let chars = 0;
  let parts = 0;
  const content = message.content;
  if (typeof content === "string") chars = content.length;
  else if (content !== null)
    for (const p of content) {
      if (p.type === "text") chars += p.text.length;
      else parts++;
    }
  if (message.type === "ai") {
    chars += message.refusal?.length ?? 0;
    for (const r of message.reasoning) chars += r.text.length;
    for (const c of message.toolCalls) chars += c.name.length + JSON.stringify(c.arguments).length;
  }
  return Math.ceil(chars / 4) + parts * PART_TOKENS;
}

function checkLimit(name: string, value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new ValueError(
      `HistoryTrimMiddleware: ${name} must be a positive integer, got ${typeof value === "number" ? String(value) : typeof value}`,
    );
  }
  return value;
}

/**
 * Trim the conversation sent to the model to a budget.
 *
 * Its `beforeModel` hook keeps the request's leading system messages and the longest tail of
 * the other messages that fits `maxMessages` and `maxTokens` (both count the system messages
 * too). The tail never starts with a tool result: it starts at a message that is not a
 * `ToolMessage` (with `startOn: "human"`, at a user message), so a tool call and its results
 * are kept or dropped together. When even the shortest such tail is over budget, it is sent
 * anyway: the model always gets the last turn. A request that fits is left alone.
 *
 * Only the request changes: the thread's state keeps the whole conversation, so a later call
 * with a larger budget, `graph.getState` and the history see everything.
 *
 * Order: place it after middleware that add messages (such as `TodoMiddleware`), so what they
 * add counts in the budget.
 *
 * @param options - `{ maxMessages, maxTokens, countTokens, startOn }`.
 * @throws ValueError when neither budget is given, a budget is not a positive integer, or
 *   `startOn` is neither `"any"` nor `"human"`; TypeError when `countTokens` is not a function.
 *   When it runs: ValueError when `countTokens` returns something else than a non-negative number.
 * @example
 * ```ts
 * const agent = buildReactAgent(chat, {
 *   tools,
 *   middleware: [HistoryTrimMiddleware({ maxTokens: 6000 })],
 * });
 * ```
 */
export function HistoryTrimMiddleware(options: HistoryTrimOptions): HistoryTrimMiddleware {
  const opts = (options ?? {}) as HistoryTrimOptions;
  const maxMessages = checkLimit("maxMessages", opts.maxMessages);
  const maxTokens = checkLimit("maxTokens", opts.maxTokens);
  if (maxMessages === null && maxTokens === null) {
    throw new ValueError("HistoryTrimMiddleware: give maxMessages, maxTokens or both");
  }
  const countTokens = opts.countTokens ?? estimateTokens;
  if (typeof countTokens !== "function") {
    throw new TypeError(
      "HistoryTrimMiddleware: countTokens must be a function (message) => number",
    );
  }
  const startOn = opts.startOn ?? "any";
  if (startOn !== "any" && startOn !== "human") {
    throw new ValueError(
      `HistoryTrimMiddleware: startOn must be "any" or "human", got ${JSON.stringify(startOn)}`,
    );
  }
  const count = (m: Message): number => {
    const n = countTokens(m);
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) {
      throw new ValueError(
        `HistoryTrimMiddleware: countTokens returned ${String(n)} for a ${m.type} message; it must return a non-negative number`,
      );
    }
    return n;
  };

  return {
    name: "HistoryTrimMiddleware",
    beforeModel(request: ChatRequest): ChatRequest | undefined {
      const all = request.messages;
      let p = 0;
      while (p < all.length && all[p]?.type === "system") p++;
      const rest = all.slice(p);
      if (rest.length === 0) return undefined;
      const headTokens = maxTokens === null ? 0 : all.slice(0, p).reduce((s, m) => s + count(m), 0);
      // suffix[i]: tokens of rest[i..]
      const suffix = new Array<number>(rest.length + 1).fill(0);
      if (maxTokens !== null) {
        for (let i = rest.length - 1; i >= 0; i--) {
          suffix[i] = (suffix[i + 1] as number) + count(rest[i] as Message);
        }
      }
      const fits = (i: number): boolean =>
        (maxMessages === null || p + rest.length - i <= maxMessages) &&
        (maxTokens === null || headTokens + (suffix[i] as number) <= maxTokens);
      const canStart = (m: Message): boolean =>
        startOn === "human" ? m.type === "human" : m.type !== "tool";
      if (fits(0)) return undefined;
      let start = -1;
      let lastValid = -1;
      for (let i = 0; i < rest.length; i++) {
        if (!canStart(rest[i] as Message)) continue;
        lastValid = i;
        if (fits(i)) {
          start = i;
          break;
        }
      }
      if (start === -1) start = lastValid;
      if (start <= 0) return undefined;
      return { ...request, messages: [...all.slice(0, p), ...rest.slice(start)] };
    },
  };
}
