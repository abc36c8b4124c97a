/**
 * The shapes of the AI SDK's UI message stream protocol (`ai` v5 and later; header
 * `x-vercel-ai-ui-message-stream: v1`) that nodestep writes and reads, declared here so that
 * `nodestep/ai-sdk-ui` needs no `ai` package at run time. They are the `ai` package's
 * `UIMessageChunk` and `UIMessage` types, restricted to the parts nodestep uses.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../json/index.js";

/** Why a streamed answer ended, as the `finish` chunk says (the AI SDK's `FinishReason`). */
export type UIFinishReason = "stop" | "tool-calls" | "error" | "other";

/**
 * Token counts of a run (the sum over its model calls): the keys of nodestep's `Usage`
 * without `raw`, each present only when some call reported it.
 */
export interface UIUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cachedInputTokens?: number;
  reasoningTokens?: number;
}

/**
 * The metadata of the assistant message that the `finish` chunk carries (the UI message's
 * `metadata`): how the run ended and the tokens it used.
 */
export interface UIRunMetadata {
  /** `"done"`, `"interrupted"` (waiting for an answer, such as an approval) or `"error"`. */
  status: "done" | "interrupted" | "error";
  usage: UIUsage;
}

/**
 * One chunk of the UI message stream, sent as one server-sent event `data: <JSON>`.
 * The same shapes as the `ai` package's `UIMessageChunk`.
 */
export type UIStreamChunk =
  | { type: "start"; messageId?: string }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | { type: "tool-input-start"; toolCallId: string; toolName: string }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: JsonObject }
  | {
      type: "tool-input-error";
      toolCallId: string;
      toolName: string;
      input: JsonObject;
      errorText: string;
    }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string; reason?: string }
  | { type: "tool-approval-response"; approvalId: string; approved: boolean; reason?: string }
  | { type: "tool-output-available"; toolCallId: string; output: JsonValue }
  | { type: "tool-output-error"; toolCallId: string; errorText: string }
  | { type: "tool-output-denied"; toolCallId: string }
  | UIDataChunk
  | { type: "error"; errorText: string }
  | { type: "finish"; finishReason: UIFinishReason; messageMetadata: UIRunMetadata };

/** A `data-<name>` chunk: a custom event (`ctx.emit`) as a data part of the message. */
export interface UIDataChunk {
  type: `data-${string}`;
  /** Parts with the same type and id replace each other; without an id each is a new part. */
  id?: string;
  data: JsonValue;
  /** When `true` the client gets it (`onData`) but does not keep it in the message. */
  transient?: boolean;
}

/** A text part of a UI message. */
export interface UITextPart {
  type: "text";
  text: string;
  state?: "streaming" | "done";
}

/** A reasoning part of a UI message. */
export interface UIReasoningPart {
  type: "reasoning";
  text: string;
  state?: "streaming" | "done";
}

/** A file part of a UI message (`url` is often a `data:` URL). */
export interface UIFilePart {
  type: "file";
  mediaType: string;
  url: string;
  filename?: string;
}

/** Where a step (one model call and its tools) begins. */
export interface UIStepStartPart {
  type: "step-start";
}

/** An approval asked of, or answered by, a person (the key of the nodestep interrupt). */
export interface UIApproval {
  id: string;
  /** The question asked (the stream's `tool-approval-request` `reason`). */
  requestReason?: string;
  /** The person's answer, once given. */
  approved?: boolean;
  /** The reason the person gave with the answer. */
  reason?: string;
}

/**
 * A tool call: `type` is `tool-<tool name>`; `state` goes `input-streaming` →
 * `input-available` → (`approval-requested` → `approval-responded` →) `output-available`,
 * `output-error` or `output-denied`.
 */
export interface UIToolPart {
  type: `tool-${string}`;
  toolCallId: string;
  state:
    | "input-streaming"
    | "input-available"
    | "approval-requested"
    | "approval-responded"
    | "output-available"
    | "output-error"
    | "output-denied";
  input?: JsonValue;
  output?: JsonValue;
  errorText?: string;
  approval?: UIApproval;
}

/** A data part (`data-<name>`). */
export interface UIDataPart {
  type: `data-${string}`;
  id?: string;
  data: JsonValue;
}

/** One part of a {@link UIMessage}. */
export type UIMessagePart =
  | UITextPart
  | UIReasoningPart
  | UIFilePart
  | UIStepStartPart
  | UIToolPart
  | UIDataPart;

/** A message as `useChat` keeps it: the `ai` package's `UIMessage`. */
export interface UIMessage {
  id: string;
  role: "system" | "user" | "assistant";
  metadata?: unknown;
  parts: UIMessagePart[];
}
