/**
 * Run setup: a run's options checked, the engine's view of the graph made, and the run wired
 * to its thread: the state store, the single-writer lease and the journal of events (or no
 * thread at all), its sub-agents and its span. `Graph.invoke` and `Graph.stream` run through
 * {@link runGraph}. Where a run on a thread starts is in `thread-run-start.ts`, how it ends
 * (its last event and the position it leaves) in `thread-run-end.ts`.
 *
 * @module
 */
import type { Context } from "@opentelemetry/api";
import { GraphConfigError, GraphExecutionError } from "../errors/index.js";
import { applyRunInput } from "../state/apply-update.js";
import { initialState, prepareUpdate, type StateDefinition } from "../state/define-state.js";
import { copyState } from "../state/state-copy.js";
import type { StateStore } from "../stores/types.js";
import { childBreakpoint } from "./breakpoints.js";
import { DEFAULT_BUSY_TIMEOUT_MS } from "./busy.js";
import type { StreamMode } from "./context.js";
import { checkDurability } from "./durability.js";
import {
  type EngineGraph,
  type EngineRunOptions,
  type LoopEnd,
  type RunPosition,
  runLoop,
} from "./engine.js";
import type { Graph, GraphInput, GraphState } from "./graph.js";
import { checkInputFields, type FieldSchema, pickOutput } from "./io-schema.js";
import { ThreadJournal } from "./journal.js";
import { isSubgraphRun, subgraphParentTask } from "./parent-command.js";
import { resolveNodeCache } from "./policies.js";
import { type PositionCache, positionsOf } from "./position-cache.js";
import { Command } from "./routing.js";
import { checkRunArguments } from "./run-checks.js";
import { notifyRunEnd } from "./run-end.js";
import { newRunId } from "./run-id.js";
import { checkMemoryStore, checkRunOptions } from "./run-options.js";
import { scheduleStart } from "./schedule.js";
import { SubAgents } from "./sub-agents.js";
import { finishThreadRun, recordRunError } from "./thread-run-end.js";
import { startThreadRun } from "./thread-run-start.js";
import { endWithError, startSpan } from "./tracing.js";
import type { RunOptions, RunResult, StreamEvent } from "./types.js";

export { type PositionCache, positionsOf, rememberPosition } from "./position-cache.js";

/**
 * Run `graph` once: to the end, or to a pause. `emit` receives the events of `modeList`.
 * @throws what `Graph.invoke` documents.
 */
export async function runGraph<D extends StateDefinition | null>(
  graph: Graph<D, FieldSchema | undefined>,
  positions: PositionCache,
  input: GraphInput<D>,
  options: RunOptions,
  emit: ((e: StreamEvent) => void) | null,
  modeList: readonly StreamMode[],
): Promise<RunResult<GraphState<D>>> {
  const flow = graph.compiled;
  checkRunOptions(graph.name, options);
  const runId = options.runId ?? newRunId();
  const threadId = options.threadId ?? null;
  const branchId = options.branchId ?? "main";
  const maxSteps = options.maxSteps ?? graph.maxSteps;
  const runStore = options.stateStore ?? graph.stateStore;
  if (threadId !== null && runStore === null) {
    throw new GraphConfigError(
      `Graph "${graph.name}" was run with threadId "${threadId}" but has no stateStore; threads need one (new Graph(State, { stateStore }))`,
      { graph: graph.name },
    );
  }
  const command = input instanceof Command ? input : null;
  const breakpoints = checkRunArguments(graph, flow, input, command, options, threadId);
  const engine: EngineGraph = {
    name: graph.name,
    state: graph.state,
    flow,
    middleware: graph.middleware,
    workspace: graph.workspace,
    stateStore: runStore,
    memoryStore:
      options.memoryStore !== undefined
        ? checkMemoryStore(options.memoryStore, `Graph "${graph.name}"`)
        : graph.memoryStore,
    retry: graph.retry,
    onError: graph.onError,
    nodeCache: resolveNodeCache(graph, flow),
    tracer: graph.tracer,
    maxSteps,
    checkInput: graph.checkInput,
  };
  const run = new GraphRun(graph, options, engine, runId, threadId, branchId, breakpoints);
  run.emit = emit;
  run.modeList = modeList;
  if (!command) checkInputFields(graph.name, input, graph.inputFields);
  if (threadId === null) {
    const prepared = prepareUpdate(graph.state, input, "__input__", false);
    const state = applyRunInput(graph.state, initialState(graph.state), prepared, true);
    const pos: RunPosition = {
      state,
      step: 0,
      tasks: [],
      known: new Map(),
      caches: new Map(),
      answers: {},
    };
    // Without a thread nothing can resume it: its middleware are told however it ends.
    let end: LoopEnd;
    try {
      const scheduled = scheduleStart(engine, pos, 0);
      if (scheduled) await scheduled;
      end = await run.loop(pos, null);
    } finally {
      run.ended();
    }
    return run.result(pos, end);
  }

  const store = runStore as StateStore;
  // New input is prepared (checked against the state's schema) before the run asks for the
  // thread, whatever onBusy: input the schema refuses fails the same way on a free thread, a
  // busy one (no ThreadBusyError, "enqueue" waits for nothing, "interrupt" and "rollback" stop
  // and undo nothing) and a branch that does not exist; and it is read once.
  // A Command's update likewise (named as planStateUpdate names it), then applied to the thread.
  const prepared =
    command || input === null || input === undefined
      ? null
      : prepareUpdate(graph.state, input, "__input__", false);
  const commandUpdate =
    command && command.update !== null
      ? prepareUpdate(graph.state, command.update, "__command__")
      : null;
  const { journal, loaded, stopped } = await ThreadJournal.open(
    store,
    graph.state,
    graph.name,
    threadId,
    branchId,
    runId,
    graph.leaseTtlMs,
    positionsOf(positions, store),
    {
      policy: options.onBusy ?? "reject",
      timeoutMs: options.onBusyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
      signal: options.signal ?? null,
    },
    checkDurability(graph.name, options.durability),
  );
  run.signal =
    run.signal === NEVER ? journal.leaseSignal : AbortSignal.any([run.signal, journal.leaseSignal]);
  const thread = {
    graphName: graph.name,
    def: graph.state,
    store,
    positions,
    threadId,
    branchId,
    runId,
    journal,
  };
  try {
    const start = {
      engine,
      store,
      threadId,
      branchId,
      runId,
      journal,
      loaded,
      stopped,
      options,
      commandUpdate,
    };
    const started = await startThreadRun(start, prepared, command);
    const pos = started.pos;
    run.originRunId = started.originRunId;
    let end: LoopEnd;
    try {
      end = await run.loop(pos, journal);
    } catch (e) {
      throw await recordRunError(thread, pos.step, e, subgraphParentTask(options));
    }
    await finishThreadRun(thread, pos, end, loaded, run.originRunId, emit, modeList);
    if (end.status === "completed") run.ended();
    return run.result(pos, end);
  } finally {
    await journal.close();
  }
}

const NEVER = new AbortController().signal;

/** The stream modes of a run that streams none (`invoke`): one set, read only, for every run. */
const NO_MODES: ReadonlySet<StreamMode> = new Set();

/**
 * One run's own values and steps (its sub-agents, its loop with its span, its result). A
 * class, not closures inside `runGraph`: a named closure costs a name set on it in the build
 * (esbuild's keepNames), about a third of a µs each, six per run.
 */
class GraphRun<D extends StateDefinition | null> {
  /** The run that started the thread's current work (this run for new input). */
  originRunId: string;
  /** The run's signal; on a thread it also fires when the run loses its lease. */
  signal: AbortSignal;
  emit: ((e: StreamEvent) => void) | null = null;
  modeList: readonly StreamMode[] = [];
  #subAgents: SubAgents | null = null;
  #traceContext: Context | null = null;

  constructor(
    readonly graph: Graph<D, FieldSchema | undefined>,
    readonly options: RunOptions,
    readonly engine: EngineGraph,
    readonly runId: string,
    readonly threadId: string | null,
    readonly branchId: string,
    readonly breakpoints: EngineRunOptions["breakpoints"],
  ) {
    this.originRunId = runId;
    this.signal = options.signal ?? NEVER;
  }

  /** The run's sub-agents, made on first use. */
  subAgents(): SubAgents {
    const { graph, options, runId } = this;
    this.#subAgents ??= new SubAgents({
      graphName: graph.name,
      runId,
      rootRunId: options.rootRunId ?? runId,
      threadId: this.threadId,
      store: this.engine.stateStore,
      memoryStore: this.engine.memoryStore,
      context: { value: options.context, given: options.context !== undefined },
      signal: this.signal,
    });
    return this.#subAgents;
  }

  async #settleSubAgents(failed: boolean): Promise<void> {
    const subAgents = this.#subAgents;
    if (!subAgents) return;
    const name = this.graph.name;
    const left = subAgents.ungathered();
    if (failed || left.length > 0) await subAgents.cancelAll(`The run of graph "${name}" ended`);
    if (!failed && left.length > 0) {
      throw new GraphExecutionError(
        `Run of graph "${name}" ended with ${left.length} sub-agent(s) never gathered (${left.join(", ")}); they were cancelled. Gather them with ctx.gather, or use ctx.submit to wait in a later run`,
        { graph: name },
      );
    }
  }

  /** Run the supersteps from `pos` (in the run's span, when traced); settle the sub-agents. */
  async loop(pos: RunPosition, journal: ThreadJournal | null): Promise<LoopEnd> {
    const { graph } = this;
    let end: LoopEnd;
    const span = graph.tracer
      ? startSpan(
          graph.tracer,
          `nodestep.run ${graph.name}`,
          {
            "nodestep.graph": graph.name,
            "nodestep.run_id": this.runId,
            "nodestep.thread_id": this.threadId ?? "",
          },
          null,
        )
      : null;
    this.#traceContext = span?.context ?? null;
    try {
      end = await runLoop(this.engine, pos, this.#runOptions(journal));
      if (this.#subAgents) await this.#settleSubAgents(false);
    } catch (e) {
      await this.#settleSubAgents(true).catch(() => {});
      if (span) endWithError(span.span, e);
      throw e;
    }
    if (span) {
      span.span.setAttribute("nodestep.status", end.status);
      span.span.end();
    }
    return end;
  }

  #runOptions(journal: ThreadJournal | null): EngineRunOptions {
    const { graph, options, runId } = this;
    return {
      runId,
      rootRunId: options.rootRunId ?? runId,
      originRunId: this.originRunId,
      threadId: this.threadId,
      branchId: this.branchId,
      context: { value: options.context, given: options.context !== undefined },
      signal: this.signal,
      subAgents: this.subAgents.bind(this),
      modes: this.modeList.length === 0 ? NO_MODES : new Set(this.modeList),
      modeList: this.modeList,
      emit: this.emit,
      maxSteps: this.engine.maxSteps,
      maxConcurrency: options.maxConcurrency ?? graph.maxConcurrency ?? 0,
      subgraph: isSubgraphRun(options),
      output: graph.outputFields,
      breakpoints: this.breakpoints,
      journal,
      traceContext: this.#traceContext,
      onStepCommitted: journal
        ? (step, order, next, _state, before, waiting) =>
            journal.stepCommitted(step, order, next, before, waiting)
        : null,
    };
  }

  /** What the run returns, from where it ended. */
  result(pos: RunPosition, end: LoopEnd): RunResult<GraphState<D>> {
    return {
      state: copyState(pickOutput(pos.state, this.graph.outputFields)) as GraphState<D>,
      runId: this.runId,
      threadId: this.threadId,
      branchId: this.branchId,
      status: end.status === "completed" ? "completed" : "interrupted",
      interrupts: end.status === "interrupted" ? end.interrupts : [],
      breakpoint:
        end.status === "interrupted"
          ? (end.breakpoint ?? childBreakpoint(pos.step, pos.tasks, end.results))
          : null,
    };
  }

  /** A completed run's end, told to the middleware (what they keep per run can go). */
  ended(): void {
    const { graph, runId, originRunId, threadId } = this;
    notifyRunEnd(graph.middleware, { graphName: graph.name, runId, originRunId, threadId });
  }
}
