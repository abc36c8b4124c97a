/**
 * `toUIMessages`: a thread's messages as the `UIMessage`s `useChat` shows, so that a
 * reloaded page shows the conversation the stream showed.
 *
 * @module
 */
import type { AIMessage, HumanMessage, Message } from "../../chat/messages.js";
import { textOf } from "../../chat/parts.js";
import { isPlainObject } from "../../json/index.js";
import { toolOutcome } from "./tool-output.js";
import type { UIMessage, UIMessagePart, UIToolPart } from "./types.js";

/** Options of {@link toUIMessages}. */
export interface ToUIMessagesOptions {
  /**
   * The thread's pending interrupts (`getState(threadId).interrupts`): the calls waiting for
   * an `ApprovalMiddleware` answer are shown in state `approval-requested`, as the stream
   * left them.
   */
  interrupts?: readonly { key: string; value: unknown }[];
}

function userParts(m: HumanMessage): UIMessagePart[] {
  const content = m.content;
  if (content === null) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  const parts: UIMessagePart[] = [];
  for (const p of content) {
    if (p.type === "text") parts.push({ type: "text", text: p.text });
    else if ((p.type === "image" || p.type === "file") && p.url !== undefined) {
      parts.push({
        type: "file",
        mediaType: p.mediaType ?? (p.type === "image" ? "image/*" : "application/octet-stream"),
        url: p.url,
        ...(p.type === "file" && p.name ? { filename: p.name } : {}),
      });
    }
  }
  return parts;
}

function assistantParts(m: AIMessage): UIMessagePart[] {
  const parts: UIMessagePart[] = [{ type: "step-start" }];
  for (const r of m.reasoning) {
    if (r.text !== "") parts.push({ type: "reasoning", text: r.text, state: "done" });
  }
  const text = textOf(m.content);
  if (text) parts.push({ type: "text", text, state: "done" });
  for (const call of m.toolCalls) {
    parts.push(
      call.argumentsError !== null
        ? {
            type: `tool-${call.name}`,
            toolCallId: call.id,
            state: "output-error",
            input: call.arguments,
            errorText: call.argumentsError,
          }
        : {
            type: `tool-${call.name}`,
            toolCallId: call.id,
            state: "input-available",
            input: call.arguments,
          },
    );
  }
  return parts;
}

/**
 * A thread's messages (`getState(threadId).state.messages`) as `UIMessage`s, the way the
 * UI message stream built them:
 *
 * - a `HumanMessage`: a `user` message with its text (and its images and files with a `url`
 *   as `file` parts), id the message's;
 * - the `AIMessage`s and `ToolMessage`s after it: one `assistant` message (id the first
 *   `AIMessage`'s), each model message a step (`step-start`, reasoning, text, a
 *   `tool-<name>` part per call, `input-available`), each tool message setting its call's
 *   part to `output-available` (`output`: the tool's value), `output-error` or
 *   `output-denied`, read as the stream reads them;
 * - with `interrupts`: a call waiting for an approval is in state `approval-requested` with
 *   `approval: { id: <interrupt key>, requestReason: <question> }`.
 *
 * System messages are left out; so are the data parts of custom events (they are not in the
 * thread's messages) and the `approval` of calls answered before. A message without an id
 * gets `"m-<index>"`.
 *
 * @example
 * ```ts
 * const { state, interrupts } = await agent.getState(threadId);
 * return Response.json(toUIMessages(state.messages, { interrupts }));
 * ```
 */
export function toUIMessages(
  messages: readonly Message[],
  options: ToUIMessagesOptions = {},
): UIMessage[] {
  const out: UIMessage[] = [];
  const tools = new Map<string, UIToolPart>();
  let assistant: UIMessage | null = null;
  messages.forEach((m, i) => {
    const id = m.id ?? `m-${i}`;
    if (m.type === "system") return;
    if (m.type === "human") {
      assistant = null;
      out.push({ id, role: "user", parts: userParts(m) });
      return;
    }
    if (m.type === "ai") {
      if (assistant === null) {
        assistant = { id, role: "assistant", parts: [] };
        out.push(assistant);
      }
      for (const part of assistantParts(m)) {
        if (part.type.startsWith("tool-"))
          tools.set((part as UIToolPart).toolCallId, part as UIToolPart);
        assistant.parts.push(part);
      }
      return;
    }
    const part = m.toolCallId === null ? undefined : tools.get(m.toolCallId);
    if (!part) return;
    const outcome = toolOutcome(m);
    if (outcome.kind === "denied") part.state = "output-denied";
    else if (outcome.kind === "error") {
      part.state = "output-error";
      part.errorText = outcome.errorText;
    } else {
      part.state = "output-available";
      part.output = outcome.output;
    }
  });
  for (const i of options.interrupts ?? []) {
    const v = i.value;
    if (!isPlainObject(v) || typeof v.toolCallId !== "string") continue;
    const part = tools.get(v.toolCallId);
    if (part?.state !== "input-available") continue;
    part.state = "approval-requested";
    part.approval = {
      id: i.key,
      ...(typeof v.question === "string" && v.question ? { requestReason: v.question } : {}),
    };
  }
  return out;
}
