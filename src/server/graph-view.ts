/**
 * A graph's shape as plain JSON, for the studio's drawing: its nodes and its edges.
 *
 * @module
 */
import type { CompiledTarget } from "../graph/compile.js";
import { describeGraph as describeSpec } from "../graph/spec.js";
import type { ServedGraph } from "./types.js";
import type { GraphView, GraphViewEdge } from "./wire-types.js";

/** The name `START` has in a {@link GraphView}. */
export const START_NAME = "__start__";
/** The name `END` has in a {@link GraphView}. */
export const END_VIEW_NAME = "__end__";

export type { GraphView, GraphViewEdge } from "./wire-types.js";

/**
 * Describe a graph's compiled flow: nodes and edges (deduplicated, in order), the names of
 * its conditions, its breakpoints and its deferred nodes.
 * @example describeGraph(agent).edges[1] // { from: "think", to: "act", kind: "when", label: "hasToolCalls" }
 */
export function describeGraph(graph: ServedGraph): GraphView {
  const flow = graph.compiled;
  const edges: GraphViewEdge[] = [];
  const seen = new Set<string>();
  const add = (from: string, to: string, kind: GraphViewEdge["kind"], label?: string) => {
    const key = `${from}\u0000${to}\u0000${kind}\u0000${label ?? ""}`;
    if (seen.has(key)) return;
    seen.add(key);
    edges.push(label === undefined ? { from, to, kind } : { from, to, kind, label });
  };
  // The conditions' names, as `toMermaid` labels them: the ref's export name, else the
  // function's name.
  const refs = new Map<unknown, string>();
  for (const { spec, condition } of describeSpec(graph).edges) {
    if (!("when" in spec) || condition === undefined || condition === null) continue;
    const ref =
      spec.when.ref === null ? "" : spec.when.ref.slice(spec.when.ref.lastIndexOf("#") + 1);
    if (ref) refs.set(condition, ref);
  }
  const addTargets = (from: string, targets: readonly CompiledTarget[]) => {
    for (const t of targets) {
      if (t.kind === "static") for (const to of t.names) add(from, to, "edge");
      else {
        const name = refs.get(t.condition) || t.condition.name || "when";
        for (const to of t.target) add(from, to, "when", name);
        for (const to of t.otherwise) add(from, to, "otherwise", `not ${name}`);
      }
    }
  };
  addTargets(START_NAME, flow.start);
  for (const [name, n] of flow.nodes) {
    addTargets(name, n.edges);
    for (const to of n.goto ?? []) add(name, to, "goto");
  }
  for (const j of flow.joins)
    for (const from of j.sources) for (const to of j.targets) add(from, to, "join");
  const points = (l: readonly string[] | "*" | undefined): string[] | "*" =>
    l === "*" ? "*" : [...(l ?? [])];
  return {
    name: graph.name,
    nodes: [...flow.nodes.keys()],
    edges,
    breakpoints: { before: points(graph.interruptBefore), after: points(graph.interruptAfter) },
    deferred: [...flow.deferred],
  };
}
