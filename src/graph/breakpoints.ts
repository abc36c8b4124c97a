/**
 * Static breakpoints: `interruptBefore` / `interruptAfter` (LangGraph's names), a graph option
 * and a run option. A run pauses with status `"interrupted"` before a superstep that has a
 * task of a named node, or after a superstep that had one (when something runs next). The
 * pause is recorded in the event log (`run_finished` with `breakpoint`), and
 * `invoke(null, { threadId })` continues past it: a position pauses at a breakpoint once.
 *
 * @module
 */
import { ValueError } from "../errors/index.js";
import type { CompiledFlow } from "./compile.js";
import type { TaskResult, TaskSpec } from "./engine-types.js";

/** Node names to pause at, or `"*"` for every node. */
export type BreakpointNodes = readonly string[] | "*";

/**
 * A breakpoint a run paused at.
 * - `when`: `"before"` the superstep ran, or `"after"` the one before it ran;
 * - `step`: the superstep that runs when the thread continues;
 * - `nodes`: the nodes that matched (of the superstep about to run for `"before"`, of the
 *   superstep that ran for `"after"`), in task order, each once.
 */
export interface Breakpoint {
  when: "before" | "after";
  step: number;
  nodes: string[];
}

/** A run's breakpoints, checked against the flow. */
export interface Breakpoints {
  readonly before: ReadonlySet<string> | "*" | null;
  readonly after: ReadonlySet<string> | "*" | null;
}

/**
 * The breakpoints of a run: each run option replaces the graph's (`[]` turns it off).
 * @returns `null` when there are none (the engine then checks nothing).
 * @throws TypeError when a list is neither `"*"` nor an array of strings; ValueError for a
 *   name that is not a node of the flow.
 */
export function resolveBreakpoints(
  graphName: string,
  flow: CompiledFlow,
  graph: { interruptBefore?: BreakpointNodes; interruptAfter?: BreakpointNodes },
  run: { interruptBefore?: BreakpointNodes; interruptAfter?: BreakpointNodes },
): Breakpoints | null {
  const before = resolveList(
    graphName,
    flow,
    "interruptBefore",
    run.interruptBefore ?? graph.interruptBefore,
  );
  const after = resolveList(
    graphName,
    flow,
    "interruptAfter",
    run.interruptAfter ?? graph.interruptAfter,
  );
  return before === null && after === null ? null : { before, after };
}

/** Check a breakpoint list's shape (used by the option checks, before the flow is known). */
export function checkBreakpointList(graphName: string, name: string, value: unknown): void {
  if (value === undefined || value === "*") return;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new TypeError(
      `Graph "${graphName}": ${name} must be "*" or a list of node names, got ${value === null ? "null" : Array.isArray(value) ? "a list with a non-string item" : typeof value}`,
    );
  }
}

function resolveList(
  graphName: string,
  flow: CompiledFlow,
  name: string,
  value: BreakpointNodes | undefined,
): ReadonlySet<string> | "*" | null {
  if (value === undefined) return null;
  checkBreakpointList(graphName, name, value);
  if (value === "*") return "*";
  for (const n of value) {
    if (!flow.nodes.has(n)) {
      throw new ValueError(
        `Graph "${graphName}": ${name} names node "${n}", which is not in the flow; known nodes: ${[...flow.nodes.keys()].join(", ")}`,
      );
    }
  }
  return value.length === 0 ? null : new Set(value);
}

function matching(set: ReadonlySet<string> | "*", tasks: readonly TaskSpec[]): string[] {
  const out: string[] = [];
  for (const t of tasks)
    if ((set === "*" || set.has(t.name)) && !out.includes(t.name)) out.push(t.name);
  return out;
}

/**
 * The breakpoint before superstep `step` of `tasks`, or `null`: none matches, or the thread
 * already paused at this position (`passed === step`) and is continuing past it.
 */
export function breakpointBefore(
  bps: Breakpoints,
  tasks: readonly TaskSpec[],
  step: number,
  passed: number | null,
): Breakpoint | null {
  if (bps.before === null || passed === step) return null;
  const nodes = matching(bps.before, tasks);
  return nodes.length > 0 ? { when: "before", step, nodes } : null;
}

/**
 * The breakpoint a subgraph's child paused at, as its parent shows it: the child's `when`,
 * the parent's superstep `step` (the one that runs again when the parent continues) and the
 * child's nodes named `"<subgraph>/<node>"`. The subgraph node keeps it in its task cache
 * (`childBreakpoint`, written by `subgraph.ts`) while the child is paused there.
 * @returns the breakpoint of the first paused task of superstep `step` (of `tasks`) whose child
 *   paused at one (the nodes of all such tasks, in task order), or `null` when no child did.
 */
export function childBreakpoint(
  step: number,
  tasks: readonly TaskSpec[],
  results: ReadonlyMap<string, TaskResult>,
): Breakpoint | null {
  let found: Breakpoint | null = null;
  for (const t of tasks) {
    const r = results.get(t.id);
    if (r?.kind !== "interrupted") continue;
    const b = r.cache.childBreakpoint as { when?: unknown; nodes?: unknown } | undefined;
    if (!b || (b.when !== "before" && b.when !== "after") || !Array.isArray(b.nodes)) continue;
    found ??= { when: b.when, step, nodes: [] };
    for (const n of b.nodes)
      if (typeof n === "string" && !found.nodes.includes(n)) found.nodes.push(n);
  }
  return found;
}

/**
 * The breakpoint after superstep `step` of `ran`, or `null`: none matches, or nothing runs
 * next (the run then completes).
 */
export function breakpointAfter(
  bps: Breakpoints,
  ran: readonly TaskSpec[],
  next: readonly TaskSpec[],
  step: number,
): Breakpoint | null {
  if (bps.after === null || next.length === 0) return null;
  const nodes = matching(bps.after, ran);
  return nodes.length > 0 ? { when: "after", step: step + 1, nodes } : null;
}
