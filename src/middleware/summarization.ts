/**
 * `SummarizationMiddleware`: when the conversation passes a budget, the older turns are
 * replaced by a summary a chosen model writes, in the same state update as the model's answer.
 *
 * @module
 */
import { HumanMessage, type Message, SystemMessage } from "../chat/messages.js";
import { textOf } from "../chat/parts.js";
import { type Chat, ChatRequest } from "../chat/types.js";
import { SummarizationError, ValueError } from "../errors/index.js";
import { traced } from "../graph/tracing.js";
import { newMessageId } from "../state/add-messages.js";
import { estimateTokens } from "./history-trim.js";
import { summaryTranscript } from "./summary-transcript.js";
import type { Middleware, ModelMiddlewareContext } from "./types.js";

/** Options of {@link SummarizationMiddleware}. */
export interface SummarizationOptions {
  /** The model that writes the summaries (any `Chat`; often a smaller one than the agent's). Required. */
  model: Chat;
  /**
   * When to summarize: when the stored conversation has more than `tokens` tokens (as
   * `countTokens` counts them) or more than `messages` messages. Give one or both, positive
   * integers. Required.
   */
  trigger: { tokens?: number; messages?: number };
  /**
   * The recent part kept as it is: the longest tail of at most `tokens` tokens, or of at most
   * `messages` messages, that does not start with a tool result. Give one, a positive
   * integer, below the trigger of the same unit. Default `{ messages: 20 }`.
   */
  keep?: { tokens: number } | { messages: number };
  /** The summary model's instructions (its system message). Default {@link SUMMARY_PROMPT}. */
  summaryPrompt?: string;
  /** Text put before the summary in the summary message. Default {@link SUMMARY_PREFIX}. */
  summaryPrefix?: string;
  /** The summary message's type: `"human"` (default) or `"system"`. */
  summaryRole?: "human" | "system";
  /**
   * When the summary call fails (the model throws, or answers without text): `"continue"`
   * (default) leaves the history as it was, emits a {@link SummarizationFailedEvent} and calls
   * the agent's model with the whole history; `"raise"` fails the step with `SummarizationError`.
   */
  onFailure?: "continue" | "raise";
  /** Tokens of one message; default {@link estimateTokens} (as `HistoryTrimMiddleware` counts). */
  countTokens?: (message: Message) => number;
}

/** The middleware made by {@link SummarizationMiddleware}. */
export interface SummarizationMiddleware extends Middleware {
  readonly name: "SummarizationMiddleware";
  /** Returns the summarized conversation, or nothing when it is within the trigger (or the summary failed and `onFailure` is `"continue"`). */
  rewriteHistory(
    history: readonly Message[],
    ctx: ModelMiddlewareContext,
  ): Promise<Message[] | undefined>;
}

/** Payload of the `"custom"` event sent when a summary call fails and `onFailure` is `"continue"`. Plain JSON. */
export interface SummarizationFailedEvent {
  kind: "summarization_failed";
  /** Name of the summary model. */
  model: string;
  /** What went wrong: the error's message, or that the model sent no text. */
  message: string;
}

/** Default {@link SummarizationOptions.summaryPrompt}. */
export const SUMMARY_PROMPT =
  "You summarize a conversation between a user and an assistant that uses tools, so that the assistant can go on without the full transcript. Keep the user's goals and constraints, the facts found (names, ids, numbers, results of tool calls), decisions made, and what is still open. If a summary so far is given, fold it in. Answer with the summary only.";

/** Default {@link SummarizationOptions.summaryPrefix}. */
export const SUMMARY_PREFIX = "Here is a summary of the conversation to date:\n\n";

/** The id of a summary message starts with this; the rest is the id of the last message it summarizes. */
export const SUMMARY_ID_PREFIX = "summary:";

/**
 * Whether a message is a summary written by a `SummarizationMiddleware`: a human or system
 * message whose id starts with {@link SUMMARY_ID_PREFIX}.
 * @example isSummaryMessage(state.messages[0]) // true after a summarization
 */
export function isSummaryMessage(message: Message): boolean {
  return (
    (message.type === "human" || message.type === "system") &&
    typeof message.id === "string" &&
    message.id.startsWith(SUMMARY_ID_PREFIX)
  );
}

function positive(name: string, value: unknown): number | null {
  if (value === undefined) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new ValueError(
      `SummarizationMiddleware: ${name} must be a positive integer, got ${typeof value === "number" ? String(value) : typeof value}`,
    );
  }
  return value;
}

function objectOption(name: string, value: unknown, keys: readonly string[]): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(
      `SummarizationMiddleware: ${name} must be an object { ${keys.join(", ")} }, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`,
    );
  }
  for (const k of Object.keys(value)) {
    if (!keys.includes(k)) {
      throw new ValueError(
        `SummarizationMiddleware: unknown ${name} key "${k}"; the keys are ${keys.join(", ")}`,
      );
    }
  }
}

/** Where a summarization cuts a history, or `null` when there is nothing to summarize. */
interface Plan {
  /** Leading system messages that are not a summary: kept in place. */
  head: Message[];
  /** The summary of an earlier summarization, folded into the new one. */
  previous: Message | null;
  /** The messages the new summary replaces. */
  summarized: Message[];
  /** The recent tail kept as it is. */
  kept: Message[];
}

/**
 * Summarize older turns when a conversation passes a budget.
 *
 * Before each model call (its `rewriteHistory` hook), when the stored conversation is over
 * `trigger`, the messages are cut in three: the leading system messages (kept), the older
 * turns (summarized), and the recent tail of `keep` (kept). The tail never starts with a tool
 * result, so an `AIMessage` with tool calls and its `ToolMessage`s stay on the same side; when
 * even the shortest such tail is over `keep`, that tail is kept. `model` is asked once, with
 * `summaryPrompt` as system message and a user message holding `"Summary so far:\n…\n\n"`
 * (when an earlier summary exists; it is folded in) and `"Conversation:\n"` with the older
 * turns as a transcript (see `summaryTranscript`). Its text becomes the summary message: a
 * `HumanMessage` (or `SystemMessage`, by `summaryRole`) with id `"summary:<id of the last
 * summarized message>"` and content `summaryPrefix + text`, placed after the leading system
 * messages.
 *
 * The model node stores the change (a `RemoveMessage` for each message after the leading
 * system messages, the summary, the kept tail again with its ids) and the model's answer as
 * one update of its step, so the event log keeps the full history before it: `getState` at an
 * earlier event, or a fork from before the step, sees every message. A step that fails (the
 * agent's model too) stores nothing, and the next try summarizes again.
 *
 * The summary call's token usage is recorded (`ctx.recordCall`): the model node stores it
 * with its answer in `responseMetadata.middlewareCalls` as
 * `{ middleware: "SummarizationMiddleware", model, usage }`, so `UsageLedger`, the usage
 * route and the run metrics count it (by the summary model's name); a step that fails stores
 * nothing, and its summary call is not counted.
 *
 * Not counted: the agent's system prompt (added by the node after this hook) and notes other
 * middleware add to the request. The whole older part goes to the summary model in one call.
 *
 * @param options - see {@link SummarizationOptions}; `model` and `trigger` are required.
 * @throws TypeError when `model` is not a `Chat`, `trigger` or `keep` is not an object, or
 *   `countTokens` is not a function. ValueError for an unknown key, a bound that is not a
 *   positive integer, a `keep` not below the trigger of its unit, a `summaryRole` or
 *   `onFailure` out of its values, or a prompt that is not a non-empty string.
 *   When it runs: `SummarizationError` when the summary call fails and `onFailure` is
 *   `"raise"`; the model's error itself when the run was cancelled; ValueError when
 *   `countTokens` returns something else than a non-negative number.
 * @example
 * ```ts
 * const agent = buildReactAgent(chat, {
 *   tools,
 *   middleware: [SummarizationMiddleware({ model: small, trigger: { tokens: 8000 }, keep: { tokens: 2000 } })],
 * });
 * ```
 */
export function SummarizationMiddleware(options: SummarizationOptions): SummarizationMiddleware {
  const opts = (options ?? {}) as SummarizationOptions;
  const model = opts.model as unknown;
  if (
    typeof model !== "object" ||
    model === null ||
    typeof (model as Chat).model !== "string" ||
    typeof (model as Chat).complete !== "function"
  ) {
    throw new TypeError(
      "SummarizationMiddleware: model must be a Chat (with a model name and complete)",
    );
  }
  const summarizer = model as Chat;
  objectOption("trigger", opts.trigger, ["tokens", "messages"]);
  const triggerTokens = positive("trigger.tokens", opts.trigger.tokens);
  const triggerMessages = positive("trigger.messages", opts.trigger.messages);
  if (triggerTokens === null && triggerMessages === null) {
    throw new ValueError("SummarizationMiddleware: trigger needs tokens, messages or both");
  }
  const keep = opts.keep ?? { messages: 20 };
  objectOption("keep", keep, ["tokens", "messages"]);
  const keepTokens = positive("keep.tokens", (keep as { tokens?: number }).tokens);
  const keepMessages = positive("keep.messages", (keep as { messages?: number }).messages);
  if ((keepTokens === null) === (keepMessages === null)) {
    throw new ValueError("SummarizationMiddleware: keep needs tokens or messages (one of them)");
  }
  for (const [unit, k, t] of [
    ["tokens", keepTokens, triggerTokens],
    ["messages", keepMessages, triggerMessages],
  ] as const) {
    if (k !== null && t !== null && k >= t) {
      throw new ValueError(
        `SummarizationMiddleware: keep.${unit} (${k}) must be below trigger.${unit} (${t}), or every summary would leave the conversation over the trigger`,
      );
    }
  }
  const text = (name: string, value: unknown, fallback: string, empty: boolean): string => {
    if (value === undefined) return fallback;
    if (typeof value !== "string" || (!empty && value === "")) {
      throw new ValueError(
        `SummarizationMiddleware: ${name} must be a ${empty ? "" : "non-empty "}string, got ${typeof value === "string" ? '""' : typeof value}`,
      );
    }
    return value;
  };
  const prompt = text("summaryPrompt", opts.summaryPrompt, SUMMARY_PROMPT, false);
  const prefix = text("summaryPrefix", opts.summaryPrefix, SUMMARY_PREFIX, true);
  const role = opts.summaryRole ?? "human";
  if (role !== "human" && role !== "system") {
    throw new ValueError(
      `SummarizationMiddleware: summaryRole must be "human" or "system", got ${JSON.stringify(role)}`,
    );
  }
  const onFailure = opts.onFailure ?? "continue";
  if (onFailure !== "continue" && onFailure !== "raise") {
    throw new ValueError(
      `SummarizationMiddleware: onFailure must be "continue" or "raise", got ${JSON.stringify(onFailure)}`,
    );
  }
  const countTokens = opts.countTokens ?? estimateTokens;
  if (typeof countTokens !== "function") {
    throw new TypeError(
      "SummarizationMiddleware: countTokens must be a function (message) => number",
    );
  }
  const count = (m: Message): number => {
    const n = countTokens(m);
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) {
      throw new ValueError(
        `SummarizationMiddleware: countTokens returned ${String(n)} for a ${m.type} message; it must return a non-negative number`,
      );
    }
    return n;
  };

  const plan = (history: readonly Message[]): Plan | null => {
    const sizes = history.map(count);
    const total = sizes.reduce((s, n) => s + n, 0);
    const over =
      (triggerTokens !== null && total > triggerTokens) ||
      (triggerMessages !== null && history.length > triggerMessages);
    if (!over) return null;
    let p = 0;
    while (p < history.length && history[p]?.type === "system" && !isSummaryMessage(history[p]!))
      p++;
    const previous = p < history.length && isSummaryMessage(history[p]!) ? history[p]! : null;
    const body = previous === null ? p : p + 1;
    // The tail history[cut..]: the longest within `keep` starting at a message that is not a
    // tool result, else the shortest such tail.
    let cut = -1;
    let last = -1;
    let tail = 0;
    for (let i = history.length - 1; i >= body; i--) {
      tail += sizes[i] as number;
      if (history[i]?.type === "tool") continue;
      const fits =
        keepTokens !== null ? tail <= keepTokens : history.length - i <= (keepMessages as number);
      if (last === -1) last = i;
      if (!fits) break; // tails only grow from here
      cut = i;
    }
    if (cut === -1) cut = last;
    if (cut <= body) return null;
    return {
      head: history.slice(0, p),
      previous,
      summarized: history.slice(body, cut),
      kept: history.slice(cut),
    };
  };

  const summaryRequest = (found: Plan): ChatRequest => {
    const earlier = found.previous === null ? null : (textOf(found.previous.content) ?? "");
    const before =
      earlier === null
        ? ""
        : `Summary so far:\n${earlier.startsWith(prefix) ? earlier.slice(prefix.length) : earlier}\n\n`;
    return ChatRequest({
      messages: [
        SystemMessage({ content: prompt }),
        HumanMessage({
          content: `${before}Conversation:\n${summaryTranscript(found.summarized)}`,
        }),
      ],
    });
  };

  return {
    name: "SummarizationMiddleware",
    async rewriteHistory(history, ctx) {
      const found = plan(history);
      if (found === null) return undefined;
      const node = ctx.node as Partial<ModelMiddlewareContext["node"]>;
      const signal = node.signal;
      let summary: string | null = null;
      let failure: unknown = null;
      try {
        const response = await traced(
          node.trace ?? null,
          `chat ${summarizer.model}`,
          {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": summarizer.model,
            "nodestep.middleware": "SummarizationMiddleware",
          },
          () => summarizer.complete(summaryRequest(found), signal ? { signal } : {}),
        );
        // Counted even when it sent no text: the tokens were spent.
        if (typeof ctx.recordCall === "function") {
          ctx.recordCall({
            middleware: "SummarizationMiddleware",
            model: response.model ?? summarizer.model,
            usage: response.usage ?? {},
          });
        }
        summary = textOf(response.content)?.trim() ?? "";
        if (summary === "") failure = new Error("the summary model answered without text");
      } catch (e) {
        if (signal?.aborted) throw e;
        failure = e;
      }
      if (failure !== null) {
        const message = failure instanceof Error ? failure.message : String(failure);
        if (onFailure === "raise") {
          throw new SummarizationError(
            `SummarizationMiddleware${node.node ? ` in node "${node.node}"` : ""}: the summary call to model "${summarizer.model}" failed: ${message}; the history was left as it was`,
            { cause: failure, model: summarizer.model, node: node.node ?? null },
          );
        }
        if (typeof node.emit === "function") {
          const event: SummarizationFailedEvent = {
            kind: "summarization_failed",
            model: summarizer.model,
            message,
          };
          node.emit(event);
        }
        return undefined;
      }
      const lastId = found.summarized[found.summarized.length - 1]?.id ?? newMessageId();
      const init = { id: `${SUMMARY_ID_PREFIX}${lastId}`, content: `${prefix}${summary}` };
      const message = role === "human" ? HumanMessage(init) : SystemMessage(init);
      return [...found.head, message, ...found.kept];
    },
  };
}
