/**
 * The graph side of the cold test mode (see cold-mode.ts): every call of a graph's thread
 * methods runs on a new `Graph` built from the same definition, flow and options, whose store
 * (and any `stateStore` option of the call) is a new instance over the same data. So nothing a
 * graph object or a store instance keeps between calls can reach the next call: only what the
 * store holds does. The instances are closed when the call has settled (for a stream, when its
 * iteration ends).
 */
import { Graph, type GraphOptions } from "../../src/graph/graph.js";
import {
  isSubgraphRun,
  markSubgraphRun,
  subgraphParentTask,
} from "../../src/graph/parent-command.js";
import { markRewind, rewindOf } from "../../src/graph/stable-rewind.js";
import type { RunOptions } from "../../src/graph/types.js";
import type { StateStore } from "../../src/stores/types.js";
import { coldCounts } from "./cold-stores.js";

/** Open a new instance over the same data as a store, or `null` to keep the store. */
export type Reopen = (store: StateStore) => StateStore | null;

type AnyGraph = Graph<never>;

/** A call's new graph, its options with the store option reopened, and the instances to close. */
interface ColdCall {
  graph: AnyGraph;
  options: unknown;
  opened: StateStore[];
}

function reopened(store: StateStore | null, reopen: Reopen, opened: StateStore[]) {
  if (store === null) return null;
  const s = reopen(store);
  if (s === null) {
    coldCounts.storesKept++;
    return store;
  }
  coldCounts.storesOpened++;
  opened.push(s);
  return s;
}

/**
 * The options a graph was built with, as its public fields show them, on `store` (every key
 * of `GraphOptions`: test/cold-harness.test.ts checks the list against the graph's own).
 */
export function optionsOf(g: AnyGraph, store: StateStore | null): GraphOptions {
  const o: GraphOptions = {
    name: g.name,
    stateStore: store,
    maxSteps: g.maxSteps,
    middleware: g.middleware,
    leaseTtlMs: g.leaseTtlMs,
  };
  if (g.workspace !== null) o.workspace = g.workspace;
  if (g.memoryStore !== null) o.memoryStore = g.memoryStore;
  if (g.retry !== null) o.retry = g.retry;
  // Node results cached in the graph's process memory are not the thread's: they are kept.
  if (g.nodeCache !== null) o.nodeCache = g.nodeCache;
  if (g.tracer !== null) o.tracer = g.tracer;
  if (g.interruptBefore !== undefined) o.interruptBefore = g.interruptBefore;
  if (g.interruptAfter !== undefined) o.interruptAfter = g.interruptAfter;
  if (g.onError !== null) o.onError = g.onError;
  if (g.maxConcurrency !== null) o.maxConcurrency = g.maxConcurrency;
  if (g.checkInput !== null) o.checkInput = g.checkInput;
  if (g.inputFields !== null) o.input = g.inputFields;
  if (g.outputFields !== null) o.output = g.outputFields;
  return o;
}

function coldCall(g: AnyGraph, options: unknown, reopen: Reopen): ColdCall | null {
  let edges: AnyGraph["compiled"]["edges"];
  try {
    edges = g.compiled.edges;
  } catch {
    return null; // no flow yet: the call fails as it would on the graph itself
  }
  const opened: StateStore[] = [];
  const store = reopened(g.stateStore, reopen, opened);
  const graph = new Graph(g.state, optionsOf(g, store)).flow(...edges) as AnyGraph;
  let callOptions = options;
  if (
    typeof options === "object" &&
    options !== null &&
    !Array.isArray(options) &&
    (options as { stateStore?: unknown }).stateStore
  ) {
    const given = (options as { stateStore: StateStore }).stateStore;
    callOptions = { ...options, stateStore: reopened(given, reopen, opened) };
    // A subgraph's child run keeps what its node marked on its options (its parent's task,
    // where its branch goes back to first).
    const from = options as RunOptions;
    const to = callOptions as RunOptions;
    if (isSubgraphRun(from)) markSubgraphRun(to, subgraphParentTask(from));
    const rewind = rewindOf(from);
    if (rewind !== undefined) markRewind(to, rewind);
  }
  coldCounts.calls++;
  return { graph, options: callOptions, opened };
}

function closeAll(call: ColdCall, original: AnyGraph): void {
  if (original.nodeCache === null && call.graph.nodeCache !== null) {
    original.nodeCache = call.graph.nodeCache;
  }
  for (const s of call.opened) void s.close().catch(() => {});
}

/**
 * Wait until the call's new store instances have connected and checked their tables (a
 * PostgreSQL store's `ready()`), as a new process's store has before it runs anything: a
 * lease taken on a new pool would otherwise count the connection's set-up against its time.
 */
async function ready(call: ColdCall): Promise<void> {
  for (const s of call.opened) await (s as { ready?: () => Promise<void> }).ready?.();
}

/** The thread methods of a graph that return a promise. */
const PROMISED = ["invoke", "getState", "updateState", "history", "fork", "deleteThread"] as const;

/**
 * Patch `Graph.prototype` so that every call of {@link PROMISED} and `stream` runs cold.
 * Idempotent.
 */
export function installColdGraphs(reopen: Reopen): void {
  const proto = Graph.prototype as unknown as Record<string, unknown> & { __cold?: true };
  if (proto.__cold) return;
  proto.__cold = true;
  for (const name of PROMISED) {
    const original = proto[name] as (this: AnyGraph, ...args: unknown[]) => Promise<unknown>;
    proto[name] = function (this: AnyGraph, ...args: unknown[]) {
      const optionsAt = name === "invoke" || name === "getState" ? 1 : -1;
      const call = coldCall(this, optionsAt >= 0 ? args[optionsAt] : undefined, reopen);
      if (call === null) return original.apply(this, args);
      if (optionsAt >= 0 && args.length > optionsAt) args[optionsAt] = call.options;
      return ready(call)
        .then(() => original.apply(call.graph, args))
        .finally(() => closeAll(call, this));
    };
  }
  const stream = proto.stream as (this: AnyGraph, ...args: unknown[]) => AsyncIterable<unknown>;
  proto.stream = function (this: AnyGraph, ...args: unknown[]) {
    const call = coldCall(this, args[1], reopen);
    if (call === null) return stream.apply(this, args);
    if (args.length > 1) args[1] = call.options;
    let iterable: AsyncIterable<unknown>;
    try {
      iterable = stream.apply(call.graph, args);
    } catch (e) {
      closeAll(call, this);
      throw e;
    }
    return {
      [Symbol.asyncIterator]: () => {
        // The run starts when the iterator is made: once the store instances are ready.
        const started = ready(call).then(() => iterable[Symbol.asyncIterator]());
        const end = <T>(r: T): T => {
          closeAll(call, this);
          return r;
        };
        return {
          next: () =>
            started
              .then((it) => it.next())
              .then(
                (r) => (r.done ? end(r) : r),
                (e: unknown) => {
                  end(null);
                  throw e;
                },
              ),
          return: () =>
            started
              .then((it) =>
                it.return
                  ? it.return()
                  : Promise.resolve({ value: undefined, done: true as const }),
              )
              .then(end),
        };
      },
    };
  };
}
