/**
 * A graph's shape as plain JSON, for the studio's drawing: its nodes and its edges.
 *
 * @module
 */
import type { CompiledTarget } from "../graph/compile.js";
import type { ServedGraph } from "./types.js";

/** The name `START` has in a {@link GraphView}. */
export const START_NAME = "__start__";
/** The name `END` has in a {@link GraphView}. */
export const END_VIEW_NAME = "__end__";

/** One edge of a {@link GraphView}. */
export interface GraphViewEdge {
  from: string;
  to: string;
  /** `"edge"`: always taken; `"when"` / `"otherwise"`: the two sides of a `when()`; `"goto"`: a declared `Command` target; `"join"`: one source of a `join()` (taken once all its sources finished). */
  kind: "edge" | "when" | "otherwise" | "goto" | "join";
}

/** A graph's nodes and edges; `"__start__"` and `"__end__"` stand for START and END. */
export interface GraphView {
  name: string;
  /** The graph's nodes, in the order they were declared. */
  nodes: string[];
  edges: GraphViewEdge[];
}

/** Describe a graph's compiled flow: nodes and edges (deduplicated, in order). */
export function describeGraph(graph: ServedGraph): GraphView {
  const flow = graph.compiled;
  const edges: GraphViewEdge[] = [];
  const seen = new Set<string>();
  const add = (from: string, to: string, kind: GraphViewEdge["kind"]) => {
    const key = `${from}\u0000${to}\u0000${kind}`;
    if (seen.has(key)) return;
    seen.add(key);
    edges.push({ from, to, kind });
  };
  const addTargets = (from: string, targets: readonly CompiledTarget[]) => {
    for (const t of targets) {
      if (t.kind === "static") for (const to of t.names) add(from, to, "edge");
      else {
        for (const to of t.target) add(from, to, "when");
        for (const to of t.otherwise) add(from, to, "otherwise");
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
  return { name: graph.name, nodes: [...flow.nodes.keys()], edges };
}
