/**
 * The superstep engine: runs the tasks of a superstep concurrently, applies their updates in
 * task order, and schedules the next superstep from edges, `Command`s and `Send`s.
 *
 * @module
 */

import type { Context, Tracer } from "@opentelemetry/api";
import {
  GraphExecutionError,
  type InterruptInfo,
  NodeTimeoutError,
  RunCancelledError,
  StateStoreError,
  StateUpdateError,
  StepLimitError,
} from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import { findNonJson, isPlainObject } from "../json/index.js";
import {
  applyUpdateTo,
  describeValue,
  type PreparedUpdate,
  preparePayload,
  prepareUpdate,
  type StateDefinition,
} from "../state/define-state.js";
import { copyState, sameOneLevel } from "../state/state-copy.js";
import type { StateStore } from "../stores/types.js";
import { type CompiledFlow, type CompiledNode, type CompiledTarget, END_NAME } from "./compile.js";
import {
  type EmitMode,
  GraphInterrupt,
  type PendingInterrupt,
  type StreamMode,
  TaskContext,
  type TaskHost,
} from "./context.js";
import type { Node } from "./node.js";
import {
  type NodeCache,
  type RetryPolicy,
  resolveRetry,
  retryDelayMs,
  stableHash,
} from "./policies.js";
import { Command, isEnd, Send } from "./routing.js";
import type { SubAgents } from "./sub-agents.js";
import { endWithError, startSpan, type TraceScope } from "./tracing.js";
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
}

/** A finished task's result: its outcome, marked done (one object, as 10,000 tasks of a fan-out hold theirs until the commit). */
export type DoneResult = TaskOutcome & { kind: "done" };

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
  readonly maxSteps: number;
  /** Default retry policy of nodes without one. */
  readonly retry: RetryPolicy | null;
  /** Where cached node results live. */
  readonly nodeCache: NodeCache | null;
  /** The tracer, or `null` (no spans at all). */
  readonly tracer: Tracer | null;
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
}

/** The mutable position of a run: the state and what runs next. */
export interface RunPosition {
  state: Record<string, unknown>;
  step: number;
  tasks: TaskSpec[];
  /** Results already known for tasks of the pending superstep (finished before a pause or crash). */
  known: Map<string, TaskOutcome>;
  /** Caches of paused tasks, by task id. */
  caches: Map<string, JsonObject>;
  /** Answers to interrupts, by key. */
  answers: Record<string, JsonValue>;
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
  journal: RunJournal | null;
  /** The run's span context when traced. */
  traceContext: Context | null;
  /** The run's sub-agents, made on first use. */
  subAgents: () => SubAgents;
  /**
   * Called after each superstep is applied, before the next is scheduled into the position:
   * `state` is the state after it, `before` the state before it.
   */
  onStepCommitted:
    | ((
        step: number,
        order: readonly TaskSpec[],
        next: readonly TaskSpec[],
        state: Record<string, unknown>,
        before: Record<string, unknown>,
      ) => Promise<void> | void)
    | null;
}

/** How a run of supersteps ended. */
export type LoopEnd =
  | { status: "completed" }
  | { status: "interrupted"; interrupts: InterruptInfo[]; results: Map<string, TaskResult> };

/** Start tasks for a run: the targets of START's edges, evaluated on `state`. */
export async function startTasks(
  graph: EngineGraph,
  state: Record<string, unknown>,
  step: number,
): Promise<TaskSpec[]> {
  const out: TaskSpec[] = [];
  const seen = new Set<string>();
  await addTargets(graph.flow.start, state, out, seen, step);
  return out;
}

/**
 * Schedule the targets of edges, in order: synchronous (no promise, no await) unless a
 * condition returns a promise, since a fan-out calls this once for each of its tasks.
 */
function addTargets(
  targets: readonly CompiledTarget[],
  state: Record<string, unknown>,
  out: TaskSpec[],
  seen: Set<string>,
  step: number,
  from = 0,
): Promise<void> | void {
  for (let i = from; i < targets.length; i++) {
    const t = targets[i]!;
    if (t.kind === "static") {
      addNames(t.names, out, seen, step);
      continue;
    }
    const r = t.condition(state);
    if (r instanceof Promise) {
      return r.then((v) => {
        addNames(v ? t.target : t.otherwise, out, seen, step);
        return addTargets(targets, state, out, seen, step, i + 1);
      });
    }
    addNames(r ? t.target : t.otherwise, out, seen, step);
  }
}

function addNames(
  names: readonly string[],
  out: TaskSpec[],
  seen: Set<string>,
  step: number,
): void {
  for (const name of names) {
    if (name === END_NAME || seen.has(name)) continue;
    seen.add(name);
    out.push({ id: `${step}:${out.length}`, name, payload: null });
  }
}

/**
 * Run supersteps from `pos` until nothing is left to run, a task pauses, or a task fails.
 * `pos` is updated in place after each committed superstep.
 */
export async function runLoop(
  graph: EngineGraph,
  pos: RunPosition,
  opts: EngineRunOptions,
): Promise<LoopEnd> {
  let stepsThisRun = 0;
  const host = makeHost(opts);
  while (pos.tasks.length > 0) {
    if (opts.signal.aborted) throw cancelled(graph, opts.signal);
    if (stepsThisRun >= opts.maxSteps) {
      const pending = pos.tasks.map((t) => t.name);
      throw new StepLimitError(
        `Graph "${graph.name}" reached its limit of ${opts.maxSteps} supersteps with nodes still to run (${[...new Set(pending)].join(", ")}); raise maxSteps, or check for a loop that never reaches END`,
        { graph: graph.name, maxSteps: opts.maxSteps, pending },
      );
    }
    const step = pos.step;
    let results: Map<string, TaskResult>;
    if (graph.tracer) {
      const s = startSpan(
        graph.tracer,
        `nodestep.superstep ${step}`,
        { "nodestep.step": step, "nodestep.tasks": pos.tasks.length },
        opts.traceContext,
      );
      try {
        results = await runSuperstep(graph, pos, { ...opts, traceContext: s.context }, host, step);
        s.span.end();
      } catch (e) {
        endWithError(s.span, e);
        throw e;
      }
    } else results = await runSuperstep(graph, pos, opts, host, step);
    let interrupted = false;
    for (const r of results.values()) if (r.kind === "interrupted") interrupted = true;
    if (interrupted) {
      const interrupts: InterruptInfo[] = [];
      for (const t of pos.tasks) {
        const r = results.get(t.id);
        if (r?.kind === "interrupted")
          for (const i of r.interrupts)
            interrupts.push({ key: i.key, value: i.value, node: t.name, taskId: t.id });
      }
      return { status: "interrupted", interrupts, results };
    }
    // Apply the updates in task order, to one fresh copy of the state.
    let state = pos.state;
    for (const t of pos.tasks) {
      const r = results.get(t.id) as DoneResult;
      if (!r.update) continue;
      try {
        if (state === pos.state) state = { ...state };
        applyUpdateTo(graph.state, state, r.update, t.name);
      } catch (e) {
        // The task's stored result can never be applied: drop it, so that continuing the thread runs the task again.
        if (opts.journal) await opts.journal.discardTask(step, t.id, t.name);
        throw e;
      }
    }
    // Schedule the next superstep.
    const next: TaskSpec[] = [];
    const seen = new Set<string>();
    const nextStep = step + 1;
    for (const t of pos.tasks) {
      const { routes } = results.get(t.id) as DoneResult;
      if (routes === null) {
        const cn = graph.flow.nodes.get(t.name)!;
        const pending = addTargets(cn.edges, state, next, seen, nextStep);
        if (pending) await pending;
      } else {
        for (const r of routes) {
          if (r.payload !== null)
            next.push({ id: `${nextStep}:${next.length}`, name: r.name, payload: r.payload });
          else if (!seen.has(r.name)) {
            seen.add(r.name);
            next.push({ id: `${nextStep}:${next.length}`, name: r.name, payload: null });
          }
        }
      }
    }
    if (opts.onStepCommitted) await opts.onStepCommitted(step, pos.tasks, next, state, pos.state);
    pos.state = state;
    pos.step = nextStep;
    pos.tasks = next;
    pos.known = new Map();
    pos.caches = new Map();
    stepsThisRun++;
    if (opts.emit && opts.modes.has("values"))
      opts.emit({ mode: "values", node: null, step, taskId: null, data: copyState(state) });
  }
  return { status: "completed" };
}

function cancelled(graph: EngineGraph, signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof RunCancelledError || reason instanceof NodeTimeoutError) return reason;
  return new RunCancelledError(`Run of graph "${graph.name}" was cancelled`, {
    graph: graph.name,
    cause: reason,
  });
}

function makeHost(opts: EngineRunOptions): TaskHost {
  return {
    wants: (mode) => opts.emit !== null && opts.modes.has(mode),
    emit: (mode: EmitMode, node, step, taskId, data) =>
      opts.emit?.({ mode, node, step, taskId, data }),
    saveCache: async (taskId, node, step, cache) => {
      if (opts.journal) await opts.journal.saveCache(step, taskId, node, cache);
    },
    forward: (event) => opts.emit?.(event),
    subAgents: opts.subAgents,
  };
}

async function runSuperstep(
  graph: EngineGraph,
  pos: RunPosition,
  opts: EngineRunOptions,
  host: TaskHost,
  step: number,
): Promise<Map<string, TaskResult>> {
  const run: StepRun = { graph, pos, opts, host, step };
  const results = new Map<string, TaskResult>();
  const tasks = pos.tasks;
  const toRun: TaskSpec[] = [];
  for (const t of tasks) {
    const known = pos.known.get(t.id);
    if (known) results.set(t.id, { kind: "done", update: known.update, routes: known.routes });
    else toRun.push(t);
  }
  if (toRun.length === 0) return results;
  if (toRun.length === 1) {
    const t = toRun[0]!;
    const r = runTask(run, t);
    results.set(t.id, r instanceof Promise ? await raceAbort(r, opts.signal, graph) : r);
    await afterTask(opts, step, t, results.get(t.id)!, true);
    return results;
  }
  // Several tasks: run them concurrently; each finishes into the results map. The first failure cancels the rest.
  await new Promise<void>((resolve, reject) => {
    let left = toRun.length;
    let failed = false;
    const onAbort = () => {
      if (!failed) {
        failed = true;
        reject(cancelled(graph, opts.signal));
      }
    };
    opts.signal.addEventListener("abort", onAbort, { once: true });
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      opts.signal.removeEventListener("abort", onAbort);
      reject(e);
    };
    const done = () => {
      if (--left === 0 && !failed) {
        opts.signal.removeEventListener("abort", onAbort);
        resolve();
      }
    };
    // A task's result goes into the map as soon as it is known; a synchronous node's result
    // (and its pending write, when the journal has nothing to await) costs no promise.
    const finish = (t: TaskSpec, res: TaskResult) => {
      if (failed) return;
      results.set(t.id, res);
      let after: Promise<void> | void;
      try {
        after = afterTask(opts, step, t, res);
      } catch (e) {
        fail(e);
        return;
      }
      if (after) after.then(done, fail);
      else done();
    };
    for (const t of toRun) {
      let r: TaskResult | Promise<TaskResult>;
      try {
        r = runTask(run, t);
      } catch (e) {
        fail(e);
        return;
      }
      if (r instanceof Promise) r.then((res) => finish(t, res), fail);
      else finish(t, r);
    }
  });
  return results;
}

/** Emit a finished task's update and give the journal its pending write (a promise only when it has one). */
function afterTask(
  opts: EngineRunOptions,
  step: number,
  t: TaskSpec,
  r: TaskResult,
  defer = false,
): Promise<void> | void {
  if (r.kind !== "done") return;
  if (opts.emit && opts.modes.has("updates")) {
    opts.emit({ mode: "updates", node: t.name, step, taskId: t.id, data: r.update ?? {} });
  }
  if (opts.journal) return opts.journal.taskFinished(step, t, r, defer);
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignal, graph: EngineGraph): Promise<T> {
  if (signal.aborted) return Promise.reject(cancelled(graph, signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled(graph, signal));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** What every task of one superstep shares, made once per superstep. */
interface StepRun {
  readonly graph: EngineGraph;
  readonly pos: RunPosition;
  readonly opts: EngineRunOptions;
  readonly host: TaskHost;
  readonly step: number;
}

const resolvedPolicies = new WeakMap<RetryPolicy, ReturnType<typeof resolveRetry>>();

/** A node's retry policy with its defaults filled, resolved once per policy object. */
function resolvedRetry(policy: RetryPolicy, node: string): ReturnType<typeof resolveRetry> {
  let r = resolvedPolicies.get(policy);
  if (!r) {
    r = resolveRetry(policy, `node "${node}"`);
    resolvedPolicies.set(policy, r);
  }
  return r;
}

function runTask(run: StepRun, t: TaskSpec): TaskResult | Promise<TaskResult> {
  const { graph } = run;
  if (graph.tracer) return traceTask(run, t, graph.tracer);
  return runTaskPolicies(run, t, null);
}

async function traceTask(run: StepRun, t: TaskSpec, tracer: Tracer): Promise<TaskResult> {
  const { opts, step } = run;
  const s = startSpan(
    tracer,
    `nodestep.node ${t.name}`,
    { "nodestep.node": t.name, "nodestep.task_id": t.id, "nodestep.step": step },
    opts.traceContext,
  );
  try {
    const r = await runTaskPolicies(run, t, {
      tracer,
      context: s.context,
    });
    if (r.kind === "interrupted") s.span.setAttribute("nodestep.interrupted", true);
    s.span.end();
    return r;
  } catch (e) {
    endWithError(s.span, e);
    throw e;
  }
}

function runTaskPolicies(
  run: StepRun,
  t: TaskSpec,
  scope: TraceScope | null,
): TaskResult | Promise<TaskResult> {
  const { graph, step } = run;
  const cn = graph.flow.nodes.get(t.name);
  if (!cn) {
    throw new GraphExecutionError(`Graph "${graph.name}" has no node "${t.name}" to run`, {
      graph: graph.name,
      node: t.name,
      step,
    });
  }
  const retry = cn.node.retry ?? graph.retry;
  if (retry === null && cn.node.cache === null) return attemptTask(run, t, cn, scope);
  return runWithPolicies(run, t, cn, retry, scope);
}

async function runWithPolicies(
  run: StepRun,
  t: TaskSpec,
  cn: CompiledNode,
  retry: RetryPolicy | null,
  scope: TraceScope | null,
): Promise<TaskResult> {
  const { graph, pos, opts } = run;
  let cacheKey: string | null = null;
  const cachePolicy = cn.node.cache;
  if (cachePolicy && graph.nodeCache) {
    const input = t.payload ? { ...pos.state, ...t.payload } : pos.state;
    cacheKey = `${graph.name}/${cn.name}/${cachePolicy.key ? cachePolicy.key(input) : stableHash(input)}`;
    const hit = await graph.nodeCache.get(cacheKey);
    if (hit !== null) return { kind: "done", ...(hit as unknown as TaskOutcome) };
  }
  const policy = retry ? resolvedRetry(retry, cn.name) : null;
  for (let attempt = 1; ; attempt++) {
    let r: TaskResult;
    try {
      r = await attemptTask(run, t, cn, scope);
    } catch (e) {
      if (!policy || attempt >= policy.maxAttempts || opts.signal.aborted || !policy.retryOn(e))
        throw e;
      await sleepUnlessAborted(retryDelayMs(policy, attempt), opts.signal);
      continue;
    }
    if (r.kind === "done" && cacheKey !== null && graph.nodeCache) {
      await graph.nodeCache.set(
        cacheKey,
        { update: r.update, routes: r.routes } as unknown as JsonValue,
        cachePolicy?.ttlMs ?? null,
      );
    }
    return r;
  }
}

function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function attemptTask(
  run: StepRun,
  t: TaskSpec,
  cn: CompiledNode,
  scope: TraceScope | null,
): TaskResult | Promise<TaskResult> {
  const { graph, pos, opts, host, step } = run;
  // The node's own copy of what it receives: the state, with a Send's payload over it.
  const input = copyState(pos.state, t.payload);
  const timeoutMs = cn.node.timeoutMs;
  let signal = opts.signal;
  let controller: AbortController | null = null;
  if (timeoutMs !== null) {
    controller = new AbortController();
    signal = AbortSignal.any([opts.signal, controller.signal]);
  }
  const saved = pos.caches.get(t.id);
  const cache: JsonObject = saved ? { ...saved } : {};
  const ctx = new TaskContext(
    graph.name,
    opts.runId,
    opts.rootRunId,
    opts.originRunId,
    opts.threadId,
    opts.branchId,
    step,
    t.name,
    t.id,
    graph.middleware,
    graph.workspace,
    graph.stateStore,
    graph.state,
    opts.modeList,
    cache,
    pos.answers,
    signal,
    host,
    opts.context as { value: unknown; given: boolean },
    scope,
  );
  const started = timeoutMs !== null ? performance.now() : 0;
  let ret: unknown;
  try {
    ret = (cn.node as Node<Record<string, unknown>>).handler(input, ctx);
  } catch (e) {
    return settleError(e, cache, graph, t.name, step);
  }
  if (!(ret instanceof Promise)) {
    if (timeoutMs !== null && performance.now() - started > timeoutMs)
      throw timeoutError(graph, cn, timeoutMs);
    return interpret(run, cn, t, input, ret);
  }
  const finish = (p: Promise<unknown>) =>
    p.then(
      (value): TaskResult => interpret(run, cn, t, input, value),
      (e): TaskResult => settleError(e, cache, graph, t.name, step),
    );
  if (timeoutMs === null) return finish(ret);
  return new Promise<TaskResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      const err = timeoutError(graph, cn, timeoutMs);
      controller!.abort(err);
      reject(err);
    }, timeoutMs);
    finish(ret as Promise<unknown>).then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

function settleError(
  e: unknown,
  cache: JsonObject,
  graph?: EngineGraph,
  node?: string,
  step?: number,
): TaskResult {
  if (e instanceof GraphInterrupt) {
    for (const i of e.interrupts) {
      const bad = findNonJson(i.value, "value");
      if (bad) {
        throw new StateStoreError(
          `Node "${node}": the value of interrupt "${i.key}" is not JSON (${bad.path}: ${bad.problem})`,
          { field: bad.path },
        );
      }
    }
    const badCache = findNonJson(cache, "ctx.cache");
    if (badCache)
      throw new StateStoreError(
        `Node "${node}": ${badCache.path} is not JSON (${badCache.problem})`,
        { field: badCache.path },
      );
    return { kind: "interrupted", interrupts: e.interrupts, cache };
  }
  if (!(e instanceof Error) && graph) {
    throw new GraphExecutionError(
      `Node "${node}" of graph "${graph.name}" threw ${e === null ? "null" : typeof e === "object" ? "an object" : `a ${typeof e} (${String(e).slice(0, 80)})`}, not an Error; it is kept as the cause`,
      { graph: graph.name, node, step, cause: e },
    );
  }
  throw e;
}

function timeoutError(graph: EngineGraph, cn: CompiledNode, timeoutMs: number): NodeTimeoutError {
  return new NodeTimeoutError(
    `Node "${cn.name}" of graph "${graph.name}" did not finish within ${timeoutMs} ms`,
    {
      node: cn.name,
      timeoutMs,
    },
  );
}

/** Turn a node's return value into a prepared update and routes. */
function interpret(
  run: StepRun,
  cn: CompiledNode,
  t: TaskSpec,
  input: Record<string, unknown>,
  ret: unknown,
): DoneResult {
  const { graph, step } = run;
  if (ret === undefined || ret === null) return { kind: "done", update: null, routes: null };
  if (isEnd(ret))
    return {
      kind: "done",
      update: null,
      routes: checkGoto(graph, cn, [ret], step, "a returned END"),
    };
  if (ret instanceof Command) {
    const update = ret.update === null ? null : prepare(graph, cn, ret.update);
    const routes =
      ret.goto === null
        ? null
        : checkGoto(
            graph,
            cn,
            Array.isArray(ret.goto) ? ret.goto : [ret.goto],
            step,
            "Command.goto",
          );
    return { kind: "done", update, routes };
  }
  if (ret instanceof Send)
    return {
      kind: "done",
      update: null,
      routes: checkGoto(graph, cn, [ret], step, "a returned Send"),
    };
  if (Array.isArray(ret)) {
    if (ret.length > 0 && ret.every((x) => x instanceof Send)) {
      return {
        kind: "done",
        update: null,
        routes: checkGoto(graph, cn, ret, step, "returned Sends"),
      };
    }
    throw new StateUpdateError(
      `Node "${cn.name}" returned an array; a node returns an update object, its state changed in place, a Command, a Send or an array of Sends, END, or nothing`,
      { node: cn.name },
    );
  }
  if (ret === input) {
    // The state it received, changed in place: each changed field is written as it is.
    const state = run.pos.state;
    const payload = t.payload;
    const received = (key: string): unknown =>
      payload !== null && Object.hasOwn(payload, key) ? payload[key] : state[key];
    for (const key in state) {
      if (!Object.hasOwn(input, key)) {
        throw new StateUpdateError(
          `Node "${cn.name}" returned its state without field "${key}"; a node cannot remove a state field (set it to null, or to its default)`,
          { node: cn.name, field: key },
        );
      }
    }
    const diff: Record<string, unknown> = {};
    let any = false;
    for (const key in input) {
      const value = input[key];
      if (!sameOneLevel(value, received(key))) {
        diff[key] = { $nodestep: "replace", value };
        any = true;
      }
    }
    return { kind: "done", update: any ? prepare(graph, cn, diff) : null, routes: null };
  }
  if (isPlainObject(ret)) return { kind: "done", update: prepare(graph, cn, ret), routes: null };
  throw new StateUpdateError(
    `Node "${cn.name}" returned ${describeValue(ret)}; a node returns an update object, its state changed in place, a Command, a Send or an array of Sends, END, or nothing`,
    { node: cn.name },
  );
}

function prepare(graph: EngineGraph, cn: CompiledNode, update: unknown): PreparedUpdate | null {
  const p = prepareUpdate(graph.state, update, cn.name);
  for (const _ in p) return p;
  return null;
}

function checkGoto(
  graph: EngineGraph,
  cn: CompiledNode,
  targets: readonly unknown[],
  step: number,
  how: string,
): TaskRoutes {
  const routes: NonNullable<TaskRoutes> = [];
  for (const t of targets) {
    let name: string;
    let payload: Record<string, unknown> | null = null;
    if (t instanceof Send) {
      name = nameOf(t.node);
      payload = preparePayload(graph.state, t.payload, name);
    } else name = nameOf(t);
    if (!cn.goto?.has(name)) {
      const shown = name === END_NAME ? "END" : `"${name}"`;
      throw new GraphExecutionError(
        `Node "${cn.name}" routed to ${shown} through ${how}, but ${shown} is not in its goto list${cn.goto ? ` (${[...cn.goto].map((g) => (g === END_NAME ? "END" : g)).join(", ")})` : ""}; declare it with node(fn, { goto: [...] })`,
        { graph: graph.name, node: cn.name, step },
      );
    }
    if (name === END_NAME) continue;
    routes.push({ name, payload: payload ?? (t instanceof Send ? {} : null) });
  }
  return routes;
}

function nameOf(t: unknown): string {
  if (isEnd(t)) return END_NAME;
  if (typeof t === "string") return t;
  if (typeof t === "object" && t !== null && (t as { kind?: unknown }).kind === "node")
    return (t as { name: string }).name;
  return `<${describeValue(t)}>`;
}
