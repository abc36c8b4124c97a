/**
 * How a `ToolMessage` reads in the UI: an output, an error or a denial. Shared by the stream
 * and by the history mapping, so a reloaded page shows what the stream showed.
 *
 * @module
 */
import type { ToolMessage } from "../../chat/messages.js";
import { textOf } from "../../chat/parts.js";
import type { JsonValue } from "../../json/index.js";
import { DENIED_BY_PERSON } from "../../middleware/approval.js";

/** What a tool message says, for the UI. */
export type ToolOutcome =
  | { kind: "output"; output: JsonValue }
  | { kind: "error"; errorText: string }
  | { kind: "denied" };

/** The prefix `toolRunner` gives a failed call's message (`toolErrors: "return"`). */
const TOOL_ERROR = "Tool error: ";

/**
 * Read a tool message: content starting `"Tool call denied by a person"` is a denial (the
 * approval middleware's), `"Tool error: …"` an error (the whole text is the error text), and
 * anything else an output: the tool's value when the content is `{"result": value}` as
 * `toolRunner` writes it, the parts when the content has parts, the text otherwise.
 */
export function toolOutcome(message: ToolMessage): ToolOutcome {
  const content = message.content;
  if (typeof content === "string") {
    if (content.startsWith(DENIED_BY_PERSON)) return { kind: "denied" };
    if (content.startsWith(TOOL_ERROR)) return { kind: "error", errorText: content };
    return { kind: "output", output: unwrapResult(content) };
  }
  if (content === null) return { kind: "output", output: null };
  const text = textOf(content);
  if (content.every((p) => p.type === "text") && text !== null) {
    return { kind: "output", output: text };
  }
  return { kind: "output", output: content as unknown as JsonValue };
}

function unwrapResult(text: string): JsonValue {
  if (!text.startsWith('{"result":')) return text;
  try {
    const value = JSON.parse(text) as { result?: JsonValue };
    return Object.keys(value).length === 1 && "result" in value ? (value.result ?? null) : text;
  } catch {
    return text;
  }
}
