/**
 * `uiChatTurn`: what `useChat` sends (its request body) as a nodestep run: the new user
 * message as the thread's input, or the person's approval answers as the resume answers.
 *
 * @module
 */
import { z } from "zod";
import { HumanMessage } from "../../chat/messages.js";
import type { ContentPart } from "../../chat/parts.js";
import { ValueError } from "../../errors/index.js";
import type { JsonValue } from "../../json/index.js";
import type { ApprovalAnswer } from "../../middleware/approval.js";

const Part = z.looseObject({ type: z.string().min(1) });
const Message = z.looseObject({
  id: z.string(),
  role: z.enum(["system", "user", "assistant"]),
  parts: z.array(Part),
});
const Body = z.looseObject({
  id: z.string().min(1).optional(),
  messages: z.array(Message).min(1),
  trigger: z.enum(["submit-message", "regenerate-message"]).optional(),
  messageId: z.string().nullable().optional(),
  resume: z.record(z.string(), z.json()).optional(),
});
const TextPart = z.looseObject({ type: z.literal("text"), text: z.string() });
const FilePart = z.looseObject({
  type: z.literal("file"),
  mediaType: z.string().min(1),
  url: z.string().min(1),
  filename: z.string().optional(),
});
/** Keys that name an object's prototype machinery rather than an own field. */
const PROTOTYPE_KEYS = new Set(["__proto__", "constructor", "prototype"]);
const RespondedTool = z.looseObject({
  toolCallId: z.string(),
  state: z.literal("approval-responded"),
  approval: z.looseObject({
    id: z.string().min(1),
    approved: z.boolean(),
    reason: z.string().nullable().optional(),
  }),
});

/** Options of {@link uiChatTurn}. */
export interface UIChatTurnOptions {
  /** The state field the user's message is added to; default `"messages"`. */
  messagesField?: string;
}

/** A `useChat` request as a nodestep run: pass `input` and `resume` to `graph.stream`. */
export interface UIChatTurn {
  /** The chat's id (`useChat`'s `id`, the body's `id`), or `null` when the body has none. */
  threadId: string | null;
  /** `{ [messagesField]: [HumanMessage] }` for a new user message; `null` when resuming. */
  input: Record<string, unknown> | null;
  /** Answers by interrupt key, when the request answers approvals (or sends `resume`). */
  resume: Record<string, JsonValue> | undefined;
  /** Id of the assistant message the run continues (resuming), else `null`. */
  messageId: string | null;
}

function fail(message: string): never {
  throw new ValueError(`useChat request: ${message}`);
}

function userContent(parts: readonly { type: string }[], at: string): string | ContentPart[] {
  const content: ContentPart[] = [];
  parts.forEach((p, i) => {
    if (p.type === "text") {
      const t = TextPart.safeParse(p);
      if (!t.success) fail(`${at}.parts.${i}: a text part needs a string text`);
      content.push({ type: "text", text: t.data.text });
    } else if (p.type === "file") {
      const f = FilePart.safeParse(p);
      if (!f.success) fail(`${at}.parts.${i}: a file part needs mediaType and url`);
      const { mediaType, url, filename } = f.data;
      content.push(
        mediaType.startsWith("image/")
          ? { type: "image", url, mediaType }
          : { type: "file", url, mediaType, ...(filename ? { name: filename } : {}) },
      );
    }
    // Other parts (step-start, data, sources) carry nothing for the model.
  });
  if (content.length === 0 || content.every((p) => p.type === "text" && p.text === "")) {
    fail(`${at} has no text or file part`);
  }
  return content.every((p) => p.type === "text")
    ? content.map((p) => (p as { text: string }).text).join("")
    : content;
}

/**
 * Read a `useChat` request body (`{ id, messages, trigger, messageId, ...body }`; messages
 * are `UIMessage`s) as the run to start. The thread keeps the conversation, so only the
 * last message counts:
 *
 * - a `user` message: its text (and `file` parts: images as `ImagePart`, others as
 *   `FilePart`) becomes one `HumanMessage` with the UI message's id, the run's `input`;
 * - an `assistant` message with tool parts in state `approval-responded` (after
 *   `addToolApprovalResponse`): each answer goes to `resume` under the approval id (the
 *   interrupt key): `{ approved: true }`, or `{ approved: false, reason }` (an
 *   `ApprovalAnswer`), and `messageId` is that message's id.
 *
 * A body `resume` object (sent with `useChat`'s `body` option) is added to the answers, for
 * interrupts that are not approvals.
 *
 * @throws ValueError (message starting `useChat request:`) when the body is not such an
 *   object, `trigger` is `"regenerate-message"` (not supported: fork the thread instead), the
 *   last user message has no text or file, or the last message is an assistant message with
 *   no approval answer and no `resume` is given.
 * @example
 * ```ts
 * const turn = uiChatTurn(await request.json());
 * const events = agent.stream(turn.input, { threadId: turn.threadId ?? "t-1", resume: turn.resume, modes: UI_STREAM_MODES });
 * ```
 */
export function uiChatTurn(body: unknown, options: UIChatTurnOptions = {}): UIChatTurn {
  const parsed = Body.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.length ? i.path.join(".") : "body"}: ${i.message}`,
    );
    fail(problems.join("; "));
  }
  const b = parsed.data;
  if (b.trigger === "regenerate-message") {
    fail('trigger "regenerate-message" is not supported; fork the thread to answer again');
  }
  const threadId = b.id ?? null;
  const index = b.messages.length - 1;
  const last = b.messages[index] as z.infer<typeof Message>;
  const at = `messages.${index}`;
  if (last.role === "user") {
    if (b.resume !== undefined) fail("send resume answers without a new user message");
    const message = HumanMessage({ content: userContent(last.parts, at), id: last.id || null });
    return {
      threadId,
      input: { [options.messagesField ?? "messages"]: [message] },
      resume: undefined,
      messageId: null,
    };
  }
  if (last.role === "system") fail(`${at}: the last message is a system message`);
  const resume: Record<string, JsonValue> = { ...b.resume };
  for (const [i, part] of last.parts.entries()) {
    if (!part.type.startsWith("tool-") && part.type !== "dynamic-tool") continue;
    const r = RespondedTool.safeParse(part);
    if (!r.success) continue;
    const { id, approved, reason } = r.data.approval;
    // `resume[id] = …` with one of these would change the object's prototype (or shadow it),
    // not add an answer.
    if (PROTOTYPE_KEYS.has(id)) {
      fail(`${at}.parts.${i}.approval.id: "${id}" is not accepted as an interrupt key`);
    }
    const answer: ApprovalAnswer = approved
      ? { approved: true }
      : reason
        ? { approved: false, reason }
        : { approved: false };
    resume[id] = answer;
  }
  if (Object.keys(resume).length === 0) {
    fail(`${at}: the last message is an assistant message with no approval answer to send`);
  }
  return { threadId, input: null, resume, messageId: last.id || null };
}
