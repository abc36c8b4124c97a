/**
 * Run metrics from the event log alone: per run and per node the latency, model calls,
 * tokens and cost, and a trace of the run (spans for the run, its nodes, their model calls
 * and tool calls) — no collector, nothing recorded beside the events the engine writes.
 *
 * Timing comes from the events' `createdAt` (ms): a superstep starts when the event before it
 * was written (its run's `run_started`, or the commit of the superstep before), and a node
 * ends when its outcome was written (`task_finished`, `task_interrupted`, or the commit of a
 * superstep of one task). A tool call ends when its result was kept for a resume
 * (`task_cache`, written as each call of a tools node finishes), else with its node; the log
 * has no other times inside a node, so model calls and the rest of the tool calls are spans
 * with their node's bounds (parallel calls side by side).
 *
 * @module
 */
import { emptyPosition, foldEvents, type ThreadPosition } from "../graph/thread-state.js";
import { costOf, type PriceTable } from "../middleware/prices.js";
import { middlewareCallsOf, usageFromEvents } from "../middleware/usage-totals.js";
import type { StateDefinition } from "../state/define-state.js";
import type { StoredEvent } from "../stores/types.js";
import {
  type Data,
  freshUpdate,
  isModelAnswer,
  isObject,
  messagesOf,
} from "./run-metrics-messages.js";
import { callSpans, type NodeWork } from "./run-trace-spans.js";
import type { NodeMetrics, RunMetrics, TraceSpan } from "./wire-types.js";

export type { NodeMetrics, RunMetrics, TraceSpan } from "./wire-types.js";

interface RunAcc {
  runId: string;
  start: number;
  last: number;
  status: RunMetrics["status"];
  stepStart: number;
  work: NodeWork[];
  /** Its updates, less the messages an earlier event wrote (see {@link freshUpdate}). */
  updates: unknown[];
  /** Tool results kept in the superstep going on, by task id, then tool call id. */
  kept: Map<string, Record<string, number>>;
  /** Its last event (for where a forked run was cut). */
  lastEvent: StoredEvent;
}

/** Options of {@link runMetrics}. */
export interface RunMetricsOptions {
  /**
   * The branch the events were read from; default: the branch of the last event. A run with
   * no end whose last event was written on another branch is `"forked"`.
   */
  branchId?: string;
}

/** The usage of stored updates, counted as the usage ledger counts them. */
function usageOf(runId: string, updates: unknown[]) {
  return usageFromEvents(
    updates.map(
      (update, i) =>
        ({
          type: "task_finished",
          runId,
          step: i,
          taskId: null,
          node: null,
          data: { update },
        }) as unknown as StoredEvent,
    ),
  );
}

function finish(
  acc: RunAcc,
  graphName: string,
  prices: PriceTable | null,
  countsModel: (w: NodeWork) => number,
): RunMetrics {
  const relative = (ms: number) => ms - acc.start;
  const spans: TraceSpan[] = [
    {
      id: "run",
      parentId: null,
      kind: "run",
      name: graphName,
      step: null,
      startMs: 0,
      endMs: relative(acc.last),
      status:
        acc.status === "failed" || acc.status === "stopped"
          ? "error"
          : acc.status === "completed"
            ? "ok"
            : acc.status,
      detail:
        acc.status === "stopped"
          ? "stopped: no end in the log (its process died), and a later run started"
          : acc.status === "forked"
            ? `forked: cut at the fork point (${acc.lastEvent.branchId} #${acc.lastEvent.seq})`
            : acc.status,
    },
  ];
  const byNode = new Map<string, NodeWork[]>();
  for (const w of acc.work) {
    const id = `node:${w.step}:${w.taskId}`;
    spans.push({
      id,
      parentId: "run",
      kind: "node",
      name: w.node,
      step: w.step,
      startMs: relative(w.start),
      endMs: relative(w.end),
      status: w.status,
      detail: w.detail,
    });
    spans.push(...callSpans(w, id, relative));
    const list = byNode.get(w.node) ?? [];
    list.push(w);
    byNode.set(w.node, list);
  }
  const total = usageOf(acc.runId, acc.updates);
  const nodes: NodeMetrics[] = [...byNode].map(([node, works]) => {
    const summary = usageOf(
      acc.runId,
      works.map((w) => w.update),
    );
    return {
      node,
      tasks: works.length,
      latencyMs: works.reduce((s, w) => s + (w.end - w.start), 0),
      modelCalls: works.reduce((s, w) => s + countsModel(w), 0),
      toolCalls: works.reduce(
        (s, w) => s + messagesOf(w.update).filter((m) => m.type === "tool").length,
        0,
      ),
      usage: summary.usage,
      cost: prices === null ? null : costOf(summary.byModel, prices),
    };
  });
  return {
    runId: acc.runId,
    status: acc.status,
    startedAt: acc.start,
    latencyMs: relative(acc.last),
    modelCalls: nodes.reduce((s, n) => s + n.modelCalls, 0),
    toolCalls: nodes.reduce((s, n) => s + n.toolCalls, 0),
    usage: total.usage,
    byModel: total.byModel,
    cost: prices === null ? null : costOf(total.byModel, prices),
    nodes,
    spans,
  };
}

/**
 * The metrics of every run on a branch, in the order the runs started (a resume is a run of
 * its own), from the branch's events (oldest first, as `graph.history` gives them).
 *
 * A model call is an `AIMessage` a task stored, or a call a middleware made in its step
 * (`responseMetadata.middlewareCalls`, such as a summary: a `"model"` span with id
 * `model:<messageId>:<middleware>:<i>` and detail `"<middleware>: <n> in · <n> out"`) (so a call that failed before its task stored
 * a result is not counted, as in the usage totals); a tool call is a `ToolMessage` a task
 * stored. A task that finished in an earlier run (before an interrupt) counts in that run.
 * On a fork, a run of the parent branch that has no end before the fork point is
 * `"forked"`: only its events up to the fork point are on the branch, so it is measured up to
 * there (and its work before the fork counts in the branch's totals, as in the usage route).
 *
 * @param def - the graph's state definition (`graph.state`).
 * @param prices - a checked price table (`checkPrices`), or `null`: then every `cost` is `null`.
 * @param options - `branchId`: the branch read (see {@link RunMetricsOptions}).
 * @example runMetrics(graph.state, await graph.history("t1"), "agent", null)[0].nodes[0]
 * // { node: "think", tasks: 2, latencyMs: 812, modelCalls: 2, toolCalls: 0, usage: {...}, cost: null }
 */
export function runMetrics(
  def: StateDefinition | null,
  events: readonly StoredEvent[],
  graphName: string,
  prices: PriceTable | null,
  options: RunMetricsOptions = {},
): RunMetrics[] {
  const branchId = options.branchId ?? events.at(-1)?.branchId ?? "main";
  const runs = new Map<string, RunAcc>();
  const written = new Set<string>();
  let pos: ThreadPosition = emptyPosition(def);
  for (const e of events) {
    const before = pos;
    pos = foldEvents(def, pos, [e]);
    if (e.type === "run_started") {
      // A run still "running" when another starts on its branch ended without a word (one
      // whose last event is on a parent branch was cut by the fork: "forked", below).
      for (const other of runs.values()) {
        if (
          other.status === "running" &&
          other.runId !== e.runId &&
          other.lastEvent.branchId === e.branchId
        )
          other.status = "stopped";
      }
      runs.set(e.runId, {
        runId: e.runId,
        start: e.createdAt,
        last: e.createdAt,
        status: "running",
        stepStart: e.createdAt,
        work: [],
        updates: [],
        kept: new Map(),
        lastEvent: e,
      });
    }
    const acc = runs.get(e.runId);
    if (acc === undefined) continue; // state_updated, rolled_back: no run of their own
    acc.last = e.createdAt;
    acc.lastEvent = e;
    const data: Data = isObject(e.data) ? e.data : {};
    const d: Data =
      (e.type === "task_finished" || e.type === "step_committed") && "update" in data
        ? { ...data, update: freshUpdate(data.update, written) }
        : data;
    if (d !== data) acc.updates.push(d.update);
    const work = (node: string, taskId: string, status: TraceSpan["status"], detail: string) =>
      acc.work.push({
        node,
        step: e.step ?? before.step,
        taskId,
        start: acc.stepStart,
        end: e.createdAt,
        status,
        detail,
        update: status === "ok" ? (d.update ?? null) : null,
        toolEnds: acc.kept.get(taskId) ?? {},
      });
    if (e.type === "task_finished" && e.taskId !== null) {
      const failed = isObject(d.error);
      work(
        e.node ?? "?",
        e.taskId,
        failed ? "error" : "ok",
        failed ? `${String((d.error as Data).name)}: ${String((d.error as Data).message)}` : "",
      );
    } else if (e.type === "task_interrupted" && e.taskId !== null) {
      const keys = Array.isArray(d.interrupts)
        ? d.interrupts.map((i) => String((i as Data).key)).join(", ")
        : "";
      work(e.node ?? "?", e.taskId, "interrupted", `asks ${keys}`);
    } else if (e.type === "task_cache" && e.taskId !== null && isObject(d.cache)) {
      const kept = acc.kept.get(e.taskId) ?? {};
      for (const id of Object.keys(d.cache)) kept[id] ??= e.createdAt;
      acc.kept.set(e.taskId, kept);
    } else if (e.type === "step_committed") {
      if (before.step === e.step) {
        const open = before.tasks.filter((t) => !(t.id in before.known));
        // One task left: the commit carries its update (a superstep of one task has no
        // task_finished). Of several, each wrote its own task_finished first.
        if (open.length === 1) work(open[0]!.name, open[0]!.id, "ok", "");
      }
      acc.stepStart = e.createdAt;
      acc.kept = new Map();
    } else if (e.type === "run_finished") {
      acc.status = d.status === "interrupted" ? "interrupted" : "completed";
    } else if (e.type === "run_failed") {
      acc.status = "failed";
      const err = isObject(d.error) ? d.error : {};
      const open = before.tasks.filter(
        (t) => !(t.id in before.known) && !acc.work.some((w) => w.taskId === t.id),
      );
      const detail = `${String(err.name ?? "Error")}: ${String(err.message ?? "")}`;
      for (const t of open) work(t.name, t.id, "error", detail);
    }
  }
  const models = (w: NodeWork) =>
    messagesOf(w.update)
      .filter(isModelAnswer)
      .reduce((n, m) => n + 1 + middlewareCallsOf(m).length, 0);
  for (const acc of runs.values()) {
    if (acc.status === "running" && acc.lastEvent.branchId !== branchId) acc.status = "forked";
  }
  return [...runs.values()].map((acc) => finish(acc, graphName, prices, models));
}
