/**
 * `Graph`: a state definition, nodes and edges, run superstep by superstep. Its options and
 * state types are in `graph-options.ts` (made into its settings by `graph-settings.ts`), its
 * runs are set up in `run-setup.ts` (streamed by `run-stream.ts`), its thread operations are
 * in `thread-ops.ts` (loaded on first use by `load-operations.ts`), `clearCache` in
 * `clear-cache.ts`, and its option checks in `run-options.ts`.
 *
 * @module
 */
import type { Tracer } from "@opentelemetry/api";
import { GraphConfigError } from "../errors/index.js";
import type { MemoryStore } from "../memory/types.js";
import type { StateDefinition } from "../state/define-state.js";
import type { BranchInfo, DeleteThreadOptions, StateStore, StoredEvent } from "../stores/types.js";
import type { BreakpointNodes } from "./breakpoints.js";
import { clearNodeCache } from "./clear-cache.js";
import { type CompiledFlow, compileFlow } from "./compile.js";
import type { StreamMode } from "./context.js";
import type { ErrorHandler } from "./error-handler.js";
import { type FromSpecOptions, fromSpec } from "./from-spec.js";
import type {
  GraphInput,
  GraphOptions,
  GraphOutput,
  GraphState,
  GraphUpdate,
  NewInputCheck,
} from "./graph-options.js";
import { graphSettings } from "./graph-settings.js";
import type { FieldSchema } from "./io-schema.js";
import { withOperations } from "./load-operations.js";
import { toMermaid } from "./mermaid.js";
import type { Edge } from "./node.js";
import type { NodeCache, RetryPolicy } from "./policies.js";
import { checkModes, checkRunOptions } from "./run-options.js";
import type { PositionCache } from "./run-setup.js";
import { streamRun } from "./run-stream.js";
import { type GraphSpec, toSpec } from "./spec.js";
import type { UpdateStateOptions } from "./state-update.js";
import type { ThreadSnapshot } from "./thread-ops.js";
import type { RunOptions, RunResult, StreamEvent, StreamEventOf, StreamOptions } from "./types.js";

export type {
  GraphInput,
  GraphOptions,
  GraphOutput,
  GraphState,
  GraphUpdate,
  NewInputCheck,
  NewInputOnThread,
} from "./graph-options.js";
export { newRunId } from "./run-id.js";
export type { ThreadSnapshot } from "./thread-ops.js";

/**
 * A graph: nodes over a typed state, joined by edges, run superstep by superstep.
 *
 * A superstep runs every scheduled task concurrently, then applies their updates through the
 * reducers in task order (the order the tasks were scheduled), so a run does not depend on
 * which task finished first.
 *
 * @example
 * ```ts
 * const State = defineState({ count: reducer(z.number().default(0), (a, b) => a + b) });
 * const inc = node(() => ({ count: 1 }), { name: "inc" });
 * const graph = new Graph(State).flow(START.to(inc), inc.to(END));
 * const { state } = await graph.invoke({ count: 1 }); // state.count === 2
 * ```
 */
export class Graph<
  D extends StateDefinition | null = null,
  const O extends FieldSchema | undefined = undefined,
> {
  /** The graph's name. */
  readonly name: string;
  /** The state definition, or `null` for a plain-object state. */
  readonly state: D;
  readonly stateStore: StateStore | null;
  readonly workspace: unknown;
  /** The graph's memory store, or `null`. */
  readonly memoryStore: MemoryStore | null;
  readonly maxSteps: number;
  readonly middleware: readonly unknown[];
  readonly leaseTtlMs: number;
  /** Default retry policy of nodes that have none. */
  readonly retry: RetryPolicy | null;
  /** Where cached node results live (made on first use when not given). */
  nodeCache: NodeCache | null;
  /** The tracer, or `null`. */
  readonly tracer: Tracer | null;
  /** Nodes every run pauses before (see {@link GraphOptions.interruptBefore}). */
  readonly interruptBefore: BreakpointNodes | undefined;
  /** Nodes every run pauses after (see {@link GraphOptions.interruptAfter}). */
  readonly interruptAfter: BreakpointNodes | undefined;
  /** Default error handler of nodes that have none, or `null`. */
  readonly onError: ErrorHandler | null;
  /** At most this many tasks of a superstep at once, or `null` for no limit. */
  readonly maxConcurrency: number | null;
  /** The fields a run's input may have (see {@link GraphOptions.input}), or `null` for every field. */
  readonly inputFields: readonly string[] | null;
  /** The fields a result and a `"values"` event show (see {@link GraphOptions.output}), or `null` for every field. */
  readonly outputFields: readonly string[] | null;
  /** Decides whether new input may start on a thread (see {@link GraphOptions.checkInput}), or `null`. */
  readonly checkInput: NewInputCheck | null;
  #flow: CompiledFlow | null = null;
  #positions: PositionCache = new WeakMap();

  /**
   * @param state - a {@link defineState} definition, or `null` for a plain-object state (last write wins).
   * @param options - see {@link GraphOptions}; any other key is refused.
   * @throws TypeError if `state` is neither, `options` is not an object or has a key that is
   *   not a graph option (a misspelled `maxStep`, say), `stateStore` is not a store, or
   *   `input` / `output` is neither a non-empty list of field names nor a state definition;
   *   ValueError if `maxSteps` or `maxConcurrency` is not a positive integer, or `input` /
   *   `output` names a field the state does not have.
   */
  constructor(state: D = null as D, options: GraphOptions<O> = {}) {
    const settings = graphSettings(state, options);
    this.state = settings.state as D;
    this.name = settings.name;
    this.stateStore = settings.stateStore;
    this.workspace = settings.workspace;
    this.memoryStore = settings.memoryStore;
    this.middleware = settings.middleware;
    this.leaseTtlMs = settings.leaseTtlMs;
    this.retry = settings.retry;
    this.nodeCache = settings.nodeCache;
    this.tracer = settings.tracer;
    this.interruptBefore = settings.interruptBefore;
    this.interruptAfter = settings.interruptAfter;
    this.maxConcurrency = settings.maxConcurrency;
    this.onError = settings.onError;
    this.inputFields = settings.inputFields;
    this.outputFields = settings.outputFields;
    this.maxSteps = settings.maxSteps;
    this.checkInput = settings.checkInput;
  }

  /**
   * Set the graph's edges and check them; returns the graph. A graph has one flow: call it once.
   * @throws GraphConfigError for an unknown node name, a duplicate name, a node with no way out,
   *   a target that is not a node, or no edge from START; or when the graph already has a flow.
   */
  flow(...edges: Edge[]): this {
    if (this.#flow) {
      throw new GraphConfigError(
        `Graph "${this.name}" already has a flow; flow() sets all of a graph's edges at once, so pass them in one call, or build a new Graph for another flow`,
        { graph: this.name },
      );
    }
    this.#flow = compileFlow(this.name, edges);
    return this;
  }

  /** The compiled flow. @throws GraphConfigError before `flow()`. */
  get compiled(): CompiledFlow {
    if (!this.#flow)
      throw new GraphConfigError(
        `Graph "${this.name}" has no flow; call graph.flow(START.to(...), ...) first`,
        { graph: this.name },
      );
    return this.#flow;
  }

  /** Names of the graph's nodes. */
  get nodeNames(): string[] {
    return [...this.compiled.nodes.keys()];
  }

  /**
   * A JSON description of the graph: name, state fields, nodes with `ref`, edges and
   * conditions, `goto`. See `toSpec` in `spec.ts`.
   * @throws GraphConfigError before `flow()`.
   * @example JSON.stringify(graph.toSpec())
   */
  toSpec(): GraphSpec {
    return toSpec(this as Graph<StateDefinition | null>);
  }

  /**
   * The graph as a Mermaid flowchart. See `toMermaid` in `spec.ts`.
   * @throws GraphConfigError before `flow()`.
   * @example console.log(graph.toMermaid())
   */
  toMermaid(): string {
    return toMermaid(this as Graph<StateDefinition | null>);
  }

  /**
   * Build a graph back from `graph.toSpec()`, finding code only through `options.resolve`.
   * See `fromSpec` in `spec.ts`.
   * @example const graph = await Graph.fromSpec(spec, { state: State, resolve: refResolver(modules) });
   */
  static fromSpec<D extends StateDefinition | null = null>(
    spec: unknown,
    options: FromSpecOptions<D>,
  ): Promise<Graph<D, FieldSchema | undefined>> {
    return fromSpec(spec, options);
  }

  /**
   * Run the graph to the end (or to a pause) and return the final state.
   *
   * @param input - an update applied to the initial (or the thread's) state; `null` continues a thread.
   * @returns `{ state, runId, threadId, branchId, status, interrupts }`; `state` has only the
   *   graph's `output` fields when it has an output schema.
   * @throws StateUpdateError for invalid input or updates (and an input field outside the graph's `input`); GraphExecutionError, StepLimitError, NodeTimeoutError, RunCancelledError; whatever a node throws.
   */
  invoke(input: GraphInput<D>, options: RunOptions = {}): Promise<RunResult<GraphOutput<D, O>>> {
    // Not an async function (the run's own promise, not one more around it); what the checks
    // throw is a rejection all the same.
    try {
      checkRunOptions(this.name, options);
      const modes = options.modes ?? [];
      checkModes(modes);
      // The state is picked to the output fields by the run (run-setup.ts).
      return this.#run(
        input,
        options,
        options.onEvent && modes.length ? options.onEvent : null,
        options.onEvent ? modes : [],
      );
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Run the graph and yield its events as they happen. Leaving the loop early cancels the run.
   *
   * @param options.modes - which events: `"values"`, `"updates"` (default), `"custom"`, `"tokens"`,
   *   `"messages"`, `"tasks"`, `"checkpoints"`, `"debug"` (see docs/streaming.md).
   * @throws ValueError for an unknown mode (before anything runs).
   * @example
   * ```ts
   * for await (const e of graph.stream(input, { modes: ["updates", "tokens"] })) console.log(e.mode, e.node);
   * ```
   */
  stream(
    input: GraphInput<D>,
    options: StreamOptions = {},
  ): AsyncIterable<StreamEventOf<GraphState<D>, GraphOutput<D, O>>> {
    checkRunOptions(this.name, options);
    const modes = options.modes ?? ["updates"];
    checkModes(modes);
    return streamRun<StreamEventOf<GraphState<D>, GraphOutput<D, O>>>(
      this.name,
      options,
      modes,
      (runOptions, emit, modeList) => this.#run(input, runOptions, emit, modeList),
    );
  }

  #run(
    input: GraphInput<D>,
    options: RunOptions,
    emit: ((e: StreamEvent) => void) | null,
    modeList: readonly StreamMode[],
  ): Promise<RunResult<GraphOutput<D, O>>> {
    return withOperations(
      (o) =>
        o.runGraph(this, this.#positions, input, options, emit, modeList) as Promise<
          RunResult<GraphOutput<D, O>>
        >,
    );
  }

  /**
   * The state of a thread's branch: after its last event, or after `eventId` (time travel).
   *
   * @returns `{ state, step, next, interrupts, status, lastEventId }`: `next` names the nodes of the
   *   superstep that runs next (empty when the thread is done), `status` that of the last run.
   *   With `subgraphs: true`, also `subgraphs`: for each task of the next superstep that is a
   *   subgraph with a child thread, `{ node, threadId, branchId, snapshot }` (the child's
   *   `getState`, as this branch sees it; LangGraph: `getState(config, { subgraphs: true })`).
   * @throws GraphConfigError without a store; UnknownBranchError for an unknown branch; UnknownEventError for an event not on it.
   * @throws TypeError if `subgraphs` is not a boolean.
   */
  getState(
    threadId: string,
    options: {
      branchId?: string;
      eventId?: string;
      stateStore?: StateStore;
      subgraphs?: boolean;
    } = {},
  ): Promise<ThreadSnapshot<GraphState<D>>> {
    return withOperations((o) => o.getThreadState(this, this.#positions, threadId, options));
  }

  /**
   * Drop cached node results (LangGraph's `clearCache`): of the named nodes, or of every node
   * of this graph. A graph whose nodes have no `cache` policy has nothing to clear.
   * @throws TypeError when `nodes` is not a list of strings; ValueError for a name that is not
   *   a node of the flow; GraphConfigError when the graph's `nodeCache` has no `clear` method.
   * @example await graph.clearCache(["fetchPrice"]);
   */
  async clearCache(nodes?: readonly string[]): Promise<void> {
    await clearNodeCache(this.name, this.compiled, this.nodeCache, nodes);
  }

  /**
   * Change a thread's state from outside a node (LangGraph's `updateState`): `update` goes
   * through the reducers as if `asNode` had returned it, and `asNode`'s edges, evaluated on
   * the new state, decide what runs next; without `asNode` the tasks that were next stay next
   * (and what they already did or asked is kept). Recorded as one `state_updated` event.
   * Fork first for "edit and branch". Continue with `invoke(null, { threadId })`.
   *
   * @returns the thread's state after it, as `getState` shows it.
   * @throws GraphConfigError without a store; UnknownBranchError for an unknown branch;
   *   ValueError when `asNode` is not a node; StateUpdateError (or what a reducer throws) for
   *   an update a node could not return, naming `asNode` (or "the update given to updateState");
   *   ThreadBusyError while a run holds the thread; TypeError for bad options.
   * @example await graph.updateState("t-1", { approved: true }, { asNode: "review" });
   */
  updateState(
    threadId: string,
    update: GraphUpdate<D>,
    options: UpdateStateOptions = {},
  ): Promise<ThreadSnapshot<GraphState<D>>> {
    return withOperations((o) =>
      o.updateThreadState(this, this.#positions, threadId, update, options),
    );
  }

  /**
   * The events of a thread's branch, oldest first (a fork's parent events first).
   * @throws GraphConfigError without a store; UnknownBranchError for an unknown branch.
   */
  history(threadId: string, options: { branchId?: string } = {}): Promise<StoredEvent[]> {
    return withOperations((o) => o.threadHistory(this, threadId, options));
  }

  /**
   * A new branch of a thread whose history stops at `eventId`; run on it with `{ threadId, branchId }`.
   * Copies nothing.
   * @returns the new branch: `{ threadId, branchId, parent, lastSeq }`.
   * @throws UnknownEventError when the event is not in the thread.
   */
  fork(threadId: string, options: { eventId: string; branchId?: string }): Promise<BranchInfo> {
    return withOperations((o) => o.forkThread(this, threadId, options));
  }

  /**
   * Delete a thread from the graph's store: all its branches, events, snapshots and leases
   * (with `children: true`, the threads of its subgraphs and sub-agents too), the entries of
   * the graph's node cache that runs on those threads wrote (`NodeCache.forgetThread`), and the
   * position this graph kept of it. A later run with the same `threadId` starts a new thread.
   * LangGraph: `checkpointer.deleteThread(threadId)`.
   * @returns the ids of the threads deleted (`[]` when there was none).
   * @throws GraphConfigError without a store; ThreadBusyError when a run holds the thread
   *   (nothing is deleted); ValueError for an unknown option; StateStoreError for an invalid id.
   * @example
   * ```ts
   * await graph.deleteThread("t1", { children: true }); // ["t1", "t1:research"]
   * ```
   */
  deleteThread(threadId: string, options: DeleteThreadOptions = {}): Promise<string[]> {
    return withOperations((o) => o.deleteGraphThread(this, this.#positions, threadId, options));
  }
}
