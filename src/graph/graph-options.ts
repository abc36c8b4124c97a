/**
 * The options of `new Graph(state, options)` and the types a graph's state definition gives
 * its state, input and updates.
 *
 * @module
 */
import type { Tracer } from "@opentelemetry/api";
import type { InterruptInfo } from "../errors/index.js";
import type { MemoryStore } from "../memory/types.js";
import type { StateDefinition, StateShape, UpdateOfShape } from "../state/define-state.js";
import type { StateStore, StoredEvent } from "../stores/types.js";
import type { BreakpointNodes } from "./breakpoints.js";
import type { ErrorHandler } from "./error-handler.js";
import type { FieldSchema } from "./io-schema.js";
import type { NodeCache, RetryPolicy } from "./policies.js";
import type { Command } from "./routing.js";

/**
 * Options of {@link Graph}. `O` is the type of `output` (inferred by `new Graph`), which types
 * a run's result ({@link GraphOutput}).
 */
export interface GraphOptions<O extends FieldSchema | undefined = FieldSchema | undefined> {
  /** Graph name, shown in errors and events; default `"graph"`. */
  name?: string;
  /** Store of threads, interrupts and history; `null` runs without threads. */
  stateStore?: StateStore | null;
  /** Workspace exposed to nodes and tools as `ctx.workspace`. */
  workspace?: unknown;
  /**
   * Long-term memory shared across threads, exposed to nodes and tools as `ctx.memoryStore`
   * (LangGraph: the graph's `store`); a run's `memoryStore` option replaces it. Default none.
   */
  memoryStore?: MemoryStore | null;
  /** Superstep limit per call; default 25. */
  maxSteps?: number;
  /** Middleware of every run, in order; nodes see it as `ctx.middleware`. */
  middleware?: readonly unknown[];
  /** How long a run's single-writer lease on its thread lasts without renewal, in ms; default 30,000, at most 2,147,483,647 (2^31 − 1, about 24.8 days: `TypeError` beyond). A run renews it as it goes; a process that dies leaves it to expire. */
  leaseTtlMs?: number;
  /** Default retry policy of nodes that have none; default none. */
  retry?: RetryPolicy;
  /** Where the results of nodes with a `cache` policy live; default a `MemoryNodeCache` of this graph. `new StoreNodeCache(store)` shares it through a state store. */
  nodeCache?: NodeCache;
  /** OpenTelemetry tracer for spans of runs, supersteps, nodes, model and tool calls; `true` takes `trace.getTracer("nodestep")`. Default none: no span is made. */
  tracer?: Tracer | boolean;
  /** Pause every run on a thread before a superstep with a task of one of these nodes (`"*"`: any); LangGraph's `interruptBefore`. Checked against the flow when a run starts. See docs/breakpoints.md. */
  interruptBefore?: BreakpointNodes;
  /** Pause every run on a thread after a superstep with a task of one of these nodes (`"*"`: any), when something runs next; LangGraph's `interruptAfter`. */
  interruptAfter?: BreakpointNodes;
  /** Default error handler of nodes that have none (see `NodeOptions.onError`); default none. See docs/error-handlers.md. */
  onError?: ErrorHandler;
  /** At most this many tasks of one superstep run at once (a positive integer); default no limit. A run's `maxConcurrency` replaces it. LangGraph's `maxConcurrency`. See docs/concurrency.md. */
  maxConcurrency?: number;
  /**
   * The fields a run's input may have (LangGraph's `input` schema): a list of state field
   * names, or a `defineState` definition whose fields are fields of this state. `invoke` and
   * `stream` refuse an input with another field (`StateUpdateError` naming it). Default: every
   * field. See docs/input-output.md.
   */
  input?: FieldSchema;
  /**
   * The fields a run's result and its `"values"` events show (LangGraph's `output` schema),
   * as for `input`. The thread's state keeps every field (`getState` shows them all). Default:
   * every field. A list of literal names (or a definition) also types the result: `invoke`
   * returns `RunResult<GraphOutput<D, O>>`, those fields only.
   */
  output?: O;
  /**
   * Called when a run brings new input to a thread that has history, before anything is
   * written (see {@link NewInputCheck}); throwing refuses the run. Default none. LangGraph has
   * no equivalent. See docs/interrupts-and-approval.md.
   */
  checkInput?: NewInputCheck;
}

/**
 * What {@link NewInputCheck} is given: the thread's position and the new input.
 * Read only: `state`, `input` and `interrupts` are views of the thread's own objects (not
 * copies); changing them throws a `TypeError`, which refuses the run.
 */
export interface NewInputOnThread {
  /** The graph's name. */
  readonly graph: string;
  readonly threadId: string;
  readonly branchId: string;
  /**
   * The thread's state the input would be applied to, as the store holds it: after an
   * `onBusy: "rollback"` or a stable subgraph's rewind, whose `rolled_back` event is already
   * written (see `rolledBack`).
   */
  readonly state: Readonly<Record<string, unknown>>;
  /** The input as the run would apply it (checked against the state definition). */
  readonly input: Readonly<Record<string, unknown>>;
  /** The interrupts the thread waits on, as the store holds them; new input today drops them. */
  readonly interrupts: readonly InterruptInfo[];
  /**
   * The nodes of the superstep that would run next on the thread (`getState(...).next`), empty
   * when nothing is left to run: what `invoke(null)` would continue (a refusal advising it
   * can check there is something to continue; `refuseInputAfterOpenCalls` does).
   */
  readonly next: readonly string[];
  /**
   * The runs this run undid before the check (those an `onBusy: "rollback"` stopped, or a
   * stable subgraph child's runs its parent never committed), in order; empty for none. Their
   * `rolled_back` event is written and stays when the check refuses: say so in a refusal
   * (`refuseInputAfterOpenCalls` does), as the thread is no longer as its caller last saw it.
   */
  readonly rolledBack: readonly string[];
  /**
   * Read the branch's events (oldest first, as `graph.history` lists them), as the store holds
   * them when called: for a refusal that names an event, such as the one to fork at
   * (`refuseInputAfterOpenCalls` does). Each call reads the store again. Call it while the
   * check runs (or from the promise it returns): once the run has ended, the store it reads may
   * be closed (a `StateStoreError` then).
   */
  readonly events: () => Promise<readonly StoredEvent[]>;
}

/**
 * `GraphOptions.checkInput`: decides whether a run's new input may start on a thread. Called
 * on runs with a `threadId` whose branch has history, after the input is checked against the
 * state and after the busy-thread policy let the run take the thread (its lease), before the
 * run writes its `run_started`. With `onBusy: "rollback"` the stopped runs are undone first
 * (their `rolled_back` event written, the caller's explicit request): the check is given the
 * thread as rolled back. Throwing (or a rejected promise) refuses the run: the caller gets the
 * error as thrown and the thread is as the check saw it (its events, its pending interrupts;
 * a rollback stays done). No timeout: the run holds the thread's lease while the promise is
 * pending. Not called for `invoke(null)`, a `Command`, a run without a thread, or a
 * new thread. `buildReactAgent` sets one that refuses input after unanswered tool calls.
 *
 * @example
 * ```ts
 * const graph = new Graph(State, {
 *   stateStore,
 *   checkInput: ({ threadId, interrupts }) => {
 *     if (interrupts.length > 0) throw new ValueError(`Thread "${threadId}" waits on an answer`);
 *   },
 * });
 * ```
 */
export type NewInputCheck = (input: NewInputOnThread) => void | Promise<void>;

/** The state type of a graph built on a definition, or a plain object. */
export type GraphState<D> =
  D extends StateDefinition<infer S>
    ? { [K in keyof S]: StateDefinition<S>["State"][K] }
    : Record<string, unknown>;
/**
 * The type of a run's result state (`RunResult.state`, the `"values"` events) for a graph on
 * `D` with the `output` option `O`: the state's type without an output schema; its listed
 * fields when `output` is a list of literal field names (`["answer"]` → `{ answer: string }`)
 * or a `defineState` definition; every field optional when the names are not known to the
 * compiler (an `output` typed `string[]`).
 *
 * @example
 * ```ts
 * const g = new Graph(State, { output: ["answer"] }); // invoke(...) → RunResult<{ answer: string }>
 * ```
 */
export type GraphOutput<D, O> = [O] extends [undefined]
  ? GraphState<D>
  : [O] extends [readonly (infer K)[]]
    ? string extends K
      ? Partial<GraphState<D>>
      : Pick<GraphState<D>, K & keyof GraphState<D>>
    : [O] extends [StateDefinition<infer S2>]
      ? string extends keyof S2
        ? Partial<GraphState<D>>
        : Pick<GraphState<D>, keyof S2 & keyof GraphState<D>>
      : Partial<GraphState<D>>;

/**
 * The input type of a graph: an update of its state, `null` to continue a thread, or a
 * `Command` that continues a thread with `resume` answers, an `update` and a `goto`.
 */
export type GraphInput<D> = GraphUpdate<D> | Command<GraphState<D>> | null;

/** An update of a graph's state, as a node returns it and as `graph.updateState` takes it. */
export type GraphUpdate<D> =
  D extends StateDefinition<infer S extends StateShape>
    ? UpdateOfShape<S>
    : Record<string, unknown>;
