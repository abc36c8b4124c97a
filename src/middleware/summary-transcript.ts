/**
 * The text a `SummarizationMiddleware` sends its summary model: the messages to summarize
 * written as a plain transcript, one line per message (tool calls and results included).
 *
 * @module
 */
import type { Message } from "../chat/messages.js";
import type { MessageContent } from "../chat/parts.js";

/** The text of content: its text parts joined, each other part as `[image]`, `[file]` or `[audio]`. */
function contentText(content: MessageContent): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join("");
}

/**
 * The transcript of messages, one line (or more, for multi-line text) per message:
 * `User: <text>`, `Assistant: <text>`, `Assistant refused: <text>`, `Assistant called
 * <tool>(<JSON arguments>)` for each tool call, `Tool <name> returned: <text>`, `System:
 * <text>`. An image, file or audio part is written `[image]`, `[file]`, `[audio]`; reasoning
 * is left out.
 *
 * @example
 * summaryTranscript([HumanMessage({ content: "Where is A-1?" })]) // "User: Where is A-1?"
 */
export function summaryTranscript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.type === "human") lines.push(`User: ${contentText(m.content)}`);
    else if (m.type === "system") lines.push(`System: ${contentText(m.content)}`);
    else if (m.type === "tool")
      lines.push(`Tool ${m.name ?? "(unnamed)"} returned: ${contentText(m.content)}`);
    else {
      const text = contentText(m.content);
      if (text !== "") lines.push(`Assistant: ${text}`);
      if (m.refusal !== null) lines.push(`Assistant refused: ${m.refusal}`);
      for (const c of m.toolCalls) {
        lines.push(`Assistant called ${c.name}(${JSON.stringify(c.arguments ?? {})})`);
      }
    }
  }
  return lines.join("\n");
}
