/**
 * The JSON shapes the server's studio routes answer (docs/server.md), as TypeScript types:
 * one module shared by the server (its tsc build) and the studio's UI (its Vite/Preact build,
 * `src/studio/ui/api.ts`). Types only, with no import at all, so that either build can read it
 * without the other's dependencies; import it with `import type`.
 *
 * `UsageTotals` and `Cost` repeat `nodestep`'s own (`src/middleware/usage-totals.ts`,
 * `src/middleware/prices.ts`), `Json` repeats `JsonValue` (`src/json/index.ts`) and
 * `EventType` the store's (`src/stores/types.ts`), which the UI cannot import;
 * `wire-types.test.ts` checks that they stay the same types. `GraphView`, `JsonChange` and
 * `HistoryEntry` are declared here only: the server's modules (`graph-view.ts`,
 * `json-diff.ts`, `history-view.ts`) and the studio's `api.ts` re-export them.
 *
 * @module
 */

/** Token totals (tokens) and the model responses counted (`calls`). */
export interface UsageTotals {
  /** Input tokens, cached ones included. */
  inputTokens: number;
  /** Output tokens, reasoning included. */
  outputTokens: number;
  /** Input + output (the response's own `totalTokens` when it reported one). */
  totalTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  cachedInputTokens: number;
  /** Output tokens spent on reasoning. */
  reasoningTokens: number;
  /** Model responses counted. */
  calls: number;
}

/** A cost at the server's prices, in US dollars. */
export interface Cost {
  /** The cost of the priced models, in US dollars, rounded to 1e-9 (a billionth of a dollar). */
  usd: number;
  /** Cost by model (priced models only), in US dollars, rounded the same way. */
  byModel: Record<string, number>;
  /** Models that used tokens but have no price in the table (their tokens are not in `usd`). */
  unpriced: string[];
}

/** One span of a run's trace. Times are ms from the start of its run. */
export interface TraceSpan {
  /**
   * `"run"`, `"node:<step>:<taskId>"`, `"model:<messageId>"`, `"tool:<toolCallId>"`; a model
   * call a middleware made (a summary) is `"model:<messageId>:<middleware>:<i>"`.
   */
  id: string;
  parentId: string | null;
  kind: "run" | "node" | "model" | "tool";
  /** The graph's name for the run, the node's name, the model's name, the tool's name. */
  name: string;
  /** The superstep (for nodes, model and tool calls), or `null` for the run. */
  step: number | null;
  startMs: number;
  endMs: number;
  /** `"forked"` only for the run span of a run cut at a fork point (see `RunMetrics.status`). */
  status: "ok" | "error" | "interrupted" | "running" | "forked";
  /** A short line: a model call's tokens, a tool call's result, a node's error. */
  detail: string;
}

/** Metrics of one node over a run (all its tasks in it). */
export interface NodeMetrics {
  node: string;
  /** How many tasks of the node ran (one per superstep it was in, more with `Send`). */
  tasks: number;
  /** Sum of its tasks' latencies, in ms. */
  latencyMs: number;
  /** Model responses its tasks stored, and the model calls middleware made in them (summaries). */
  modelCalls: number;
  /** Tool results its tasks stored. */
  toolCalls: number;
  usage: UsageTotals;
  /** At the server's prices, or `null` without a price table. */
  cost: Cost | null;
}

/** Metrics of one run on a branch. */
export interface RunMetrics {
  runId: string;
  /**
   * From its last event: `"running"` until a `run_finished` or `run_failed`; `"stopped"` for a
   * run without either that a later run on the branch followed (its process was killed, or
   * its worker died and another took the run over as `<runId>~<n>`): one run at a time holds
   * a branch, so it is not going on; `"forked"` for a run with no end on this branch because
   * the branch forked off in the middle of it (its last event is a parent branch's, at or
   * before the fork point): its metrics stop there.
   */
  status: "completed" | "interrupted" | "failed" | "running" | "stopped" | "forked";
  /** When its `run_started` was written, in ms since the epoch. */
  startedAt: number;
  /** From `run_started` to its last event, in ms. */
  latencyMs: number;
  modelCalls: number;
  toolCalls: number;
  /** Token totals of the run (the same as the usage route's for this run). */
  usage: UsageTotals;
  byModel: Record<string, UsageTotals>;
  cost: Cost | null;
  /** By node, in the order the nodes first ran. */
  nodes: NodeMetrics[];
  /** The trace: the run span first, then each node span followed by its calls. */
  spans: TraceSpan[];
}

/** One thread of `GET /api/thread-list`: with its title (the first human message). */
export interface TitledThread {
  threadId: string;
  /** The first human message's text, on one line, at most 80 characters; `null` when none. */
  title: string | null;
  branches: string[];
  /** Time of the last event, in ms since the epoch. */
  updatedAt: number;
}

/** One branch of {@link branchTree}, with the forks made from it. */
export interface BranchNode {
  branchId: string;
  /** Where the fork starts: after `eventId` (seq `seq` of `branchId`); `null` for `"main"`. */
  parent: { branchId: string; seq: number; eventId: string | null; summary: string } | null;
  /** Seq of its last event. */
  lastSeq: number;
  /** Forks from this branch, by fork point then name. */
  children: BranchNode[];
}

/** A JSON value (the same type as `nodestep`'s `JsonValue`). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One edge of a {@link GraphView}. */
export interface GraphViewEdge {
  from: string;
  to: string;
  /** `"edge"`: always taken; `"when"` / `"otherwise"`: the two sides of a `when()`; `"goto"`: a declared `Command` target; `"join"`: one source of a `join()` (taken once all its sources finished). */
  kind: "edge" | "when" | "otherwise" | "goto" | "join";
  /**
   * For `"when"` and `"otherwise"` edges: the condition's name (its `ref`'s export name, else
   * the function's name, else `"when"`), and `"not <name>"` on the otherwise side.
   */
  label?: string;
}

/**
 * `GET /api/graph`: a graph's nodes and edges; `"__start__"` and `"__end__"` stand for START
 * and END.
 */
export interface GraphView {
  name: string;
  /** The graph's nodes, in the order they were declared. */
  nodes: string[];
  edges: GraphViewEdge[];
  /** Nodes every run pauses before / after (`"*"`: every node); empty lists for none. */
  breakpoints: { before: string[] | "*"; after: string[] | "*" };
  /** Deferred nodes (`defer: true`): they run once nothing else is left. */
  deferred: string[];
}

/** Where a change is: object keys and array indexes from the root (`[]` is the root itself). */
export type JsonPath = (string | number)[];

/** One change of a `diffJson` answer (a {@link HistoryEntry}'s `diff`). */
export type JsonChange =
  | { op: "add"; path: JsonPath; value: Json }
  | { op: "remove"; path: JsonPath; value: Json }
  | { op: "replace"; path: JsonPath; from: Json; to: Json };

/** The kinds of stored events (the same type as the store's `EventType`). */
export type EventType =
  | "run_started"
  | "task_finished"
  | "task_interrupted"
  | "task_cache"
  | "step_committed"
  | "model_request"
  | "model_response"
  | "tool_result"
  | "run_finished"
  | "run_failed"
  | "state_updated"
  | "rolled_back";

/** One entry of `GET /api/threads/:id/history-view` (the server's `historyEntries`). */
export interface HistoryEntry {
  /** The event's id (give it to `GET …/state?eventId=` or to a fork). */
  id: string;
  /** The branch the event was written on (a fork's parent events keep theirs). */
  branchId: string;
  seq: number;
  type: EventType;
  runId: string;
  step: number | null;
  /**
   * The nodes the event belongs to: the event's own node; for `step_committed` the nodes of the
   * superstep it commits; for `state_updated` the node it was written as (`asNode`), if any;
   * none for `run_started` (a run belongs to no node: its summary says what it took in), as in
   * `nodestep history`.
   */
  nodes: string[];
  /** One line: what the model said, which tools ran, what was interrupted or answered. */
  summary: string;
  /** When it was written, in ms since the epoch. */
  createdAt: number;
  /** The change of the state this event made (none for most events but commits and updates). */
  diff: JsonChange[];
  /** `true` when the diff had more than `maxChanges` changes and was cut there. */
  diffTruncated: boolean;
}
