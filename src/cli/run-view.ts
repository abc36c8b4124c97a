/**
 * The readable view of a run that `nodestep run` and `nodestep resume` print (without
 * `--verbose`): the model's text once, as its tokens come (`ai: …`); one line per tool call with
 * its arguments and its result or error; `•` lines for what nodes emit. Plain data in, text out:
 * the caller writes the text and draws the progress line from {@link RunView.running}.
 *
 * @module
 */
import type { StreamEvent } from "../graph/types.js";
import { DENIED_BY_PERSON } from "../middleware/approval.js";
import type { UsageReport } from "../middleware/usage-report.js";
import { shorten, showValue } from "./format.js";

/** A tool call the model asked for: its name and arguments. */
export interface CallInfo {
  name: string;
  arguments: unknown;
}

interface MessageLike {
  type?: unknown;
  content?: unknown;
  name?: unknown;
  refusal?: unknown;
  toolCalls?: unknown;
  toolCallId?: unknown;
  arguments?: unknown;
}

/** `{ orderId: "A-1", amount: 25 }` → `orderId=A-1, amount=25`, cut at `max` characters. */
export function showArguments(args: unknown, max = 80): string {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return showValue(args, max);
  const text = Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
  return shorten(text, max);
}

const TOOL_ERROR = "Tool error: ";

/**
 * A tool message's result in one short line: `→ result` (a `{"result": …}` wrapper unwrapped),
 * or `✗ error` for a tool that failed (content starting with `Tool error: `) or a call a person
 * denied (`Tool call denied by a person…`).
 * @example toolOutcome('{"result":{"ok":true}}') // '→ {"ok":true}'
 */
export function toolOutcome(content: unknown, max = 120): string {
  const text = typeof content === "string" ? content : (JSON.stringify(content) ?? "");
  if (text.startsWith(TOOL_ERROR)) return `✗ ${shorten(text.slice(TOOL_ERROR.length), max)}`;
  if (text.startsWith(DENIED_BY_PERSON)) return `✗ ${shorten(text, max)}`;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && "result" in parsed)
      return `→ ${showValue((parsed as { result: unknown }).result, max)}`;
  } catch {
    // not JSON: shown as it is
  }
  return `→ ${shorten(text, max)}`;
}

/** The calls of an AI message, by id. */
export function callsOf(m: MessageLike): [string, CallInfo][] {
  if (m.type !== "ai" || !Array.isArray(m.toolCalls)) return [];
  return (m.toolCalls as { id?: unknown; name?: unknown; arguments?: unknown }[]).map((c) => [
    String(c.id),
    { name: String(c.name), arguments: c.arguments ?? {} },
  ]);
}

/** Text of the readable view, event by event. */
export class RunView {
  /** Calls asked for and not answered yet, by tool call id, in order. */
  readonly #pending = new Map<string, CallInfo>();
  /** Calls known from before the run (a resumed turn's), by id. */
  readonly #known: Map<string, CallInfo>;
  /** Tasks whose text went out as tokens. */
  readonly #streamed = new Set<string>();
  /** Running tasks: id → node. */
  readonly #running = new Map<string, string>();
  /** A line of streamed text is open on stdout. */
  #open = false;

  /** @param known - tool calls asked for before the run (so a resumed call shows its arguments). */
  constructor(known: Iterable<[string, CallInfo]> = []) {
    this.#known = new Map(known);
  }

  /** The text to print for one stream event (`""` for none). */
  event(e: StreamEvent): string {
    if (e.mode === "tasks") {
      const d = e.data as { kind?: unknown } | null;
      if (d?.kind === "start" && e.taskId !== null) this.#running.set(e.taskId, e.node ?? "-");
      if (d?.kind === "result" && e.taskId !== null) this.#running.delete(e.taskId);
      return "";
    }
    if (e.mode === "tokens") {
      const delta = (e.data as { contentDelta?: unknown } | null)?.contentDelta;
      if (typeof delta !== "string" || delta === "") return "";
      this.#streamed.add(e.taskId ?? "");
      const head = this.#open ? "" : "ai: ";
      this.#open = true;
      return head + delta;
    }
    const lines: string[] = [];
    if (e.mode === "custom") lines.push(`• ${e.node ?? "-"}: ${showValue(e.data)}`);
    if (e.mode === "updates" && e.node !== null) {
      const messages = (e.data as { messages?: unknown } | null)?.messages;
      if (Array.isArray(messages)) {
        const streamed = this.#streamed.has(e.taskId ?? "");
        for (const m of messages as MessageLike[]) lines.push(...this.#message(m, streamed));
      }
      const ended = this.#streamed.delete(e.taskId ?? "");
      // The streamed turn is over: its line ends here, even when nothing follows on it.
      if (ended && this.#open && lines.length === 0) {
        this.#open = false;
        return "\n";
      }
    }
    return this.#lines(lines);
  }

  #message(m: MessageLike, streamed: boolean): string[] {
    if (m.type === "ai") {
      const out: string[] = [];
      const text = typeof m.content === "string" ? m.content : "";
      if (text !== "" && !streamed) out.push(`ai: ${text}`);
      if (typeof m.refusal === "string" && m.refusal !== "") out.push(`ai refused: ${m.refusal}`);
      for (const [id, call] of callsOf(m)) this.#pending.set(id, call);
      return out;
    }
    if (m.type === "tool") {
      const id = String(m.toolCallId);
      const call = this.#pending.get(id) ?? this.#known.get(id);
      this.#pending.delete(id);
      const name = String(m.name ?? call?.name ?? "tool");
      const args = m.arguments ?? call?.arguments;
      const shown = args === undefined ? "" : `(${showArguments(args)})`;
      return [`tool ${name}${shown} ${toolOutcome(m.content)}`];
    }
    return [];
  }

  /** Lines, after the open line of streamed text (if any) is closed. */
  #lines(lines: readonly string[]): string {
    if (lines.length === 0) return "";
    const close = this.#open ? "\n" : "";
    this.#open = false;
    return `${close}${lines.join("\n")}\n`;
  }

  /**
   * What runs now, for the progress line: the running nodes, with the tool calls waiting for
   * results (`act: order_status, refund`); `null` while text streams or nothing runs.
   */
  running(): string | null {
    if (this.#open || this.#running.size === 0) return null;
    const nodes = [...new Set(this.#running.values())].join(", ");
    const tools = [...this.#pending.values()].map((c) => c.name);
    return tools.length ? `${nodes}: ${tools.join(", ")}` : nodes;
  }

  /**
   * The text that ends the view: the open line closed, and a line for each call asked for that
   * did not run (`paused`: it waits on the answers; else it did not run).
   */
  end(paused: boolean): string {
    const lines = [...this.#pending.values()].map(
      (c) =>
        `tool ${c.name}(${showArguments(c.arguments)}) · ${paused ? "waiting (paused)" : "not run"}`,
    );
    this.#pending.clear();
    this.#running.clear();
    if (lines.length === 0) {
      const close = this.#open ? "\n" : "";
      this.#open = false;
      return close;
    }
    return this.#lines(lines);
  }
}

/** `1234567` → `1,234,567`. */
function count(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * The usage line of a run: model calls, tokens (input with the cached part, output) and, when
 * a price table was given, the cost in US dollars (to the millionth below $1, the cent above)
 * and the models it has no price for. `null` when no model call reported usage.
 * @example usageLine(report) // "usage: 2 model calls · 300 tokens (240 in, 40 of them cached; 60 out) · $0.000126"
 */
export function usageLine(report: UsageReport): string | null {
  const u = report.usage;
  if (u.calls === 0) return null;
  const cached = u.cachedInputTokens > 0 ? `, ${count(u.cachedInputTokens)} of them cached` : "";
  const parts = [
    `${u.calls} model call${u.calls === 1 ? "" : "s"}`,
    `${count(u.totalTokens)} tokens (${count(u.inputTokens)} in${cached}; ${count(u.outputTokens)} out)`,
  ];
  const cost = report.cost;
  if (cost !== null) {
    if (cost.unpriced.length < Object.keys(report.byModel).length)
      parts.push(`$${cost.usd.toFixed(cost.usd >= 1 ? 2 : 6)}`);
    if (cost.unpriced.length) parts.push(`no price for ${cost.unpriced.join(", ")}`);
  }
  return `usage: ${parts.join(" · ")}`;
}
