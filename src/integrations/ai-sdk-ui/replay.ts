/**
 * `uiMessageChunks`: the chunks that build a UI message again from nothing, for a stream that
 * replays a run which continues an earlier message (`useChat({ resume: true })` resets the
 * message before a replay, so the replay must carry its earlier parts too).
 *
 * @module
 */
import { isPlainObject, type JsonObject } from "../../json/index.js";
import type { UIMessage, UIStreamChunk, UIToolPart } from "./types.js";

function toolChunks(part: UIToolPart): UIStreamChunk[] {
  const toolCallId = part.toolCallId;
  const toolName = part.type.slice("tool-".length);
  const input: JsonObject = isPlainObject(part.input) ? (part.input as JsonObject) : {};
  if (part.state === "input-streaming") return [];
  if (part.state === "output-error" && part.errorText !== undefined && !part.approval) {
    return [
      { type: "tool-input-available", toolCallId, toolName, input },
      { type: "tool-output-error", toolCallId, errorText: part.errorText },
    ];
  }
  const out: UIStreamChunk[] = [{ type: "tool-input-available", toolCallId, toolName, input }];
  const approval = part.approval;
  if (approval) {
    out.push({
      type: "tool-approval-request",
      approvalId: approval.id,
      toolCallId,
      ...(approval.requestReason ? { reason: approval.requestReason } : {}),
    });
    if (approval.approved !== undefined) {
      out.push({
        type: "tool-approval-response",
        approvalId: approval.id,
        approved: approval.approved,
        ...(approval.reason ? { reason: approval.reason } : {}),
      });
    }
  }
  if (part.state === "output-available") {
    out.push({ type: "tool-output-available", toolCallId, output: part.output ?? null });
  } else if (part.state === "output-error") {
    out.push({ type: "tool-output-error", toolCallId, errorText: part.errorText ?? "" });
  } else if (part.state === "output-denied") {
    out.push({ type: "tool-output-denied", toolCallId });
  }
  return out;
}

/**
 * The chunks (after `start`) that rebuild `message`'s parts on a client: each `step-start` a
 * `start-step` … `finish-step`, each text and reasoning part its start, one delta and end
 * (ids `replay:<index>`), each tool part `tool-input-available` and what its state needs
 * (`tool-approval-request`, `tool-approval-response`, `tool-output-*`). File and data parts
 * are left out (an assistant message of a thread has none).
 */
export function uiMessageChunks(message: UIMessage): UIStreamChunk[] {
  const out: UIStreamChunk[] = [];
  let inStep = false;
  message.parts.forEach((part, i) => {
    const id = `replay:${i}`;
    if (part.type === "step-start") {
      if (inStep) out.push({ type: "finish-step" });
      out.push({ type: "start-step" });
      inStep = true;
    } else if (part.type === "text" || part.type === "reasoning") {
      const kind = part.type;
      out.push(
        { type: `${kind}-start`, id },
        { type: `${kind}-delta`, id, delta: part.text },
        { type: `${kind}-end`, id },
      );
    } else if (part.type.startsWith("tool-") && "toolCallId" in part) {
      out.push(...toolChunks(part as UIToolPart));
    }
  });
  if (inStep) out.push({ type: "finish-step" });
  return out;
}
