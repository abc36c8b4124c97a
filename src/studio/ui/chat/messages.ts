/**
 * The conversation in a thread's state, as the chat view shows it: the messages of a
 * `messages` field (nodestep/chat's shapes, as JSON) read into turns, each AI message with its
 * tool calls paired with the tool messages that answer them (by `toolCallId`), so that
 * parallel calls each show their own result.
 */
import type { Json } from "../api.ts";

/** A content part of a message (text, image, file, audio). */
export interface Part {
  type: string;
  text?: string;
  url?: string;
  data?: string;
  mediaType?: string;
  name?: string;
  format?: string;
}

/** A tool call of an AI message, with the tool message that answered it (or `null`: not yet). */
export interface ToolCallView {
  id: string;
  name: string;
  arguments: Json;
  argumentsError: string | null;
  result: { content: string | Part[] | null; arguments: Json } | null;
}

/** One message of the conversation as shown. */
export type ChatItem =
  | { kind: "human"; index: number; content: string | Part[] | null }
  | { kind: "system"; index: number; content: string | Part[] | null }
  | {
      kind: "ai";
      index: number;
      content: string | Part[] | null;
      reasoning: string;
      refusal: string | null;
      toolCalls: ToolCallView[];
    };

type Obj = { [key: string]: Json };
const isObj = (v: Json | undefined): v is Obj =>
  v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v);

function contentOf(v: Json | undefined): string | Part[] | null {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.filter(isObj) as unknown as Part[];
  return null;
}

/** Whether a state field looks like a list of chat messages. */
export function isMessageList(v: Json | undefined): v is Obj[] {
  return (
    Array.isArray(v) && v.every((m) => isObj(m) && typeof m.type === "string" && "content" in m)
  );
}

/** The name of the state's messages field: `messages`, or the first field holding messages. */
export function messagesField(state: Record<string, Json> | null): string | null {
  if (!state) return null;
  if (isMessageList(state.messages)) return "messages";
  for (const [k, v] of Object.entries(state)) if (isMessageList(v) && v.length > 0) return k;
  return null;
}

/** The conversation: human, system and AI messages in order; tool messages folded into their calls. */
export function chatItems(messages: readonly Json[]): ChatItem[] {
  const results = new Map<string, Obj>();
  for (const m of messages) {
    if (isObj(m) && m.type === "tool" && typeof m.toolCallId === "string")
      results.set(m.toolCallId, m);
  }
  const items: ChatItem[] = [];
  messages.forEach((m, index) => {
    if (!isObj(m)) return;
    if (m.type === "human") items.push({ kind: "human", index, content: contentOf(m.content) });
    else if (m.type === "system")
      items.push({ kind: "system", index, content: contentOf(m.content) });
    else if (m.type === "ai") {
      const calls = Array.isArray(m.toolCalls) ? m.toolCalls.filter(isObj) : [];
      const reasoning = Array.isArray(m.reasoning)
        ? m.reasoning
            .filter(isObj)
            .map((r) => (typeof r.text === "string" ? r.text : ""))
            .join("\n")
        : "";
      items.push({
        kind: "ai",
        index,
        content: contentOf(m.content),
        reasoning,
        refusal: typeof m.refusal === "string" ? m.refusal : null,
        toolCalls: calls.map((c) => {
          const id = String(c.id ?? "");
          const r = results.get(id);
          return {
            id,
            name: String(c.name ?? ""),
            arguments: c.arguments ?? {},
            argumentsError: typeof c.argumentsError === "string" ? c.argumentsError : null,
            result: r ? { content: contentOf(r.content), arguments: r.arguments ?? null } : null,
          };
        }),
      });
    }
  });
  return items;
}
