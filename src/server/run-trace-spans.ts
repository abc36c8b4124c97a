/**
 * The trace spans of one node's work in a run: its model calls (and those its middleware
 * made) and its tool calls, from the messages its stored update holds.
 *
 * @module
 */
import { toolOutcome } from "../cli/run-view.js";
import { middlewareCallsOf } from "../middleware/usage-totals.js";
import { isModelAnswer, isObject, messagesOf } from "./run-metrics-messages.js";
import type { TraceSpan } from "./wire-types.js";

/** One task of a run as the metrics measure it: its node, its times (ms since the epoch), its outcome. */
export interface NodeWork {
  node: string;
  step: number;
  taskId: string;
  start: number;
  end: number;
  status: TraceSpan["status"];
  detail: string;
  update: unknown;
  /** When each tool call's result was kept (`task_cache`), by tool call id, in ms since the epoch. */
  toolEnds: Record<string, number>;
}

/** `"<input> in · <output> out"` tokens of a reported usage. */
function tokensLine(usage: unknown): string {
  if (!isObject(usage)) return "no usage reported";
  const n = (k: string) => (typeof usage[k] === "number" ? (usage[k] as number) : 0);
  return `${n("inputTokens")} in · ${n("outputTokens")} out`;
}

/** Model and tool spans of one node's stored update. */
export function callSpans(
  w: NodeWork,
  parentId: string,
  relative: (ms: number) => number,
): TraceSpan[] {
  const spans: TraceSpan[] = [];
  const start = relative(w.start);
  const end = relative(w.end);
  for (const m of messagesOf(w.update)) {
    if (isModelAnswer(m)) {
      const meta = isObject(m.responseMetadata) ? m.responseMetadata : {};
      spans.push({
        id: `model:${String(m.id)}`,
        parentId,
        kind: "model",
        // As the usage totals name a model that reported none.
        name: typeof meta.model === "string" ? meta.model : "unknown",
        step: w.step,
        startMs: start,
        endMs: end,
        status: "ok",
        detail: tokensLine(m.usage),
      });
      middlewareCallsOf(m).forEach((call, i) => {
        spans.push({
          id: `model:${String(m.id)}:${call.middleware}:${i}`,
          parentId,
          kind: "model",
          name: call.model,
          step: w.step,
          startMs: start,
          endMs: end,
          status: "ok",
          detail: `${call.middleware}: ${tokensLine(call.usage)}`,
        });
      });
    } else if (m.type === "tool") {
      const outcome = toolOutcome(m.content, 80);
      spans.push({
        id: `tool:${String(m.toolCallId)}`,
        parentId,
        kind: "tool",
        name: typeof m.name === "string" ? m.name : "tool",
        step: w.step,
        startMs: start,
        endMs:
          typeof m.toolCallId === "string" && m.toolCallId in w.toolEnds
            ? relative(w.toolEnds[m.toolCallId]!)
            : end,
        status: outcome.startsWith("✗") ? "error" : "ok",
        detail: outcome,
      });
    }
  }
  return spans;
}
