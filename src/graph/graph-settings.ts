/**
 * A graph's settings, made (and checked) from `new Graph(state, options)`: each option
 * checked in turn, with its default when absent. `graph.ts` keeps them as the graph's fields.
 *
 * @module
 */
import type { Tracer } from "@opentelemetry/api";
import { resolveLazy } from "../lazy.js";
import type { MemoryStore } from "../memory/types.js";
import { isStateDefinition, type StateDefinition } from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import type { BreakpointNodes } from "./breakpoints.js";
import type { ErrorHandler } from "./error-handler.js";
import type { GraphOptions, NewInputCheck } from "./graph-options.js";
import { resolveFieldSchema } from "./io-schema.js";
import { type NodeCache, type RetryPolicy, resolveRetry } from "./policies.js";
import {
  checkGraphOptions,
  checkMaxConcurrency,
  checkMaxSteps,
  checkMemoryStore,
  checkOnError,
  checkStateStore,
} from "./run-options.js";
import { resolveTracer } from "./tracing.js";

/** What `new Graph` keeps of its state and options (the fields of the same names on `Graph`). */
export interface GraphSettings {
  state: StateDefinition | null;
  name: string;
  stateStore: StateStore | null;
  workspace: unknown;
  memoryStore: MemoryStore | null;
  middleware: readonly unknown[];
  leaseTtlMs: number;
  retry: RetryPolicy | null;
  nodeCache: NodeCache | null;
  tracer: Tracer | null;
  interruptBefore: BreakpointNodes | undefined;
  interruptAfter: BreakpointNodes | undefined;
  maxConcurrency: number | null;
  onError: ErrorHandler | null;
  inputFields: readonly string[] | null;
  outputFields: readonly string[] | null;
  maxSteps: number;
  checkInput: NewInputCheck | null;
}

/**
 * The settings of `new Graph(state, options)`.
 * @throws what the `Graph` constructor documents, in this order: `state`, the options'
 *   keys and types (`checkGraphOptions`), `stateStore`, `memoryStore`, `retry`,
 *   `maxConcurrency`, `onError`, `input`, `output`, `maxSteps`.
 */
export function graphSettings(state: unknown, options: GraphOptions): GraphSettings {
  if (state !== null && state !== undefined && !isStateDefinition(state)) {
    throw new TypeError(
      "new Graph(state, options): state must be a defineState(...) definition or null",
    );
  }
  checkGraphOptions(options);
  // AgentState is a lazyObject stand-in: keep the definition itself, read on every step.
  const def = resolveLazy((state ?? null) as StateDefinition | null);
  const name = options.name ?? "graph";
  const stateStore = options.stateStore ?? null;
  checkStateStore(name, stateStore);
  const workspace = options.workspace ?? null;
  const memoryStore = checkMemoryStore(options.memoryStore, `Graph "${name}"`);
  const middleware = options.middleware ?? [];
  const leaseTtlMs = options.leaseTtlMs ?? 30_000;
  if (options.retry) resolveRetry(options.retry, `Graph "${name}"`);
  const retry = options.retry ?? null;
  const nodeCache = options.nodeCache ?? null;
  const tracer = resolveTracer(options.tracer);
  const { interruptBefore, interruptAfter } = options;
  checkMaxConcurrency(name, options.maxConcurrency);
  const maxConcurrency = options.maxConcurrency ?? null;
  checkOnError(name, options.onError);
  const onError = options.onError ?? null;
  const inputFields = resolveFieldSchema(name, "input", options.input, def);
  const outputFields = resolveFieldSchema(name, "output", options.output, def);
  const maxSteps = options.maxSteps ?? 25;
  checkMaxSteps(name, maxSteps);
  return {
    state: def,
    name,
    stateStore,
    workspace,
    memoryStore,
    middleware,
    leaseTtlMs,
    retry,
    nodeCache,
    tracer,
    interruptBefore,
    interruptAfter,
    maxConcurrency,
    onError,
    inputFields,
    outputFields,
    maxSteps,
    checkInput: options.checkInput ?? null,
  };
}
