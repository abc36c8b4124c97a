import type { InterruptInfo } from "../errors/index.js";
import type { JsonValue } from "../json/index.js";
import type { MemoryStore } from "../memory/types.js";
import type { StateStore } from "../stores/types.js";
import type { Breakpoint, BreakpointNodes } from "./breakpoints.js";
import type { BusyPolicy } from "./busy.js";
import type { StreamMode } from "./context.js";
import type { Durability } from "./durability.js";
import type { CheckpointData, DebugEventData, TaskEventData } from "./stream-modes.js";

/**
 * One stream event, untyped (`onEvent` of `invoke` gets these; `graph.stream` yields the typed
 * {@link StreamEventOf}). `node`, `taskId` are `null` for `"values"` and `"checkpoints"` events
 * (and their `"debug"` wrappers) of the graph itself; a subgraph's events carry
 * `node: "<subgraph name>/<child node>"` (`"<subgraph name>"` for its state and commits).
 */
export interface StreamEvent {
  mode: StreamMode;
  /** Node that produced it. */
  node: string | null;
  /** Superstep it belongs to. */
  step: number;
  /** Task that produced it. */
  taskId: string | null;
  /**
   * `"values"`: the state; `"updates"`: the task's update (`{}` when none); `"custom"`: what
   * `emit` got; `"tokens"`: a `ChatStreamChunk`; `"messages"`: a `Message`; `"tasks"`: a
   * {@link TaskEventData}; `"checkpoints"`: a {@link CheckpointData}; `"debug"`: a {@link DebugEventData}.
   */
  data: unknown;
  /** `"updates"` only: `true` when the task's result came from the node cache; absent otherwise. */
  cached?: true;
}

/** What every event of a {@link StreamEventOf} has besides `mode` and `data`. */
export interface StreamEventFields {
  /** Node that produced it; `null` for `"values"` and for the interrupt event. */
  node: string | null;
  /** Superstep it belongs to. */
  step: number;
  /** Task that produced it; `null` for `"values"`. */
  taskId: string | null;
}

/**
 * An event of `graph.stream` on a graph whose state is `S`, with `data` typed by `mode`:
 * `"values"` the state; `"updates"` a task's prepared update (`{}` when none; the event a
 * paused run ends with is `{ __interrupt__: [...] }`); `"custom"` what a node or tool emitted;
 * `"tokens"` a `ChatStreamChunk` and `"messages"` a `Message` (from `nodestep/chat`; the engine
 * does not know their types: narrow with `isTokensEvent` / `isMessagesEvent` from `nodestep`);
 * `"tasks"` a {@link TaskEventData} (`kind: "start"` or `"result"`); `"checkpoints"` a
 * {@link CheckpointData}; `"debug"` a {@link DebugEventData} (`type: "task"`, `"task_result"`
 * or `"checkpoint"`). `"values"` events carry `V`: the graph's output fields when it has an
 * output schema (`GraphOutput`), else `S`; `"checkpoints"` carry the whole state `S`. A
 * subgraph's `"values"` and `"checkpoints"` events (`node` is the subgraph's name) carry the
 * child's state, not `S`.
 *
 * @example
 * ```ts
 * for await (const e of graph.stream(input, { modes: ["values"] })) {
 *   if (e.mode === "values") console.log(e.data.count); // typed as the state's field
 * }
 * ```
 */
export type StreamEventOf<S, V = S> =
  | (StreamEventFields & { mode: "values"; data: V })
  | (StreamEventFields & { mode: "updates"; data: Record<string, unknown>; cached?: true })
  | (StreamEventFields & { mode: "custom"; data: unknown })
  | (StreamEventFields & { mode: "tokens"; data: unknown })
  | (StreamEventFields & { mode: "messages"; data: unknown })
  | (StreamEventFields & { mode: "tasks"; data: TaskEventData })
  | (StreamEventFields & { mode: "checkpoints"; data: CheckpointData<S> })
  | (StreamEventFields & { mode: "debug"; data: DebugEventData<S> });

/** Options of `graph.invoke` and `graph.stream`. */
export interface RunOptions<C = unknown> {
  /** Thread to run on; needs a state store. */
  threadId?: string;
  /** Branch of the thread; default `"main"`. */
  branchId?: string;
  /** Anything nodes and tools read as `ctx.context`; never stored. */
  context?: C;
  /** Cancels the run promptly when it fires; the run fails with `RunCancelledError`. */
  signal?: AbortSignal;
  /** Answers to pending interrupts by key, with `invoke(null, { threadId, resume })`. */
  resume?: Record<string, JsonValue>;
  /** Superstep limit of this call; default the graph's `maxSteps`. */
  maxSteps?: number;
  /** Id of the outermost run, when this run is nested in another. */
  rootRunId?: string;
  /**
   * The run's id: `RunResult.runId`, the `runId` of the events it stores, its lease's owner;
   * default a new one (`"run-<hex>-<n>"`). Give each run its own, except to go on with a run
   * that another process started and could not finish (a BullMQ worker taking over a dead
   * worker's run: the thread's log then shows the two parts under one id). `nodestep serve`
   * gives its runs its own ids, so that the server's run id is the stored one.
   * @example `await graph.invoke(input, { threadId: "t1", runId: "r-0123456789abcdef" })`
   */
  runId?: string;
  /** Run on this store instead of the graph's (subgraphs and sub-agents run on their parent's). */
  stateStore?: StateStore | null;
  /** Long-term memory of this run (`ctx.memoryStore`) instead of the graph's; `null` for none. Subgraphs without their own get their parent's. */
  memoryStore?: MemoryStore | null;
  /** With `invoke`: called with each stream event of `modes` as it happens (a callback-style stream that still returns the result). */
  onEvent?: (event: StreamEvent) => void;
  /** With `invoke` and `onEvent`: which events; default none. */
  modes?: readonly StreamMode[];
  /**
   * Pause before a superstep with a task of one of these nodes (`"*"`: any); replaces the
   * graph's `interruptBefore` for this run (`[]`: none). Needs a `threadId`. See docs/breakpoints.md.
   */
  interruptBefore?: BreakpointNodes;
  /**
   * Pause after a superstep with a task of one of these nodes (`"*"`: any), when something
   * runs next; replaces the graph's `interruptAfter` for this run (`[]`: none). Needs a `threadId`.
   */
  interruptAfter?: BreakpointNodes;
  /**
   * At most this many tasks of one superstep run at once (a positive integer); default the
   * graph's `maxConcurrency` (no limit). Tasks start in task order; the order updates are
   * applied in does not change. See docs/concurrency.md.
   */
  maxConcurrency?: number;
  /**
   * What this run does when another run holds its thread's branch ("double texting"; see
   * docs/busy-threads.md; LangGraph Platform: `multitaskStrategy`): `"reject"` (default)
   * fails at once with `ThreadBusyError`; `"enqueue"` waits for the other run to end;
   * `"interrupt"` asks the other run to stop at its next superstep boundary (it ends with
   * `RunStoppedError`, what it committed kept) and then runs; `"rollback"` does the same and
   * undoes the stopped run first (a `rolled_back` event; its events stay in the history). The
   * rollback is this run's first write and stays even when the run is then refused (the
   * graph's `checkInput`, a resume key no interrupt waits on): the refusal is about the
   * thread as rolled back, which is what the store holds.
   * Needs a `threadId`. Works across processes that share a SQLite file or a PostgreSQL schema.
   * @example `graph.invoke(input, { threadId: "t1", onBusy: "interrupt" })`
   */
  onBusy?: BusyPolicy;
  /**
   * With `onBusy` `"enqueue"`, `"interrupt"` or `"rollback"`: how long to wait for the thread, in ms (an
   * integer from 0 to 3,600,000; default 30,000). When it passes, the run fails with
   * `ThreadBusyError` and nothing was run.
   */
  onBusyTimeoutMs?: number;
  /**
   * When this run's events reach the state store (LangGraph's `durability`, same names):
   * `"sync"` (default) writes each superstep before the next starts, so a process kill loses
   * nothing the store acknowledged; `"async"` sends a superstep's append and goes on without
   * waiting (a kill may lose the last few supersteps, which run again when the thread
   * continues); `"exit"` holds every event until the run completes, pauses or fails (a kill
   * loses the whole run). The run's end is awaited in every mode. See {@link Durability} and
   * docs/stores.md, "Durability". No effect without a `threadId`.
   * @example `await graph.invoke(input, { threadId: "t1", durability: "async" })`
   */
  durability?: Durability;
}

/** Options of `graph.stream`. */
export interface StreamOptions<C = unknown> extends RunOptions<C> {
  /** Stream modes; default `["updates"]`. */
  modes?: readonly StreamMode[];
}

/** The result of a run. */
export interface RunResult<S> {
  /** The state when the run ended (before the paused superstep, when interrupted). */
  state: S;
  runId: string;
  threadId: string | null;
  branchId: string;
  /** `"completed"`, or `"interrupted"` when a task paused for human input. */
  status: "completed" | "interrupted";
  /** The pending interrupts (empty unless interrupted; empty at a breakpoint). */
  interrupts: InterruptInfo[];
  /** The static breakpoint the run paused at, or `null`. `invoke(null, { threadId })` continues past it. */
  breakpoint: Breakpoint | null;
}
