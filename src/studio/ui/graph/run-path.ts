/**
 * The path a run took through the graph, from the history entries (`GET …/history-view`):
 * the nodes of each superstep, in order, and the edges of the graph between them.
 *
 * @module
 */
import type { GraphView, HistoryEntry } from "../api.ts";

/** A {@link runPath} answer. */
export interface RunPath {
  /** The nodes of each superstep that ran (or paused), in order. */
  steps: string[][];
  /** The nodes visited, each once, in the order first visited (START and END included when reached). */
  nodes: string[];
  /** The graph's edges taken, as `"from>to"` keys. */
  edges: string[];
}

/** The key of an edge in {@link RunPath.edges}. */
export const edgeKey = (from: string, to: string): string => `${from}>${to}`;

/** Whether a `run_started` entry took input (a resume says `answered …` or `continue`). */
const startsFresh = (e: HistoryEntry) =>
  !e.summary.startsWith("answered ") && e.summary !== "continue";

/**
 * The entries of the latest run and the runs it resumes: from the last run that took input
 * (or the first entry) on; all of them up to `eventId` when one is chosen.
 */
export function currentRunEntries(
  entries: readonly HistoryEntry[],
  eventId: string | null = null,
): HistoryEntry[] {
  const upto = eventId === null ? entries.length : entries.findIndex((e) => e.id === eventId) + 1;
  const shown = entries.slice(0, upto > 0 ? upto : entries.length);
  const from = shown.findLastIndex((e) => e.type === "run_started" && startsFresh(e));
  return shown.slice(Math.max(0, from));
}

const STEP_TYPES = new Set(["step_committed", "task_interrupted", "task_finished"]);

/**
 * The path of the given entries (a branch's, up to an event, or one run's): supersteps by
 * their number, each with the nodes that committed or paused in it; an edge of the graph is
 * taken when it joins a node of one superstep to a node of the next. START leads in when the
 * first run of the entries took input (not a resume); END is reached when their last run
 * completed.
 *
 * @example runPath(view, entries) // { steps: [["think"], ["act"], ["think"]], nodes: ["__start__", "think", "act", "__end__"], edges: ["__start__>think", "think>act", "act>think", "think>__end__"] }
 */
export function runPath(view: GraphView, entries: readonly HistoryEntry[]): RunPath {
  const bySteps = new Map<number, string[]>();
  for (const e of entries) {
    if (!STEP_TYPES.has(e.type) || e.step === null) continue;
    const list = bySteps.get(e.step) ?? [];
    for (const n of e.nodes) if (!list.includes(n)) list.push(n);
    bySteps.set(e.step, list);
  }
  const steps = [...bySteps.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  const known = new Set(view.edges.map((e) => edgeKey(e.from, e.to)));
  const edges: string[] = [];
  const take = (from: string, to: string) => {
    const k = edgeKey(from, to);
    if (known.has(k) && !edges.includes(k)) edges.push(k);
  };
  const nodes: string[] = [];
  const visit = (n: string) => {
    if (!nodes.includes(n)) nodes.push(n);
  };
  const first = entries.find((e) => e.type === "run_started");
  if (first !== undefined && startsFresh(first) && steps.length > 0) {
    visit("__start__");
    for (const n of steps[0]!) take("__start__", n);
  }
  steps.forEach((step, i) => {
    for (const n of step) visit(n);
    const next = steps[i + 1];
    if (next) for (const a of step) for (const b of next) take(a, b);
  });
  const end = entries.findLast((e) => e.type === "run_finished" || e.type === "run_failed");
  if (end?.type === "run_finished" && end.summary === "completed" && steps.length > 0) {
    const last = steps.at(-1)!;
    if (last.some((n) => known.has(edgeKey(n, "__end__")))) {
      for (const n of last) take(n, "__end__");
      visit("__end__");
    }
  }
  return { steps, nodes, edges };
}
