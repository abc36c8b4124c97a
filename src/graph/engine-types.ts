/**
 * The engine's plain data: tasks, their results, a run's position, and what a run needs from
 * its graph and its caller.
 *
 * @module
 */

import type { Context, Tracer } from "@opentelemetry/api";
import type { InterruptInfo } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { MemoryStore } from "../memory/types.js";
import type { PreparedUpdate, StateDefinition } from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import type { WatchedAbort } from "./abort-race.js";
import type { Breakpoint, Breakpoints } from "./breakpoints.js";
import type { CompiledFlow } from "./compile.js";
import type { PendingInterrupt, StreamMode, TaskHost } from "./context.js";
import type { ErrorHandler, TaskError } from "./error-handler.js";
import type { NewInputCheck } from "./graph-options.js";
import type { Waiting } from "./joins.js";
import type { NodeCache, RetryPolicy } from "./policies.js";
import type { Command } from "./routing.js";
import type { SubAgents } from "./sub-agents.js";
import type { StreamEvent } from "./types.js";

/** A task to run: a node, with an optional `Send` payload. */
export interface TaskSpec {
  id: string;
  name: string;
  payload: Record<string, unknown> | null;
}

/** Where a finished task routes: `null` follows the node's edges. */
export type TaskRoutes = Array<{ name: string; payload: Record<string, unknown> | null }> | null;

/** What a finished task produced, as stored in a pending write. */
export interface TaskOutcome {
  update: PreparedUpdate | null;
  routes: TaskRoutes;
  /** The failure an `onError` handler turned into this outcome; absent otherwise. */
  error?: TaskError;
  /** `true` when the outcome came from the node cache (never stored in the log). */
  cached?: boolean;
  /** A `Command.PARENT` the node returned: the run ends with it (never stored in the log). */
  toParent?: Command;
}

/** A finished task's result: its outcome, marked done (one object, as 10,000 tasks of a fan-out hold theirs until the commit). */
export type DoneResult = TaskOutcome & {
  kind: "done";
  /**
   * `true` when the update shares nothing mutable with what the node holds or anything else
   * does (prepare-update.ts, `claimOwned`): the engine keeps it without a copy when no stream
   * saw it. Never stored.
   */
  owned?: boolean;
};

/** A task's result in the superstep. */
export type TaskResult =
  | DoneResult
  | { kind: "interrupted"; interrupts: PendingInterrupt[]; cache: JsonObject };

/** The graph internals a run needs. */
export interface EngineGraph {
  readonly name: string;
  readonly state: StateDefinition | null;
  readonly flow: CompiledFlow;
  readonly middleware: readonly unknown[];
  readonly workspace: unknown;
  readonly stateStore: StateStore | null;
  /** The run's memory store (the run's option, else the graph's), or `null`. */
  readonly memoryStore: MemoryStore | null;
  readonly maxSteps: number;
  /** Default retry policy of nodes without one. */
  readonly retry: RetryPolicy | null;
  /** Default error handler of nodes without one; absent or `null` for none. */
  readonly onError?: ErrorHandler | null;
  /** Where cached node results live. */
  readonly nodeCache: NodeCache | null;
  /** The tracer, or `null` (no spans at all). */
  readonly tracer: Tracer | null;
  /** Decides whether new input may start on a thread (`GraphOptions.checkInput`); absent or `null` for none. */
  readonly checkInput?: NewInputCheck | null;
}

/** Persistence hooks of a run; no-ops without a state store. */
export interface RunJournal {
  /** A finished task's result could not be applied: drop it, so the task runs again when the thread continues. */
  discardTask(step: number, taskId: string, node: string): Promise<void> | void;
  /** A task finished; `defer` lets the journal write it with the superstep's commit (a single-task superstep). */
  taskFinished(
    step: number,
    task: TaskSpec,
    outcome: TaskOutcome,
    defer?: boolean,
  ): Promise<void> | void;
  saveCache(step: number, taskId: string, node: string, cache: JsonObject): Promise<void> | void;
  /** Id of the last event written (after a commit: its `step_committed`), for `"checkpoints"` events. */
  readonly lastEventId?: string | null;
  /** The run that asked this one to stop (busy-thread policy "interrupt"), seen at the last commit. */
  readonly stoppedBy?: string | null;
  /** The source of the lease's signal (the run's own signal when it has no other): see `abort-race.ts`. */
  readonly leaseAbort?: WatchedAbort;
}

/** The mutable position of a run: the state, what runs next, and what waits (joins, deferred tasks). */
export interface RunPosition extends Waiting {
  state: Record<string, unknown>;
  step: number;
  tasks: TaskSpec[];
  /** Results already known for tasks of the pending superstep (finished before a pause or crash). */
  known: Map<string, TaskOutcome>;
  /** Caches of paused tasks, by task id. */
  caches: Map<string, JsonObject>;
  /** Answers to interrupts, by key. */
  answers: Record<string, JsonValue>;
  /** The superstep whose breakpoint the thread paused at and now continues past, if any. */
  passed?: number | null;
  /**
   * Whether `state` is this run's own copy, which its supersteps write in place (set by the
   * first superstep that writes; a position loaded, cached or given starts without it).
   */
  ownsState?: boolean;
}

/** Options of one run as the engine sees them. */
export interface EngineRunOptions {
  runId: string;
  rootRunId: string;
  originRunId: string;
  threadId: string | null;
  branchId: string;
  context: { value: unknown; given: boolean };
  signal: AbortSignal;
  modes: ReadonlySet<StreamMode>;
  modeList: readonly StreamMode[];
  emit: ((event: StreamEvent) => void) | null;
  maxSteps: number;
  /** At most this many tasks of a superstep run at once; absent or 0: no limit. */
  maxConcurrency?: number;
  /** Whether the run is a child run of `subgraph(...)` (its nodes may return `Command.PARENT`). */
  subgraph?: boolean;
  /** The fields `"values"` events show (the graph's `output`); absent or `null`: all. */
  output?: readonly string[] | null;
  /** The run's `interruptBefore` / `interruptAfter`, or `null` for none. */
  breakpoints?: Breakpoints | null;
  journal: RunJournal | null;
  /** The run's span context when traced. */
  traceContext: Context | null;
  /** The run's sub-agents, made on first use. */
  subAgents: () => SubAgents;
  /**
   * Called after each superstep is applied, before the next is scheduled into the position:
   * `state` is the state after it; `before` holds each field the superstep wrote as it was
   * before it (absent when the superstep added it; other fields may be missing). A throw or a
   * rejection leaves the position's state as it was before the superstep.
   */
  onStepCommitted:
    | ((
        step: number,
        order: readonly TaskSpec[],
        next: readonly TaskSpec[],
        state: Record<string, unknown>,
        before: Record<string, unknown>,
        waiting: Waiting | null,
      ) => Promise<void> | void)
    | null;
}

/** How a run of supersteps ended. */
export type LoopEnd =
  | { status: "completed" }
  /** Another run asked this one to stop (busy-thread policy "interrupt"); `by` is its id. */
  | { status: "stopped"; by: string }
  | {
      status: "interrupted";
      interrupts: InterruptInfo[];
      results: Map<string, TaskResult>;
      /** Set when the run paused at a static breakpoint (then `interrupts` is empty). */
      breakpoint?: Breakpoint;
    };

/** What every task of one superstep shares, made once per superstep. */
export interface StepRun {
  readonly graph: EngineGraph;
  readonly pos: RunPosition;
  readonly opts: EngineRunOptions;
  readonly host: TaskHost;
  readonly step: number;
}
