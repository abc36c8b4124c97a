/**
 * `toUIMessageChunks`: a graph run's stream events as the chunks of the AI SDK's UI message
 * stream (what `useChat` reads).
 *
 * @module
 */
import type { AIMessage, ToolMessage } from "../../chat/messages.js";
import { textOf } from "../../chat/parts.js";
import { USAGE_TOKEN_KEYS } from "../../chat/schemas.js";
import type { ChatStreamChunk } from "../../chat/types.js";
import type { PendingInterrupt, StreamMode } from "../../graph/context.js";
import type { StreamEvent } from "../../graph/types.js";
import { isPlainObject, type JsonObject, type JsonValue } from "../../json/index.js";
import { toolOutcome } from "./tool-output.js";
import type { UIDataChunk, UIFinishReason, UIStreamChunk, UIUsage } from "./types.js";

/**
 * The stream modes {@link toUIMessageChunks} reads: `tokens` (text, reasoning and tool-call
 * deltas), `messages` (finished model messages and tool results), `custom` (data parts) and
 * `updates` (the interrupts a paused run ends with). Pass them to `graph.stream`.
 */
export const UI_STREAM_MODES: readonly StreamMode[] = ["updates", "tokens", "messages", "custom"];

/** Options of {@link toUIMessageChunks}. */
export interface UIStreamOptions {
  /**
   * Id of the assistant message, sent in the `start` chunk. Give the id of the message being
   * continued when the run answers an approval; leave it out for a new answer (the client
   * then makes one).
   */
  messageId?: string | null;
  /**
   * Turns a custom event (`ctx.emit(data)`) into a data chunk, or `null` to leave it out.
   * Default {@link defaultDataChunk}.
   */
  dataChunk?: (data: unknown, event: StreamEvent) => UIDataChunk | null;
  /** The `errorText` of the `error` chunk for the run's error. Default `"<name>: <message>"`. */
  errorText?: (error: unknown) => string;
}

/**
 * The default data chunk of a custom event: an object with a string `type` such as
 * `{ type: "progress", done: 3 }` becomes `{ type: "data-progress", data: { done: 3 } }`
 * (with its string `id`, if any, as the chunk's id: later parts of that id replace it);
 * any other JSON value `v` becomes `{ type: "data-custom", data: v }`. A value that is not JSON
 * (a function, `undefined`) is left out.
 */
export function defaultDataChunk(data: unknown): UIDataChunk | null {
  if (isPlainObject(data) && typeof data.type === "string" && data.type !== "") {
    const json = toJson(data) as JsonObject | undefined;
    if (json === undefined) return null;
    const { type, ...rest } = json;
    if (typeof rest.id !== "string") return { type: `data-${String(type)}`, data: rest };
    const { id, ...fields } = rest;
    return { type: `data-${String(type)}`, id, data: fields };
  }
  const json = toJson(data);
  return json === undefined ? null : { type: "data-custom", data: json };
}

function toJson(value: unknown): JsonValue | undefined {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") {
    return undefined;
  }
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as JsonValue);
  } catch {
    return undefined;
  }
}

function defaultErrorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** An approval interrupt of `ApprovalMiddleware`: `{ tool, arguments, toolCallId, question }`. */
function approvalOf(i: PendingInterrupt): { toolCallId: string; question: string } | null {
  const v = i.value;
  if (!isPlainObject(v)) return null;
  const { tool, toolCallId, question } = v as JsonObject;
  if (typeof tool !== "string" || typeof toolCallId !== "string") return null;
  if (!isPlainObject(v.arguments)) return null;
  return { toolCallId, question: typeof question === "string" ? question : "" };
}

/** What one model task has streamed so far. */
interface ModelTask {
  text: string | null;
  reasoning: Map<number, string>;
  tools: Map<number, { id: string | null; name: string | null; args: string; started: boolean }>;
}

/**
 * The UI message stream of a run: reads the events of `graph.stream(input, { modes:
 * UI_STREAM_MODES, ... })` and yields the AI SDK's chunks, in order:
 *
 * - `start` (with `messageId` when given), then per model call a step: `start-step`, its
 *   reasoning (`reasoning-start`/`-delta`/`-end`), text (`text-start`/`-delta`/`-end`) and
 *   tool calls (`tool-input-start`/`-delta` while the arguments stream, then
 *   `tool-input-available`, or `tool-input-error` for arguments that did not parse), the tool
 *   results (`tool-output-available`, `tool-output-error` for `"Tool error: …"`,
 *   `tool-output-denied` for a call a person denied), and `finish-step`;
 * - a model node without `stream: true` has no `tokens`: its finished message is sent as
 *   whole parts (one delta each);
 * - a custom event: a `data-<name>` chunk (see {@link UIStreamOptions.dataChunk});
 * - a paused run: for each `ApprovalMiddleware` interrupt a `tool-approval-request` whose
 *   `approvalId` is the interrupt key and `reason` its question; any other interrupt a
 *   `data-interrupt` chunk `{ key, value }`;
 * - the run's error: an `error` chunk (see {@link UIStreamOptions.errorText});
 * - `finish`, with `finishReason` (`"stop"`, `"tool-calls"` when waiting for approvals,
 *   `"other"` for other interrupts, `"error"`) and `messageMetadata` `{ status, usage }`, the
 *   usage summed over the run's model messages.
 *
 * Closing the generator early (the client went away) closes the run's stream, which cancels
 * the run. The messages of the input are not sent (a node did not write them).
 *
 * @param events - a run's stream with (at least) the modes of {@link UI_STREAM_MODES}.
 * @param options - see {@link UIStreamOptions}.
 * @example
 * ```ts
 * const events = agent.stream(input, { threadId, modes: UI_STREAM_MODES });
 * for await (const chunk of toUIMessageChunks(events)) console.log(chunk.type);
 * ```
 */
export async function* toUIMessageChunks(
  events: AsyncIterable<StreamEvent>,
  options: UIStreamOptions = {},
): AsyncGenerator<UIStreamChunk, void, undefined> {
  const dataChunk = options.dataChunk ?? defaultDataChunk;
  const errorText = options.errorText ?? defaultErrorText;
  const tasks = new Map<string, ModelTask>();
  const usage: UIUsage = {};
  let stepOf: string | null = null;
  let interrupts: PendingInterrupt[] = [];
  let failed = false;

  yield options.messageId ? { type: "start", messageId: options.messageId } : { type: "start" };

  function* enterStep(key: string): Generator<UIStreamChunk> {
    if (stepOf === key) return;
    if (stepOf !== null) yield { type: "finish-step" };
    stepOf = key;
    yield { type: "start-step" };
  }

  function taskOf(key: string): ModelTask {
    let t = tasks.get(key);
    if (!t) {
      t = { text: null, reasoning: new Map(), tools: new Map() };
      tasks.set(key, t);
    }
    return t;
  }

  function* onTokens(key: string, chunk: ChatStreamChunk): Generator<UIStreamChunk> {
    yield* enterStep(key);
    const t = taskOf(key);
    const r = chunk.reasoningDelta;
    if (r) {
      let id = t.reasoning.get(r.index);
      if (id === undefined) {
        id = `${key}:reasoning:${r.index}`;
        t.reasoning.set(r.index, id);
        yield { type: "reasoning-start", id };
      }
      if (r.text) yield { type: "reasoning-delta", id, delta: r.text };
    }
    if (chunk.contentDelta) {
      if (t.text === null) {
        t.text = `${key}:text`;
        yield { type: "text-start", id: t.text };
      }
      yield { type: "text-delta", id: t.text, delta: chunk.contentDelta };
    }
    const d = chunk.toolCallDelta;
    if (d) {
      let call = t.tools.get(d.index);
      if (!call) {
        call = { id: null, name: null, args: "", started: false };
        t.tools.set(d.index, call);
      }
      call.id = d.id ?? call.id;
      call.name = d.name ?? call.name;
      const piece = d.arguments ?? "";
      if (!call.started && call.id !== null && call.name !== null) {
        call.started = true;
        yield { type: "tool-input-start", toolCallId: call.id, toolName: call.name };
        const buffered = call.args + piece;
        if (buffered)
          yield { type: "tool-input-delta", toolCallId: call.id, inputTextDelta: buffered };
      } else if (call.started && call.id !== null && piece) {
        yield { type: "tool-input-delta", toolCallId: call.id, inputTextDelta: piece };
      } else {
        call.args += piece;
      }
    }
  }

  function* onAIMessage(key: string, m: AIMessage): Generator<UIStreamChunk> {
    yield* enterStep(key);
    const t = tasks.get(key);
    tasks.delete(key);
    if (t) {
      for (const id of t.reasoning.values()) yield { type: "reasoning-end", id };
      if (t.text !== null) yield { type: "text-end", id: t.text };
    } else {
      for (const [i, part] of m.reasoning.entries()) {
        if (part.text === "") continue;
        const id = `${key}:reasoning:${i}`;
        yield { type: "reasoning-start", id };
        yield { type: "reasoning-delta", id, delta: part.text };
        yield { type: "reasoning-end", id };
      }
      const text = textOf(m.content);
      if (text) {
        const id = `${key}:text`;
        yield { type: "text-start", id };
        yield { type: "text-delta", id, delta: text };
        yield { type: "text-end", id };
      }
    }
    for (const call of m.toolCalls) {
      if (call.argumentsError !== null) {
        yield {
          type: "tool-input-error",
          toolCallId: call.id,
          toolName: call.name,
          input: call.arguments,
          errorText: call.argumentsError,
        };
      } else {
        yield {
          type: "tool-input-available",
          toolCallId: call.id,
          toolName: call.name,
          input: call.arguments,
        };
      }
    }
    for (const k of USAGE_TOKEN_KEYS) {
      const n = m.usage[k];
      if (typeof n === "number") usage[k] = (usage[k] ?? 0) + n;
    }
  }

  function onToolMessage(m: ToolMessage): UIStreamChunk | null {
    if (m.toolCallId === null) return null;
    const outcome = toolOutcome(m);
    if (outcome.kind === "denied") return { type: "tool-output-denied", toolCallId: m.toolCallId };
    if (outcome.kind === "error") {
      return { type: "tool-output-error", toolCallId: m.toolCallId, errorText: outcome.errorText };
    }
    return { type: "tool-output-available", toolCallId: m.toolCallId, output: outcome.output };
  }

  try {
    for await (const e of events) {
      const key = e.taskId ?? e.node ?? "run";
      if (e.mode === "tokens") {
        yield* onTokens(key, e.data as ChatStreamChunk);
      } else if (e.mode === "messages") {
        const m = e.data as AIMessage | ToolMessage | { type: string };
        if (m.type === "ai") yield* onAIMessage(key, m as AIMessage);
        else if (m.type === "tool") {
          const chunk = onToolMessage(m as ToolMessage);
          if (chunk) yield chunk;
        }
      } else if (e.mode === "custom") {
        const chunk = dataChunk(e.data, e);
        if (chunk) yield chunk;
      } else if (e.mode === "updates" && e.node === null) {
        const pending = (e.data as { __interrupt__?: PendingInterrupt[] }).__interrupt__;
        if (Array.isArray(pending)) interrupts = pending;
      }
    }
  } catch (error) {
    failed = true;
    yield { type: "error", errorText: errorText(error) };
  }

  let approvals = 0;
  for (const i of interrupts) {
    const approval = approvalOf(i);
    if (approval) {
      approvals++;
      yield {
        type: "tool-approval-request",
        approvalId: i.key,
        toolCallId: approval.toolCallId,
        ...(approval.question ? { reason: approval.question } : {}),
      };
    } else {
      yield { type: "data-interrupt", id: i.key, data: { key: i.key, value: i.value } };
    }
  }
  if (stepOf !== null) yield { type: "finish-step" };
  const finishReason: UIFinishReason = failed
    ? "error"
    : interrupts.length === 0
      ? "stop"
      : approvals > 0
        ? "tool-calls"
        : "other";
  yield {
    type: "finish",
    finishReason,
    messageMetadata: {
      status: failed ? "error" : interrupts.length > 0 ? "interrupted" : "done",
      usage,
    },
  };
}
