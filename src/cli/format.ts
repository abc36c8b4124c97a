/**
 * How the CLI prints a run: readable lines for people, one JSON object a line with `--json`.
 *
 * @module
 */
import type { InterruptInfo } from "../errors/index.js";
import type { StreamEvent } from "../graph/types.js";

/** Shorten a text to `max` characters, on one line. */
export function shorten(text: string, max = 160): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** A value in one short line: strings as they are, anything else as JSON. */
export function showValue(value: unknown, max = 160): string {
  return shorten(typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)), max);
}

interface MessageLike {
  type?: unknown;
  content?: unknown;
  name?: unknown;
  toolCalls?: unknown;
}

function messageLines(m: MessageLike, skipAiText: boolean): string[] {
  const text = typeof m.content === "string" ? m.content : "";
  switch (m.type) {
    case "human":
      return [`you: ${shorten(text)}`];
    case "system":
      return [`system: ${shorten(text)}`];
    case "tool":
      return [`  ← ${String(m.name ?? "tool")}: ${shorten(text)}`];
    case "ai": {
      const lines = text && !skipAiText ? [`ai: ${shorten(text, 400)}`] : [];
      if (Array.isArray(m.toolCalls)) {
        for (const call of m.toolCalls as { name?: unknown; arguments?: unknown }[]) {
          lines.push(`  → ${String(call.name)}(${showValue(call.arguments ?? {}, 120)})`);
        }
      }
      return lines;
    }
    default:
      return [showValue(m)];
  }
}

/**
 * Lines for one stream event (`[step] node: …`); `streamed` names the nodes whose text already
 * went out as tokens, so their AI text is not printed twice.
 */
export function eventLines(event: StreamEvent, streamed: ReadonlySet<string>): string[] {
  const where = `[${event.step}] ${event.node ?? "-"}`;
  if (event.mode === "custom") return [`${where} • ${showValue(event.data)}`];
  if (event.mode === "values") return [`${where} state ${showValue(event.data)}`];
  if (event.mode !== "updates") return [];
  const data = (event.data ?? {}) as Record<string, unknown>;
  if (event.node === null && "__interrupt__" in data) return [];
  const lines: string[] = [];
  const fields: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (key === "messages" && Array.isArray(value)) {
      for (const m of value as MessageLike[]) {
        for (const line of messageLines(m, streamed.has(event.node ?? ""))) {
          lines.push(`${where}: ${line}`);
        }
      }
    } else {
      fields.push(`${key}=${showValue(value, 80)}`);
    }
  }
  if (fields.length) lines.unshift(`${where}: ${fields.join(" ")}`);
  if (lines.length === 0) lines.push(`${where}: (no update)`);
  return lines;
}

/** The answer of a finished run: the last AI message's text, or `null` when there is none. */
export function answerOf(state: unknown): string | null {
  const messages = (state as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as MessageLike;
    if (m?.type === "ai" && typeof m.content === "string" && m.content !== "") return m.content;
  }
  return null;
}

/** Lines that list pending interrupts. */
export function interruptLines(interrupts: readonly InterruptInfo[]): string[] {
  return interrupts.map((i) => {
    const v = i.value as { tool?: unknown; question?: unknown } | null;
    // An approval (`ApprovalMiddleware`): its question, which names the tool and its arguments.
    const shown =
      typeof v?.tool === "string" && typeof v.question === "string"
        ? shorten(v.question)
        : showValue(i.value);
    return `  ${i.key} (node ${i.node}): ${shown}`;
  });
}

/** Quote a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./#-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
