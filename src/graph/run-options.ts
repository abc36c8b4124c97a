/**
 * Checks of the options of `new Graph`, of a run (`invoke`, `stream`) and of the thread
 * reads (`getState`, `history`, `fork`): wrong types and unknown keys are refused with a
 * clear error before anything runs.
 *
 * @module
 */
import { ValueError } from "../errors/index.js";
import type { MemoryStore } from "../memory/types.js";
import { describeValue } from "../state/define-state.js";
import { MAX_LEASE_TTL_MS } from "../stores/internal.js";
import type { StateStore } from "../stores/types.js";
import { checkBreakpointList } from "./breakpoints.js";
import { checkBusyOptions } from "./busy.js";
import type { StreamMode } from "./context.js";
import { checkDurability } from "./durability.js";
import type { GraphOptions } from "./graph.js";
import { checkGraphName } from "./names.js";
import type { RunOptions } from "./types.js";

/**
 * Check a `memoryStore` option: a {@link MemoryStore} or nothing.
 * @throws TypeError for anything else.
 */
export function checkMemoryStore(store: unknown, where: string): MemoryStore | null {
  if (store === undefined || store === null) return null;
  const s = store as Partial<MemoryStore>;
  if (
    typeof s.put !== "function" ||
    typeof s.search !== "function" ||
    typeof s.get !== "function"
  ) {
    throw new TypeError(
      `${where}: memoryStore must be a MemoryStore (InMemoryStore, SqliteMemoryStore, PostgresMemoryStore or your own)`,
    );
  }
  return store as MemoryStore;
}

/** Every key of {@link GraphOptions}. */
export const GRAPH_OPTIONS: ReadonlySet<string> = new Set<keyof GraphOptions>([
  "name",
  "stateStore",
  "workspace",
  "memoryStore",
  "maxSteps",
  "middleware",
  "leaseTtlMs",
  "retry",
  "nodeCache",
  "tracer",
  "interruptBefore",
  "interruptAfter",
  "maxConcurrency",
  "onError",
  "input",
  "output",
  "checkInput",
]);

/**
 * Check the options of `new Graph`: an object with only known keys, a valid `name` (see
 * `NODE_NAME_PATTERN`), a positive integer `leaseTtlMs`, a `middleware` list, a `nodeCache`
 * with `get` and `set`, a `tracer` that is a Tracer or a boolean, and breakpoint lists. The
 * other options are checked by the constructor itself.
 * @throws TypeError naming the option and what it got.
 */
export function checkGraphOptions(options: GraphOptions): void {
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
  checkGraphName(options.name);
  const name = options.name ?? "graph";
  const o = options as Record<string, unknown>;
  const where = `Graph "${name}"`;
  const ttl = o.leaseTtlMs;
  if (
    ttl !== undefined &&
    !(typeof ttl === "number" && Number.isInteger(ttl) && ttl > 0 && ttl <= MAX_LEASE_TTL_MS)
  ) {
    throw new TypeError(
      `${where}: leaseTtlMs must be a positive integer number of milliseconds up to ${MAX_LEASE_TTL_MS} (about 24.8 days), got ${describeValue(ttl)}`,
    );
  }
  if (o.middleware !== undefined && !Array.isArray(o.middleware)) {
    throw new TypeError(
      `${where}: middleware must be a list (an array), got ${describeValue(o.middleware)}`,
    );
  }
  const cache = o.nodeCache as Record<string, unknown> | null | undefined;
  if (
    cache !== undefined &&
    (cache === null ||
      typeof cache !== "object" ||
      typeof cache.get !== "function" ||
      typeof cache.set !== "function")
  ) {
    throw new TypeError(
      `${where}: nodeCache must be a NodeCache (MemoryNodeCache, StoreNodeCache or your own with get and set), got ${describeValue(cache)}`,
    );
  }
  if (o.checkInput !== undefined && typeof o.checkInput !== "function") {
    throw new TypeError(
      `${where}: checkInput must be a function ({ threadId, state, input, interrupts }) => void, got ${describeValue(o.checkInput)}`,
    );
  }
  const tracer = o.tracer as Record<string, unknown> | boolean | null | undefined;
  if (
    tracer !== undefined &&
    tracer !== null &&
    typeof tracer !== "boolean" &&
    (typeof tracer !== "object" || typeof tracer.startSpan !== "function")
  ) {
    throw new TypeError(
      `${where}: tracer must be an OpenTelemetry Tracer or true/false, got ${describeValue(tracer)}`,
    );
  }
  checkBreakpointList(name, "interruptBefore", options.interruptBefore);
  checkBreakpointList(name, "interruptAfter", options.interruptAfter);
}

/**
 * Check the thread id and the named string options of getState, history and fork as
 * invoke checks its own (a wrong type would otherwise read as the name of a missing branch).
 * With `known` (the operation's name and its public options), any other key is refused:
 * a misspelled `eventId` would otherwise read the thread as it is now. `internal` keys are
 * accepted without being listed in the message (a subgraph's `stateStore`).
 * @throws TypeError naming the option.
 */
export function checkReadOptions(
  graph: string,
  threadId: unknown,
  options: unknown,
  keys: readonly string[],
  known?: { op: string; keys: readonly string[]; internal?: readonly string[] },
): void {
  checkId(graph, "threadId", threadId, true);
  if (options === null || typeof options !== "object") {
    throw new TypeError(
      `Graph "${graph}": options must be an object, got ${options === null ? "null" : typeof options}`,
    );
  }
  const o = options as Record<string, unknown>;
  if (known) {
    for (const k of Object.keys(o)) {
      if (!known.keys.includes(k) && !known.internal?.includes(k)) {
        throw new TypeError(
          `Graph "${graph}": unknown ${known.op} option "${k}"; the options are ${known.keys.join(", ")}`,
        );
      }
    }
  }
  for (const k of keys) checkId(graph, k, o[k], false);
}

/** Every key of {@link RunOptions}, in its order (the type check keeps the list complete). */
const RUN_OPTIONS = [
  "threadId",
  "branchId",
  "context",
  "signal",
  "resume",
  "maxSteps",
  "rootRunId",
  "runId",
  "stateStore",
  "memoryStore",
  "onEvent",
  "modes",
  "interruptBefore",
  "interruptAfter",
  "maxConcurrency",
  "onBusy",
  "onBusyTimeoutMs",
  "durability",
] as const satisfies readonly (keyof RunOptions)[];
// A key added to RunOptions and not to the list fails to compile here.
const RUN_OPTIONS_COMPLETE: Exclude<keyof RunOptions, (typeof RUN_OPTIONS)[number]> extends never
  ? true
  : false = true;
void RUN_OPTIONS_COMPLETE;
const RUN_OPTION_SET: ReadonlySet<string> = new Set(RUN_OPTIONS);

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

/**
 * Check the options of a run; unknown keys and wrong types are refused before anything runs.
 * @throws TypeError for an unknown key or a wrong type; ValueError for a value out of range.
 */
export function checkRunOptions(graph: string, options: RunOptions): void {
  if (options === null || typeof options !== "object") {
    throw new TypeError(
      `Graph "${graph}": run options must be an object, got ${options === null ? "null" : typeof options}`,
    );
  }
  const o = options as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!RUN_OPTION_SET.has(k)) {
      throw new TypeError(
        `Graph "${graph}": unknown run option "${k}"; the options are ${RUN_OPTIONS.join(", ")}`,
      );
    }
  }
  if (o.maxSteps !== undefined && (!Number.isInteger(o.maxSteps) || (o.maxSteps as number) < 1)) {
    throw new ValueError(
      `Graph "${graph}": maxSteps must be a positive integer, got ${String(o.maxSteps)}`,
    );
  }
  for (const k of ["threadId", "branchId", "rootRunId", "runId"]) checkId(graph, k, o[k], false);
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
  checkBreakpointList(graph, "interruptBefore", o.interruptBefore);
  checkBreakpointList(graph, "interruptAfter", o.interruptAfter);
  checkMaxConcurrency(graph, o.maxConcurrency);
  checkBusyOptions(graph, o.onBusy, o.onBusyTimeoutMs);
  checkDurability(graph, o.durability);
  if (o.onBusy !== undefined && o.threadId === undefined) {
    throw new ValueError(
      `Graph "${graph}": onBusy says what a run does when its thread is busy, and a run without a threadId has no thread; run with a threadId (and a state store)`,
    );
  }
}

/** @throws ValueError unless `value` is absent or a positive integer. */
export function checkMaxConcurrency(graph: string, value: unknown): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || (value as number) < 1) {
    throw new ValueError(
      `Graph "${graph}": maxConcurrency must be a positive integer (tasks of a superstep at once), got ${String(value)}`,
    );
  }
}

/** Every stream mode, in the order the docs list them. */
export const STREAM_MODES: readonly StreamMode[] = [
  "values",
  "updates",
  "custom",
  "tokens",
  "messages",
  "tasks",
  "checkpoints",
  "debug",
];
const MODE_SET: ReadonlySet<string> = new Set(STREAM_MODES);

/** @throws ValueError for a mode that is not a stream mode. */
export function checkModes(modes: readonly StreamMode[]): void {
  for (const m of modes) {
    if (!MODE_SET.has(m))
      throw new ValueError(
        `Unknown stream mode "${m}"; use ${STREAM_MODES.slice(0, -1)
          .map((x) => `"${x}"`)
          .join(", ")} or "debug"`,
      );
  }
}

/**
 * Check a `stateStore` option: a {@link StateStore} (it has `append`) or nothing.
 * @throws TypeError for anything else.
 */
export function checkStateStore(graph: string, store: StateStore | null): void {
  if (store !== null && typeof (store as Partial<StateStore>).append !== "function") {
    throw new TypeError(
      `Graph "${graph}": stateStore must be a StateStore (MemoryStateStore, SqliteStateStore, PostgresStateStore or your own)`,
    );
  }
}

/** @throws TypeError unless `onError` is absent or a function. */
export function checkOnError(graph: string, onError: unknown): void {
  if (onError !== undefined && typeof onError !== "function") {
    throw new TypeError(
      `Graph "${graph}": onError must be a function (error, state, ctx) => update | Command`,
    );
  }
}

/** @throws ValueError unless `maxSteps` is a positive integer. */
export function checkMaxSteps(graph: string, maxSteps: number): void {
  if (!Number.isInteger(maxSteps) || maxSteps < 1)
    throw new ValueError(`Graph "${graph}": maxSteps must be a positive integer, got ${maxSteps}`);
}
