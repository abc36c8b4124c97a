/**
 * `Graph`: a state definition, nodes and edges, run superstep by superstep.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import type { Context, Tracer } from "@opentelemetry/api";
import {
  GraphConfigError,
  GraphExecutionError,
  type InterruptInfo,
  RunCancelledError,
  StateStoreError,
  UnknownBranchError,
  UnknownEventError,
  ValueError,
} from "../errors/index.js";
import { findNonJson, type JsonObject } from "../json/index.js";
import {
  applyUpdate,
  describeValue,
  initialState,
  isStateDefinition,
  prepareUpdate,
  type StateDefinition,
  type StateShape,
  type UpdateOfShape,
} from "../state/define-state.js";
import { copyState } from "../state/state-copy.js";
import type { BranchInfo, StateStore, StoredEvent } from "../stores/types.js";
import { type CompiledFlow, compileFlow } from "./compile.js";
import type { StreamMode } from "./context.js";
import {
  type EngineGraph,
  type EngineRunOptions,
  type LoopEnd,
  type RunPosition,
  runLoop,
  startTasks,
} from "./engine.js";
import { type CachedPosition, loadPosition, ThreadJournal } from "./journal.js";
import type { Edge } from "./node.js";
import { MemoryNodeCache, type NodeCache, type RetryPolicy, resolveRetry } from "./policies.js";
import { EventQueue } from "./queue.js";
import { type FromSpecOptions, fromSpec, type GraphSpec, toMermaid, toSpec } from "./spec.js";
import { SubAgents } from "./sub-agents.js";
import { emptyPosition, foldEvents, THREAD_FORMAT, type ThreadPosition } from "./thread-state.js";
import { endWithError, resolveTracer, startSpan } from "./tracing.js";
import type { RunOptions, RunResult, StreamEvent, StreamEventOf, StreamOptions } from "./types.js";

/** Options of {@link Graph}. */
export interface GraphOptions {
  /** Graph name, shown in errors and events; default `"graph"`. */
  name?: string;
  /** Store of threads, interrupts and history; `null` runs without threads. */
  stateStore?: StateStore | null;
  /** Workspace exposed to nodes and tools as `ctx.workspace`. */
  workspace?: unknown;
  /** Superstep limit per call; default 25. */
  maxSteps?: number;
  /** Middleware of every run, in order; nodes see it as `ctx.middleware`. */
  middleware?: readonly unknown[];
  /** How long a run's single-writer lease on its thread lasts without renewal, in ms; default 30,000. A run renews it as it goes; a process that dies leaves it to expire. */
  leaseTtlMs?: number;
  /** Default retry policy of nodes that have none; default none. */
  retry?: RetryPolicy;
  /** Where the results of nodes with a `cache` policy live; default a `MemoryNodeCache` of this graph. `new StoreNodeCache(store)` shares it through a state store. */
  nodeCache?: NodeCache;
  /** OpenTelemetry tracer for spans of runs, supersteps, nodes, model and tool calls; `true` takes `trace.getTracer("nodestep")`. Default none: no span is made. */
  tracer?: Tracer | boolean;
}

/** The state type of a graph built on a definition, or a plain object. */
export type GraphState<D> =
  D extends StateDefinition<infer S>
    ? { [K in keyof S]: StateDefinition<S>["State"][K] }
    : Record<string, unknown>;
/** The input type of a graph: an update of its state, or `null` to continue a thread. */
export type GraphInput<D> =
  | (D extends StateDefinition<infer S extends StateShape>
      ? UpdateOfShape<S>
      : Record<string, unknown>)
  | null;

let runCounter = 0;
const runPrefix = randomBytes(4).toString("hex");

/** A new run id: a process prefix and a counter (no crypto per run). */
export function newRunId(): string {
  return `run-${runPrefix}-${(++runCounter).toString(36)}`;
}

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
export class Graph<D extends StateDefinition | null = null> {
  /** The graph's name. */
  readonly name: string;
  /** The state definition, or `null` for a plain-object state. */
  readonly state: D;
  readonly stateStore: StateStore | null;
  readonly workspace: unknown;
  readonly maxSteps: number;
  readonly middleware: readonly unknown[];
  readonly leaseTtlMs: number;
  /** Default retry policy of nodes that have none. */
  readonly retry: RetryPolicy | null;
  /** Where cached node results live (made on first use when not given). */
  nodeCache: NodeCache | null;
  /** The tracer, or `null`. */
  readonly tracer: Tracer | null;
  #flow: CompiledFlow | null = null;
  #positions = new WeakMap<StateStore, Map<string, CachedPosition>>();

  /**
   * @param state - a {@link defineState} definition, or `null` for a plain-object state (last write wins).
   * @param options - see {@link GraphOptions}; any other key is refused.
   * @throws TypeError if `state` is neither, `options` is not an object or has a key that is
   *   not a graph option (a misspelled `maxStep`, say), or `stateStore` is not a store;
   *   ValueError if `maxSteps` is not a positive integer.
   */
  constructor(state: D = null as D, options: GraphOptions = {}) {
    if (state !== null && state !== undefined && !isStateDefinition(state)) {
      throw new TypeError(
        "new Graph(state, options): state must be a defineState(...) definition or null",
      );
    }
    checkGraphOptions(options);
    this.state = (state ?? null) as D;
    this.name = options.name ?? "graph";
    this.stateStore = options.stateStore ?? null;
    if (
      this.stateStore !== null &&
      typeof (this.stateStore as Partial<StateStore>).append !== "function"
    ) {
      throw new TypeError(
        `Graph "${options.name ?? "graph"}": stateStore must be a StateStore (MemoryStateStore, SqliteStateStore, PostgresStateStore or your own)`,
      );
    }
    this.workspace = options.workspace ?? null;
    this.middleware = options.middleware ?? [];
    this.leaseTtlMs = options.leaseTtlMs ?? 30_000;
    if (options.retry) resolveRetry(options.retry, `Graph "${this.name}"`);
    this.retry = options.retry ?? null;
    this.nodeCache = options.nodeCache ?? null;
    this.tracer = resolveTracer(options.tracer);
    const maxSteps = options.maxSteps ?? 25;
    if (!Number.isInteger(maxSteps) || maxSteps < 1)
      throw new ValueError(
        `Graph "${this.name}": maxSteps must be a positive integer, got ${maxSteps}`,
      );
    this.maxSteps = maxSteps;
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
  ): Promise<Graph<D>> {
    return fromSpec(spec, options);
  }

  /**
   * Run the graph to the end (or to a pause) and return the final state.
   *
   * @param input - an update applied to the initial (or the thread's) state; `null` continues a thread.
   * @returns `{ state, runId, threadId, branchId, status, interrupts }`.
   * @throws StateUpdateError for invalid input or updates; GraphExecutionError, StepLimitError, NodeTimeoutError, RunCancelledError; whatever a node throws.
   */
  async invoke(input: GraphInput<D>, options: RunOptions = {}): Promise<RunResult<GraphState<D>>> {
    checkRunOptions(this.name, options);
    const modes = options.modes ?? [];
    for (const m of modes) {
      if (!STREAM_MODES.has(m))
        throw new ValueError(
          `Unknown stream mode "${m}"; use "values", "updates", "custom" or "tokens"`,
        );
    }
    return this.#run(
      input,
      options,
      options.onEvent && modes.length ? options.onEvent : null,
      options.onEvent ? modes : [],
    );
  }

  /**
   * Run the graph and yield its events as they happen. Leaving the loop early cancels the run.
   *
   * @param options.modes - which events: `"values"`, `"updates"` (default), `"custom"`, `"tokens"`.
   * @example
   * ```ts
   * for await (const e of graph.stream(input, { modes: ["updates", "tokens"] })) console.log(e.mode, e.node);
   * ```
   */
  stream(
    input: GraphInput<D>,
    options: StreamOptions = {},
  ): AsyncIterable<StreamEventOf<GraphState<D>>> {
    checkRunOptions(this.name, options);
    const modes = options.modes ?? ["updates"];
    for (const m of modes) {
      if (!STREAM_MODES.has(m))
        throw new ValueError(
          `Unknown stream mode "${m}"; use "values", "updates", "custom" or "tokens"`,
        );
    }
    return {
      [Symbol.asyncIterator]: () => {
        const queue = new EventQueue<StreamEvent>();
        const controller = new AbortController();
        const signal = options.signal
          ? AbortSignal.any([options.signal, controller.signal])
          : controller.signal;
        let finished = false;
        const done = this.#run(input, { ...options, signal }, queue.push, modes).then(
          (result) => {
            finished = true;
            if (result.status === "interrupted" && modes.includes("updates")) {
              queue.push({
                mode: "updates",
                node: null,
                step: -1,
                taskId: null,
                data: { __interrupt__: result.interrupts },
              });
            }
            queue.close();
          },
          (e) => {
            finished = true;
            queue.fail(e);
          },
        );
        return {
          // The engine builds each event for its mode: data is the state for "values", etc.
          next: () => queue.next() as Promise<IteratorResult<StreamEventOf<GraphState<D>>>>,
          return: async () => {
            if (!finished) {
              controller.abort(
                new RunCancelledError(
                  `The stream of graph "${this.name}" was closed before the run ended`,
                  { graph: this.name },
                ),
              );
              await done.catch(() => {});
            }
            return { value: undefined, done: true };
          },
        };
      },
    };
  }

  async #run(
    input: GraphInput<D>,
    options: RunOptions,
    emit: ((e: StreamEvent) => void) | null,
    modeList: readonly StreamMode[],
  ): Promise<RunResult<GraphState<D>>> {
    const flow = this.compiled;
    checkRunOptions(this.name, options);
    const runId = newRunId();
    const threadId = options.threadId ?? null;
    const branchId = options.branchId ?? "main";
    const maxSteps = options.maxSteps ?? this.maxSteps;
    const runStore = options.stateStore ?? this.stateStore;
    if (threadId !== null && runStore === null) {
      throw new GraphConfigError(
        `Graph "${this.name}" was run with threadId "${threadId}" but has no stateStore; threads need one (new Graph(State, { stateStore }))`,
        { graph: this.name },
      );
    }
    if (threadId === null && (input === null || input === undefined)) {
      throw new ValueError(
        `Graph "${this.name}": invoke(null) continues a thread; pass an input, or a threadId with a state store`,
      );
    }
    if (threadId === null && options.resume !== undefined) {
      throw new ValueError(
        `Graph "${this.name}": resume answers need the threadId of the paused run`,
      );
    }
    const engine: EngineGraph = {
      name: this.name,
      state: this.state,
      flow,
      middleware: this.middleware,
      workspace: this.workspace,
      stateStore: runStore,
      retry: this.retry,
      nodeCache: this.#nodeCache(flow),
      tracer: this.tracer,
      maxSteps,
    };
    let originRunId = runId;
    const signal = options.signal ?? NEVER;
    let subAgents: SubAgents | null = null;
    const getSubAgents = (): SubAgents => {
      subAgents ??= new SubAgents({
        graphName: this.name,
        runId,
        rootRunId: options.rootRunId ?? runId,
        threadId,
        store: runStore,
        context: { value: options.context, given: options.context !== undefined },
        signal,
      });
      return subAgents;
    };
    const settleSubAgents = async (failed: boolean): Promise<void> => {
      if (!subAgents) return;
      const left = subAgents.ungathered();
      if (failed || left.length > 0)
        await subAgents.cancelAll(`The run of graph "${this.name}" ended`);
      if (!failed && left.length > 0) {
        throw new GraphExecutionError(
          `Run of graph "${this.name}" ended with ${left.length} sub-agent(s) never gathered (${left.join(", ")}); they were cancelled. Gather them with ctx.gather, or use ctx.submit to wait in a later run`,
          { graph: this.name },
        );
      }
    };
    let traceContext: Context | null = null;
    const loop = async (pos: RunPosition, journal: ThreadJournal | null): Promise<LoopEnd> => {
      let end: LoopEnd;
      const span = this.tracer
        ? startSpan(
            this.tracer,
            `nodestep.run ${this.name}`,
            {
              "nodestep.graph": this.name,
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
      journal,
      traceContext,
      onStepCommitted: journal
        ? (step, order, next, _state, before) => journal.stepCommitted(step, order, next, before)
        : null,
    });
    const result = (pos: RunPosition, end: LoopEnd): RunResult<GraphState<D>> => ({
      state: copyState(pos.state) as GraphState<D>,
      runId,
      threadId,
      branchId,
      status: end.status,
      interrupts: end.status === "interrupted" ? end.interrupts : [],
    });

    if (threadId === null) {
      const prepared = prepareUpdate(this.state, input, "__input__", false);
      const state = applyUpdate(this.state, initialState(this.state), prepared, "__input__");
      const pos: RunPosition = {
        state,
        step: 0,
        tasks: [],
        known: new Map(),
        caches: new Map(),
        answers: {},
      };
      pos.tasks = await startTasks(engine, state, 0);
      return result(pos, await loop(pos, null));
    }

    const store = runStore as StateStore;
    const { journal, loaded } = await ThreadJournal.open(
      store,
      this.state,
      this.name,
      threadId,
      branchId,
      runId,
      this.leaseTtlMs,
      this.#positionsOf(store),
    );
    let pos: RunPosition | null = null;
    try {
      const tp = loaded.position;
      if (input !== null && input !== undefined) {
        const prepared = prepareUpdate(this.state, input, "__input__", false);
        const state = applyUpdate(this.state, tp.state, prepared, "__input__");
        pos = { state, step: tp.step, tasks: [], known: new Map(), caches: new Map(), answers: {} };
        pos.tasks = await startTasks(engine, state, tp.step);
        if (options.resume !== undefined) {
          throw new ValueError(
            `Graph "${this.name}": resume answers go with invoke(null, { threadId, resume }), not with new input`,
          );
        }
        await journal.runStarted(tp.step, {
          // A new thread records the state it starts from (defaults made by functions included).
          init: tp.lastSeq === 0 ? tp.state : null,
          input: prepared as JsonObject,
          tasks: pos.tasks,
          resume: {},
        });
      } else {
        if (tp.lastSeq === 0) {
          throw new UnknownBranchError(
            `Thread "${threadId}" (branch "${branchId}") has no history to continue; start it with an input`,
            { threadId, branchId },
          );
        }
        const resume = options.resume ?? {};
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
        pos = {
          state: tp.state,
          step: tp.step,
          tasks: tp.tasks,
          known: new Map(Object.entries(tp.known)),
          caches: new Map(Object.entries(tp.caches)),
          // A new answer for a key replaces an earlier one (say, after the earlier one made the run fail).
          answers: { ...tp.answers, ...resume },
        };
        originRunId = tp.originRunId ?? runId;
        await journal.runStarted(tp.step, { input: null, tasks: null, resume });
      }
      let end: LoopEnd;
      try {
        end = await loop(pos, journal);
      } catch (e) {
        await journal.failed(pos.step, e);
        throw e;
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
      };
      if (end.status === "interrupted") {
        await journal.interrupted(pos.step, pos.tasks, end.results, end.interrupts);
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
      await this.#remember(store, threadId, branchId, {
        position: folded,
        snapshotSeq: loaded.snapshotSeq,
      });
      return result(pos, end);
    } finally {
      await journal.close();
    }
  }

  #nodeCache(flow: CompiledFlow): NodeCache | null {
    if (this.nodeCache) return this.nodeCache;
    for (const n of flow.nodes.values()) {
      if (n.node.cache) {
        this.nodeCache = new MemoryNodeCache();
        return this.nodeCache;
      }
    }
    return null;
  }

  #positionsOf(store: StateStore): Map<string, CachedPosition> {
    let m = this.#positions.get(store);
    if (!m) {
      m = new Map();
      this.#positions.set(store, m);
    }
    return m;
  }

  async #remember(
    store: StateStore,
    threadId: string,
    branchId: string,
    cached: CachedPosition,
  ): Promise<void> {
    const positions = this.#positionsOf(store);
    const key = `${threadId}\u0000${branchId}`;
    positions.delete(key);
    positions.set(key, cached);
    if (positions.size > POSITION_CACHE_SIZE) {
      const oldest = positions.keys().next().value as string;
      positions.delete(oldest);
    }
  }

  #store(what: string): StateStore {
    if (!this.stateStore) {
      throw new GraphConfigError(`Graph "${this.name}" has no stateStore; ${what} needs one`, {
        graph: this.name,
      });
    }
    return this.stateStore;
  }

  /**
   * The state of a thread's branch: after its last event, or after `eventId` (time travel).
   *
   * @returns `{ state, step, next, interrupts, status, lastEventId }`: `next` names the nodes of the
   *   superstep that runs next (empty when the thread is done), `status` that of the last run.
   * @throws GraphConfigError without a store; UnknownBranchError for an unknown branch; UnknownEventError for an event not on it.
   */
  async getState(
    threadId: string,
    options: { branchId?: string; eventId?: string; stateStore?: StateStore } = {},
  ): Promise<ThreadSnapshot<GraphState<D>>> {
    checkReadOptions(this.name, threadId, options, ["branchId", "eventId"]);
    const store = options.stateStore ?? this.#store("getState");
    const branchId = options.branchId ?? "main";
    let position: ThreadPosition;
    if (options.eventId !== undefined) {
      const events = await store.read(threadId, branchId);
      const at = events.findIndex((e) => e.id === options.eventId);
      if (at < 0) {
        throw new UnknownEventError(
          `Event "${options.eventId}" is not in the history of thread "${threadId}" (branch "${branchId}")`,
          {
            threadId,
            eventId: options.eventId,
          },
        );
      }
      position = foldEvents(this.state, emptyPosition(this.state), events.slice(0, at + 1));
    } else {
      if (branchId !== "main" && !(await store.getBranch(threadId, branchId))) {
        throw new UnknownBranchError(`Thread "${threadId}" has no branch "${branchId}"`, {
          threadId,
          branchId,
        });
      }
      position = (
        await loadPosition(store, this.state, threadId, branchId, this.#positionsOf(store))
      ).position;
    }
    return {
      state: copyState(position.state) as GraphState<D>,
      step: position.step,
      next: position.tasks.map((t) => t.name),
      interrupts: position.interrupts,
      status: position.lastStatus,
      lastEventId: position.lastEventId,
    };
  }

  /**
   * The events of a thread's branch, oldest first (a fork's parent events first).
   * @throws GraphConfigError without a store; UnknownBranchError for an unknown branch.
   */
  async history(threadId: string, options: { branchId?: string } = {}): Promise<StoredEvent[]> {
    checkReadOptions(this.name, threadId, options, ["branchId"]);
    return this.#store("history").read(threadId, options.branchId ?? "main");
  }

  /**
   * A new branch of a thread whose history stops at `eventId`; run on it with `{ threadId, branchId }`.
   * Copies nothing.
   * @returns the new branch: `{ threadId, branchId, parent, lastSeq }`.
   * @throws UnknownEventError when the event is not in the thread.
   */
  async fork(
    threadId: string,
    options: { eventId: string; branchId?: string },
  ): Promise<BranchInfo> {
    if (typeof options?.eventId !== "string" || options.eventId === "") {
      throw new TypeError(
        `Graph "${this.name}": fork(threadId, { eventId }) needs the id of an event of the thread (see graph.history)`,
      );
    }
    checkReadOptions(this.name, threadId, options, ["branchId"]);
    return this.#store("fork").createBranch(threadId, options.eventId, options.branchId);
  }
}

/** A thread's state as `graph.getState` reads it. */
export interface ThreadSnapshot<S> {
  state: S;
  /** The superstep that runs next. */
  step: number;
  /** Nodes of the superstep that runs next; empty when the thread is done. */
  next: string[];
  /** Interrupts the thread is waiting on. */
  interrupts: InterruptInfo[];
  /** Status of the last run, or `null` for an empty thread. */
  status: ThreadPosition["lastStatus"];
  /** Id of the last event, or `null` for an empty thread. */
  lastEventId: string | null;
}

/** Every key of {@link GraphOptions}. */
const GRAPH_OPTIONS: ReadonlySet<string> = new Set<keyof GraphOptions>([
  "name",
  "stateStore",
  "workspace",
  "maxSteps",
  "middleware",
  "leaseTtlMs",
  "retry",
  "nodeCache",
  "tracer",
]);

/** Check the options of `new Graph`: an object with only known keys. */
function checkGraphOptions(options: GraphOptions): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(
      `new Graph(state, options): options must be an object, got ${describeValue(options)}`,
    );
  }
  const unknown = Object.keys(options).filter((k) => !GRAPH_OPTIONS.has(k));
  if (unknown.length > 0) {
    const name = typeof options.name === "string" ? options.name : "graph";
    throw new TypeError(
      `Graph "${name}": unknown option${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `"${k}"`).join(", ")}; the options of new Graph(state, options) are ${[...GRAPH_OPTIONS].join(", ")}`,
    );
  }
}

/** Check the options of a run; wrong types are refused before anything runs. */
/**
 * Check the thread id and the named string options of getState, history and fork as
 * invoke checks its own (a wrong type would otherwise read as the name of a missing branch).
 * @throws TypeError naming the option.
 */
function checkReadOptions(
  graph: string,
  threadId: unknown,
  options: unknown,
  keys: readonly string[],
): void {
  checkId(graph, "threadId", threadId, true);
  if (options === null || typeof options !== "object") {
    throw new TypeError(
      `Graph "${graph}": options must be an object, got ${options === null ? "null" : typeof options}`,
    );
  }
  const o = options as Record<string, unknown>;
  for (const k of keys) checkId(graph, k, o[k], false);
}

/**
 * An id (thread, branch, event, run) must be a non-empty string; an optional one may be left out.
 * @throws TypeError naming it.
 */
function checkId(graph: string, name: string, value: unknown, required: boolean): void {
  if (value === undefined && !required) return;
  if (typeof value !== "string" || value === "") {
    throw new TypeError(
      `Graph "${graph}": ${name} must be a non-empty string, got ${value === "" ? '""' : typeof value}`,
    );
  }
}

function checkRunOptions(graph: string, options: RunOptions): void {
  if (options === null || typeof options !== "object") {
    throw new TypeError(
      `Graph "${graph}": run options must be an object, got ${options === null ? "null" : typeof options}`,
    );
  }
  const o = options as Record<string, unknown>;
  if (o.maxSteps !== undefined && (!Number.isInteger(o.maxSteps) || (o.maxSteps as number) < 1)) {
    throw new ValueError(
      `Graph "${graph}": maxSteps must be a positive integer, got ${String(o.maxSteps)}`,
    );
  }
  for (const k of ["threadId", "branchId", "rootRunId"]) checkId(graph, k, o[k], false);
  if (o.signal !== undefined && !(o.signal instanceof AbortSignal)) {
    throw new TypeError(`Graph "${graph}": signal must be an AbortSignal`);
  }
  if (o.onEvent !== undefined && typeof o.onEvent !== "function") {
    throw new TypeError(`Graph "${graph}": onEvent must be a function`);
  }
  if (
    o.resume !== undefined &&
    (o.resume === null || typeof o.resume !== "object" || Array.isArray(o.resume))
  ) {
    throw new TypeError(`Graph "${graph}": resume must be an object of answers by interrupt key`);
  }
}

const POSITION_CACHE_SIZE = 256;
const STREAM_MODES = new Set<StreamMode>(["values", "updates", "custom", "tokens"]);
const NEVER = new AbortController().signal;
