/**
 * `Graph`: a state definition, nodes and edges, run superstep by superstep.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { GraphConfigError, RunCancelledError, ValueError } from "../errors/index.js";
import {
  applyUpdate,
  initialState,
  isStateDefinition,
  prepareUpdate,
  type StateDefinition,
  type StateShape,
  type UpdateOfShape,
} from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import { type CompiledFlow, compileFlow } from "./compile.js";
import type { StreamMode } from "./context.js";
import { type EngineGraph, type RunPosition, runLoop, startTasks } from "./engine.js";
import type { Edge } from "./node.js";
import { EventQueue } from "./queue.js";
import type { RunOptions, RunResult, StreamEvent, StreamOptions } from "./types.js";

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
  #flow: CompiledFlow | null = null;

  /**
   * @param state - a {@link defineState} definition, or `null` for a plain-object state (last write wins).
   * @throws TypeError if `state` is neither; ValueError if `maxSteps` is not a positive integer.
   */
  constructor(state: D = null as D, options: GraphOptions = {}) {
    if (state !== null && state !== undefined && !isStateDefinition(state)) {
      throw new TypeError(
        "new Graph(state, options): state must be a defineState(...) definition or null",
      );
    }
    this.state = (state ?? null) as D;
    this.name = options.name ?? "graph";
    this.stateStore = options.stateStore ?? null;
    this.workspace = options.workspace ?? null;
    this.middleware = options.middleware ?? [];
    const maxSteps = options.maxSteps ?? 25;
    if (!Number.isInteger(maxSteps) || maxSteps < 1)
      throw new ValueError(
        `Graph "${this.name}": maxSteps must be a positive integer, got ${maxSteps}`,
      );
    this.maxSteps = maxSteps;
  }

  /**
   * Set the graph's edges and check them; returns the graph.
   * @throws GraphConfigError for an unknown node name, a duplicate name, a node with no way out, a target that is not a node, or no edge from START.
   */
  flow(...edges: Edge<GraphState<D>>[]): this {
    this.#flow = compileFlow(this.name, edges as unknown as Edge<unknown>[]);
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
   * Run the graph to the end (or to a pause) and return the final state.
   *
   * @param input - an update applied to the initial (or the thread's) state; `null` continues a thread.
   * @returns `{ state, runId, threadId, branchId, status, interrupts }`.
   * @throws StateUpdateError for invalid input or updates; GraphExecutionError, StepLimitError, NodeTimeoutError, RunCancelledError; whatever a node throws.
   */
  async invoke(input: GraphInput<D>, options: RunOptions = {}): Promise<RunResult<GraphState<D>>> {
    return this.#run(input, options, null, []);
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
  stream(input: GraphInput<D>, options: StreamOptions = {}): AsyncIterable<StreamEvent> {
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
          next: () => queue.next(),
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
    const runId = newRunId();
    const threadId = options.threadId ?? null;
    const branchId = options.branchId ?? "main";
    const maxSteps = options.maxSteps ?? this.maxSteps;
    if (threadId !== null && this.stateStore === null) {
      throw new GraphConfigError(
        `Graph "${this.name}" was run with threadId "${threadId}" but has no stateStore; threads need one (new Graph(State, { stateStore }))`,
        { graph: this.name },
      );
    }
    if (input === null || input === undefined) {
      throw new ValueError(
        `Graph "${this.name}": invoke(null) continues a thread; pass an input, or a threadId with a state store`,
      );
    }
    const engine: EngineGraph = {
      name: this.name,
      state: this.state,
      flow,
      middleware: this.middleware,
      workspace: this.workspace,
      stateStore: this.stateStore,
      maxSteps,
    };
    let state = initialState(this.state);
    const prepared = prepareUpdate(this.state, input, "__input__", false);
    state = applyUpdate(this.state, state, prepared, "__input__");
    const pos: RunPosition = {
      state,
      step: 0,
      tasks: [],
      known: new Map(),
      caches: new Map(),
      answers: options.resume ?? {},
    };
    pos.tasks = await startTasks(engine, state, 0);
    const end = await runLoop(engine, pos, {
      runId,
      rootRunId: options.rootRunId ?? runId,
      threadId,
      branchId,
      context: { value: options.context, given: options.context !== undefined },
      signal: options.signal ?? NEVER,
      modes: new Set(modeList),
      modeList,
      emit,
      maxSteps,
      journal: null,
      onStepCommitted: null,
    });
    return {
      state: pos.state as GraphState<D>,
      runId,
      threadId,
      branchId,
      status: end.status,
      interrupts: end.status === "interrupted" ? end.interrupts : [],
    };
  }
}

const STREAM_MODES = new Set<StreamMode>(["values", "updates", "custom", "tokens"]);
const NEVER = new AbortController().signal;
