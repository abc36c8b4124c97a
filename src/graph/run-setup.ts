/**
 * Run setup: a run's options checked, the engine's view of the graph made, and the run wired
 * to its thread: the state store, the single-writer lease and the journal of events (or no
 * thread at all), its sub-agents and its span. `Graph.invoke` and `Graph.stream` run through
 * {@link runGraph}.
 *
 * @module
 */
import type { Context } from "@opentelemetry/api";
import {
  GraphConfigError,
  GraphExecutionError,
  RunStoppedError,
  StateStoreError,
  UnknownBranchError,
  ValueError,
} from "../errors/index.js";
import { findNonJson, type JsonObject } from "../json/index.js";
import {
  applyUpdate,
  initialState,
  prepareUpdate,
  type StateDefinition,
} from "../state/define-state.js";
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
import { setWaiting } from "./joins.js";
import { ThreadJournal } from "./journal.js";
import { snapshotAfterRun } from "./load-position.js";
import {
  encodeParentCommand,
  isSubgraphRun,
  ParentCommand,
  subgraphParentTask,
} from "./parent-command.js";
import { resolveNodeCache } from "./policies.js";
import { type PositionCache, positionsOf, rememberPosition } from "./position-cache.js";
import { planRollback, positionAfter, rollbackEventData } from "./rollback.js";
import { Command } from "./routing.js";
import { checkRunArguments } from "./run-checks.js";
import { notifyRunEnd } from "./run-end.js";
import { newRunId } from "./run-id.js";
import { checkMemoryStore, checkRunOptions } from "./run-options.js";
import { scheduleStart } from "./schedule.js";
import { planRewind, rewindOf } from "./stable-rewind.js";
import { planStateUpdate } from "./state-update.js";
import { emitPauseCheckpoint } from "./stream-modes.js";
import { SubAgents } from "./sub-agents.js";
import { applyStateUpdated, THREAD_FORMAT, type ThreadPosition } from "./thread-state.js";
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
  };
  let originRunId = runId;
  // The run's signal; on a thread it also fires when the run loses its lease.
  let signal = options.signal ?? NEVER;
  let subAgents: SubAgents | null = null;
  const getSubAgents = (): SubAgents => {
    subAgents ??= new SubAgents({
      graphName: graph.name,
      runId,
      rootRunId: options.rootRunId ?? runId,
      threadId,
      store: runStore,
      memoryStore: engine.memoryStore,
      context: { value: options.context, given: options.context !== undefined },
      signal,
    });
    return subAgents;
  };
  const settleSubAgents = async (failed: boolean): Promise<void> => {
    if (!subAgents) return;
    const left = subAgents.ungathered();
    if (failed || left.length > 0)
      await subAgents.cancelAll(`The run of graph "${graph.name}" ended`);
    if (!failed && left.length > 0) {
      throw new GraphExecutionError(
        `Run of graph "${graph.name}" ended with ${left.length} sub-agent(s) never gathered (${left.join(", ")}); they were cancelled. Gather them with ctx.gather, or use ctx.submit to wait in a later run`,
        { graph: graph.name },
      );
    }
  };
  let traceContext: Context | null = null;
  const loop = async (pos: RunPosition, journal: ThreadJournal | null): Promise<LoopEnd> => {
    let end: LoopEnd;
    const span = graph.tracer
      ? startSpan(
          graph.tracer,
          `nodestep.run ${graph.name}`,
          {
            "nodestep.graph": graph.name,
            "nodestep.run_id": runId,
            "nodestep.thread_id": threadId ?? "",
          },
          null,
        )
      : null;
    traceContext = span?.context ?? null;
    try {
      end = await runLoop(engine, pos, runOptions(journal));
      await settleSubAgents(false);
    } catch (e) {
      await settleSubAgents(true).catch(() => {});
      if (span) endWithError(span.span, e);
      throw e;
    }
    if (span) {
      span.span.setAttribute("nodestep.status", end.status);
      span.span.end();
    }
    return end;
  };
  const runOptions = (journal: ThreadJournal | null): EngineRunOptions => ({
    runId,
    rootRunId: options.rootRunId ?? runId,
    originRunId,
    threadId,
    branchId,
    context: { value: options.context, given: options.context !== undefined },
    signal,
    subAgents: getSubAgents,
    modes: new Set(modeList),
    modeList,
    emit,
    maxSteps,
    maxConcurrency: options.maxConcurrency ?? graph.maxConcurrency ?? 0,
    subgraph: isSubgraphRun(options),
    output: graph.outputFields,
    breakpoints,
    journal,
    traceContext,
    onStepCommitted: journal
      ? (step, order, next, _state, before, waiting) =>
          journal.stepCommitted(step, order, next, before, waiting)
      : null,
  });
  const result = (pos: RunPosition, end: LoopEnd): RunResult<GraphState<D>> => ({
    state: copyState(pickOutput(pos.state, graph.outputFields)) as GraphState<D>,
    runId,
    threadId,
    branchId,
    status: end.status === "completed" ? "completed" : "interrupted",
    interrupts: end.status === "interrupted" ? end.interrupts : [],
    breakpoint:
      end.status === "interrupted"
        ? (end.breakpoint ?? childBreakpoint(pos.step, pos.tasks, end.results))
        : null,
  });
  // A completed run's end, told to the middleware (what they keep per run can go).
  const runEnded = (): void =>
    notifyRunEnd(graph.middleware, { graphName: graph.name, runId, originRunId, threadId });

  if (!command) checkInputFields(graph.name, input, graph.inputFields);
  if (threadId === null) {
    const prepared = prepareUpdate(graph.state, input, "__input__", false);
    const state = applyUpdate(graph.state, initialState(graph.state), prepared, "__input__");
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
      await scheduleStart(engine, pos, 0);
      end = await loop(pos, null);
    } finally {
      runEnded();
    }
    return result(pos, end);
  }

  const store = runStore as StateStore;
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
  signal = signal === NEVER ? journal.leaseSignal : AbortSignal.any([signal, journal.leaseSignal]);
  let pos: RunPosition | null = null;
  try {
    let tp = loaded.position;
    // onBusy "rollback": the runs it stopped are undone; the run goes on from the position
    // before them, written (as a rolled_back event) just before its first event.
    // A stable subgraph's child first goes back to where its parent knows it (stable-rewind.ts).
    journal.parentTask = subgraphParentTask(options);
    let rollback =
      options.onBusy === "rollback"
        ? await planRollback(store, graph.state, threadId, branchId, stopped)
        : await planRewind(store, graph.state, threadId, branchId, tp, rewindOf(options));
    if (rollback) tp = positionAfter(rollback, tp.lastSeq, tp.lastEventId);
    const writeRollback = async (): Promise<void> => {
      if (!rollback) return;
      await journal.rolledBack(tp.step, rollbackEventData(rollback));
      tp = positionAfter(rollback, journal.lastSeq, journal.lastEventId);
      rollback = null;
    };
    if (input !== null && input !== undefined && !command) {
      const prepared = prepareUpdate(graph.state, input, "__input__", false);
      const state = applyUpdate(graph.state, tp.state, prepared, "__input__");
      pos = { state, step: tp.step, tasks: [], known: new Map(), caches: new Map(), answers: {} };
      await scheduleStart(engine, pos, tp.step);
      if (options.resume !== undefined) {
        throw new ValueError(
          `Graph "${graph.name}": resume answers go with invoke(null, { threadId, resume }), not with new input`,
        );
      }
      await writeRollback();
      await journal.runStarted(
        tp.step,
        {
          // A new thread records the state it starts from (defaults made by functions included).
          init: tp.lastSeq === 0 ? tp.state : null,
          input: prepared as JsonObject,
          tasks: pos.tasks,
          resume: {},
          waiting: pos,
        },
        tp.state,
      );
    } else {
      if (tp.lastSeq === 0) {
        throw new UnknownBranchError(
          `Thread "${threadId}" (branch "${branchId}") has no history to continue; start it with an input`,
          { threadId, branchId },
        );
      }
      const resume = command?.resume ?? options.resume ?? {};
      const pendingKeys = new Set(tp.interrupts.map((i) => i.key));
      for (const key of Object.keys(resume)) {
        if (!pendingKeys.has(key) && !Object.hasOwn(tp.answers, key)) {
          throw new ValueError(
            `Thread "${threadId}" has no pending interrupt with key "${key}"; pending: ${[...pendingKeys].join(", ") || "(none)"}`,
          );
        }
      }
      const bad = findNonJson(resume, "resume");
      if (bad)
        throw new StateStoreError(
          `Cannot store the resume answers: ${bad.path} is not JSON (${bad.problem})`,
          { field: bad.path, threadId },
        );
      if (command && (command.update !== null || command.goto !== null)) {
        // The Command's update and goto: one state_updated event before the run continues.
        const data = await planStateUpdate(
          { name: graph.name, state: graph.state, flow },
          tp,
          command.update,
          null,
          command.goto,
          true,
        );
        await writeRollback();
        await journal.stateUpdated(tp.step, data);
        const updated: ThreadPosition = { ...tp };
        applyStateUpdated(graph.state, updated, tp.step, data);
        tp = updated;
      }
      pos = {
        state: tp.state,
        step: tp.step,
        tasks: tp.tasks,
        known: new Map(Object.entries(tp.known)),
        caches: new Map(Object.entries(tp.caches)),
        // A new answer for a key replaces an earlier one (say, after the earlier one made the run fail).
        answers: { ...tp.answers, ...resume },
        // Continuing from a breakpoint goes past it.
        passed: tp.breakpoint ? tp.breakpoint.step : (tp.passed ?? null),
      };
      setWaiting(pos, tp);
      originRunId = tp.originRunId ?? runId;
      await writeRollback();
      await journal.runStarted(tp.step, { input: null, tasks: null, resume });
    }
    let end: LoopEnd;
    try {
      end = await loop(pos, journal);
    } catch (e) {
      // A run that lost its lease ends with that, whatever its nodes made of the abort.
      const error = journal.lost ?? e;
      if (error instanceof ParentCommand) {
        // The child's run ends with its node's Command.PARENT; the subgraph node applies it.
        await journal.handedToParent(
          pos.step,
          error.node,
          encodeParentCommand(error.command),
          subgraphParentTask(options),
        );
        positionsOf(positions, store).delete(`${threadId}\u0000${branchId}`);
      } else await journal.failed(pos.step, error);
      throw error;
    }
    if (end.status === "stopped") {
      // Another run asked for the thread (onBusy "interrupt"): what was committed is kept.
      await journal.stopped(pos.step, end.by);
      positionsOf(positions, store).delete(`${threadId}\u0000${branchId}`);
      throw new RunStoppedError(
        `Run "${runId}" of graph "${graph.name}" on thread "${threadId}" (branch "${branchId}") was stopped before superstep ${pos.step} because run "${end.by}" asked for the thread (onBusy "interrupt" or "rollback"); the supersteps it committed stay in the log (a "rollback" undoes them)`,
        { graph: graph.name, threadId, branchId, runId, stoppedBy: end.by, step: pos.step },
      );
    }
    const folded: ThreadPosition = {
      format: THREAD_FORMAT,
      state: pos.state,
      step: pos.step,
      tasks: pos.tasks,
      known: {},
      caches: {},
      interrupts: [],
      answers: {},
      lastEventId: null,
      lastSeq: 0,
      originRunId,
      lastStatus: end.status,
      runBranchId: branchId,
    };
    setWaiting(folded, pos);
    if (end.status === "interrupted" && end.breakpoint) {
      await journal.pausedAt(pos.step, end.breakpoint);
      // The next load folds the log (what the paused superstep already knew stays as stored).
      positionsOf(positions, store).delete(`${threadId}\u0000${branchId}`);
      return result(pos, end);
    }
    if (pos.passed != null && pos.passed === pos.step) folded.passed = pos.passed;
    if (end.status === "interrupted") {
      const inner = childBreakpoint(pos.step, pos.tasks, end.results);
      await journal.interrupted(pos.step, pos.tasks, end.results, end.interrupts, inner);
      const opts = { emit, modes: new Set(modeList), threadId, branchId };
      emitPauseCheckpoint(
        opts,
        pos.step,
        pos.state,
        pos.tasks,
        end.interrupts,
        journal.lastEventId,
      );
      folded.breakpoint = inner;
      for (const [id, r] of end.results) {
        if (r.kind === "done") folded.known[id] = { update: r.update, routes: r.routes };
        else folded.caches[id] = r.cache;
      }
      folded.interrupts = end.interrupts;
      folded.answers = pos.answers;
    } else {
      await journal.finished(pos.step);
    }
    folded.lastSeq = journal.lastSeq;
    folded.lastEventId = journal.lastEventId;
    const cached = { position: folded, snapshotSeq: loaded.snapshotSeq };
    // A long thread keeps a snapshot now and then, so that a new process reads little of it.
    if (end.status !== "interrupted") {
      cached.snapshotSeq = await snapshotAfterRun(store, graph.state, threadId, branchId, cached);
    }
    rememberPosition(positions, store, threadId, branchId, cached);
    if (end.status === "completed") runEnded();
    return result(pos, end);
  } finally {
    await journal.close();
  }
}

const NEVER = new AbortController().signal;
