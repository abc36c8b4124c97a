/**
 * A run as the studio follows it: the stream events so far, the nodes running now (from the
 * stream's `tasks` events: a task's start adds its node, its result removes it) and the text
 * the model is streaming (from `tokens` events: a `ChatStreamChunk`'s `contentDelta` and `reasoningDelta.text`), folded by {@link applyRunEvent}.
 */
import type { Json, RunStreamEvent } from "./api.ts";

export interface LiveRun {
  runId: string | null;
  /** Every stream event so far, oldest first. */
  events: RunStreamEvent[];
  /** Nodes with a task running now (started, no result yet), in start order. */
  running: string[];
  /** Per task id, the text streamed so far by `tokens` events (`content` deltas). */
  tokens: Record<string, { node: string | null; text: string; reasoning: string }>;
  /** Messages the run's tasks added so far (from `updates` events' `messages`), oldest first. */
  messages: Json[];
}

export function emptyRun(): LiveRun {
  return { runId: null, events: [], running: [], tokens: {}, messages: [] };
}

function field(data: Json, name: string): Json | undefined {
  return data !== null && typeof data === "object" && !Array.isArray(data) ? data[name] : undefined;
}

/** The run after one more stream event (a new object; `run` is not changed). */
export function applyRunEvent(run: LiveRun, e: RunStreamEvent): LiveRun {
  const next: LiveRun = { ...run, events: [...run.events, e] };
  if (e.mode === "tasks" && e.node) {
    const kind = field(e.data, "kind");
    if (kind === "start") next.running = [...run.running, e.node];
    else if (kind === "result") {
      const i = run.running.indexOf(e.node);
      next.running =
        i < 0 ? run.running : [...run.running.slice(0, i), ...run.running.slice(i + 1)];
    }
  } else if (e.mode === "updates") {
    const added = field(e.data, "messages");
    if (Array.isArray(added) && added.length) next.messages = [...run.messages, ...added];
    // The task's message is in its update now: its streamed text is done.
    const key = e.taskId ?? e.node ?? "";
    if (key in run.tokens) {
      const { [key]: _done, ...rest } = run.tokens;
      next.tokens = rest;
    }
  } else if (e.mode === "tokens") {
    const key = e.taskId ?? e.node ?? "";
    const prev = run.tokens[key] ?? { node: e.node, text: "", reasoning: "" };
    // A ChatStreamChunk (nodestep/chat): contentDelta, reasoningDelta.text.
    const text = field(e.data, "contentDelta");
    const rd = field(e.data, "reasoningDelta");
    const reasoning = rd === undefined || rd === null ? undefined : field(rd, "text");
    next.tokens = {
      ...run.tokens,
      [key]: {
        node: e.node,
        text: prev.text + (typeof text === "string" ? text : ""),
        reasoning: prev.reasoning + (typeof reasoning === "string" ? reasoning : ""),
      },
    };
  }
  return next;
}
