/**
 * How the CLI prints a run: readable lines for people, one JSON object a line with `--json`.
 *
 * @module
 */
import type { InterruptInfo } from "../errors/index.js";
import type { StreamEvent } from "../graph/types.js";
import type { StoredEvent } from "../stores/types.js";

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
  return interrupts.map((i) => `  ${i.key} (node ${i.node}): ${showValue(i.value)}`);
}

/** One line for a stored event of `nodestep history`. */
export function historyLine(e: StoredEvent): string {
  const step = e.step === null ? "" : ` step ${e.step}`;
  const node = e.node === null ? "" : ` ${e.node}`;
  return `${e.id}  ${e.type}${node}${step}  ${summary(e)}`.trimEnd();
}

function summary(e: StoredEvent): string {
  const data = e.data as Record<string, unknown> | null;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return "";
  switch (e.type) {
    case "run_started":
      if (data.input) {
        const input = data.input as { messages?: unknown };
        const last = Array.isArray(input.messages) ? (input.messages.at(-1) as MessageLike) : null;
        if (last && typeof last.content === "string")
          return `input: ${last.type}: ${shorten(last.content, 80)}`;
        return `input ${showValue(data.input, 80)}`;
      }
      return data.resume && Object.keys(data.resume as object).length
        ? `resume ${showValue(data.resume, 80)}`
        : "continue";
    case "task_interrupted":
      return showValue(data.interrupts ?? data, 100);
    case "run_finished":
      return showValue(data.status ?? "", 40);
    case "run_failed":
      return showValue(data.error ?? data, 100);
    case "state_updated":
      return stateUpdatedSummary(data);
    default:
      return "";
  }
}

/**
 * The summary of a `state_updated` event (written by `graph.updateState`, or a `Command` given
 * as run input): the update as stored (`no update` when it wrote nothing), then either the
 * nodes it leads to (`next: a, b`; `next: (none)` when the thread ends there) or
 * `next unchanged` (the tasks that were next stay next).
 */
function stateUpdatedSummary(data: Record<string, unknown>): string {
  const update =
    data.update === undefined || data.update === null
      ? "no update"
      : `update ${showValue(data.update, 80)}`;
  if (!Array.isArray(data.next)) return `${update}, next unchanged`;
  const names = data.next.map((t: unknown) =>
    typeof t === "string" ? t : String((t as { name?: unknown }).name),
  );
  return `${update}, next: ${names.length ? names.join(", ") : "(none)"}`;
}
