/**
 * Running one task: its node's handler with a fresh context, under its retry, cache and
 * timeout policies (and a span when traced); a pause (`interrupt`) or a failure settled into
 * a task result or a clear error.
 *
 * @module
 */

import type { Tracer } from "@opentelemetry/api";
import { GraphExecutionError, NodeTimeoutError, StateStoreError } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import { findNonJson } from "../json/index.js";
import { copyState } from "../state/state-copy.js";
import type { CompiledNode } from "./compile.js";
import { GraphInterrupt, TaskContext } from "./context.js";
import type { EngineGraph, StepRun, TaskOutcome, TaskResult, TaskSpec } from "./engine-types.js";
import { type ErrorHandler, withErrorHandler } from "./error-handler.js";
import { frozenValue } from "./frozen-value.js";
import { interpret } from "./interpret.js";
import type { Node } from "./node.js";
import {
  nodeCachePrefix,
  type RetryPolicy,
  resolveRetry,
  retryDelayMs,
  stableHash,
} from "./policies.js";
import { endWithError, startSpan, type TraceScope } from "./tracing.js";

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

export function runTask(run: StepRun, t: TaskSpec): TaskResult | Promise<TaskResult> {
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
  const onError = cn.node.onError ?? graph.onError ?? null;
  if (onError !== null) {
    return withErrorHandler(run, t, cn, onError as ErrorHandler, () =>
      retry === null && cn.node.cache === null
        ? attemptTask(run, t, cn, scope)
        : runWithPolicies(run, t, cn, retry, scope),
    );
  }
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
  // A task that paused in this superstep and now runs with answers: its result depends on
  // them, so it is neither served from the cache by its input nor stored there (below).
  let resumed = false;
  for (const _ in pos.answers) {
    resumed = pos.caches.has(t.id);
    break;
  }
  if (cachePolicy && graph.nodeCache && !resumed) {
    const input = t.payload ? { ...pos.state, ...t.payload } : pos.state;
    cacheKey = `${nodeCachePrefix(graph.name, cn.name)}${cachePolicy.key ? cachePolicy.key(input) : stableHash(input)}`;
    const hit = await graph.nodeCache.get(cacheKey);
    // The run's own copy of the entry: the run, its nodes, a stream listener and the caller
    // may change its objects in place, and the entry must stay what the node returned. Being
    // a copy, the engine keeps it without another (`owned`).
    if (hit !== null)
      return {
        kind: "done",
        ...frozenValue(hit as unknown as TaskOutcome),
        owned: true,
        cached: true,
      };
  }
  let ctx: TaskContext | null = null;
  const seen = (c: TaskContext) => {
    ctx = c;
  };
  const policy = retry ? resolvedRetry(retry, cn.name) : null;
  for (let attempt = 1; ; attempt++) {
    let r: TaskResult;
    try {
      r = await attemptTask(run, t, cn, scope, cacheKey !== null ? seen : undefined);
    } catch (e) {
      if (!policy || attempt >= policy.maxAttempts || opts.signal.aborted || !policy.retryOn(e))
        throw e;
      await sleepUnlessAborted(retryDelayMs(policy, attempt), opts.signal);
      if (opts.signal.aborted) throw e;
      continue;
    }
    // A result that read an answer is the answer's, not the input's alone: not stored.
    const answered = (ctx as TaskContext | null)?.usedAnswers === true;
    if (r.kind === "done" && !r.toParent && !answered && cacheKey !== null && graph.nodeCache) {
      // The cache keeps a copy of its own: the run goes on with the update (the engine copies
      // it only for the event log), and the node, later nodes, a stream listener or the
      // caller may still change that update's objects in place.
      await graph.nodeCache.set(
        cacheKey,
        frozenValue({ update: r.update, routes: r.routes }) as unknown as JsonValue,
        cachePolicy?.ttlMs ?? null,
        ...(opts.threadId !== null ? [opts.threadId] : []),
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
  seen?: (ctx: TaskContext) => void,
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
    graph.memoryStore,
  );
  seen?.(ctx);
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
  // (Inline callbacks, not a named helper: a named closure per task costs a name set on it in
  // the build, esbuild's keepNames.)
  const finished = ret.then(
    (value): TaskResult => interpret(run, cn, t, input, value),
    (e): TaskResult => settleError(e, cache, graph, t.name, step),
  );
  if (timeoutMs === null) return finished;
  return new Promise<TaskResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      const err = timeoutError(graph, cn, timeoutMs);
      controller!.abort(err);
      reject(err);
    }, timeoutMs);
    finished.then(
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
