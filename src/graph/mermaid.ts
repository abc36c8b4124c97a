/**
 * `toMermaid`: a graph drawn as a Mermaid flowchart, from its spec (`spec.ts`).
 *
 * @module
 */
import type { StateDefinition } from "../state/define-state.js";
import { END_NAME } from "./compile.js";
import type { Graph } from "./graph.js";
import { describeGraph, type GraphSpec, START_NAME } from "./spec.js";

/** Escape a label for Mermaid (inside quotes or pipes). */
function mermaidText(text: string): string {
  return text.replace(/[#"|<>]/g, (c) => `#${c.charCodeAt(0)};`);
}

/**
 * Draw a graph as a Mermaid flowchart.
 *
 * START and END are rounded (`([START])`, `([END])`; END only when something leads to it),
 * nodes are boxes labelled with their names (and ` (pause before)`, ` (pause after)` or
 * ` (pause before, after)` for a node of `interruptBefore` / `interruptAfter`), plain edges are solid arrows, conditional edges
 * are dashed arrows labelled with the condition (the export name of its `ref`, else the
 * function's name, else `when`) and `not <condition>` for the `otherwise` side, and declared
 * `goto` targets are dashed arrows labelled `goto`, and a join is one thick arrow from all its
 * sources, labelled `join` (`n0 & n1 ==>|join| n2`); a deferred node's label ends in
 * ` (deferred)`. Node ids are `n0`, `n1`, … in spec order.
 *
 * @param graph - a graph whose `flow()` was set.
 * @returns the flowchart text (`flowchart TD` first, lines indented by two spaces, no final newline).
 * @throws GraphConfigError when the graph has no flow.
 * @example
 * ```ts
 * console.log(graph.toMermaid());
 * // flowchart TD
 * //   __start__([START])
 * //   n0["think"]
 * //   ...
 * ```
 */
export function toMermaid(graph: Graph<StateDefinition | null>): string {
  const { spec, edges } = describeGraph(graph);
  const ids = new Map<string, string>([
    [START_NAME, START_NAME],
    [END_NAME, END_NAME],
  ]);
  for (const [i, n] of spec.nodes.entries()) ids.set(n.name, `n${i}`);
  const id = (name: string): string => ids.get(name) ?? name;
  const arrows: string[] = [];
  let endUsed = false;
  const link = (from: string, to: string, style: string): void => {
    if (to === END_NAME) endUsed = true;
    arrows.push(`  ${id(from)} ${style} ${id(to)}`);
  };
  for (const { spec: e, condition } of edges) {
    if ("join" in e) {
      for (const t of e.to) {
        if (t === END_NAME) endUsed = true;
        arrows.push(`  ${e.join.map(id).join(" & ")} ==>|join| ${id(t)}`);
      }
      continue;
    }
    if ("to" in e) {
      for (const t of e.to) link(e.from, t, "-->");
      continue;
    }
    const fromRef = e.when.ref === null ? "" : e.when.ref.slice(e.when.ref.lastIndexOf("#") + 1);
    const label = mermaidText(fromRef || condition?.name || "when");
    for (const t of e.target) link(e.from, t, `-.->|${label}|`);
    for (const t of e.otherwise ?? []) link(e.from, t, `-.->|not ${label}|`);
  }
  for (const n of spec.nodes) for (const g of n.goto ?? []) link(n.name, g, "-.->|goto|");
  return [
    "flowchart TD",
    `  ${START_NAME}([START])`,
    ...spec.nodes.map(
      (n) =>
        `  ${id(n.name)}["${mermaidText(n.name)}${n.defer ? " (deferred)" : ""}${pauses(spec, n.name)}"]`,
    ),
    ...(endUsed ? [`  ${END_NAME}([END])`] : []),
    ...arrows,
  ].join("\n");
}

/** A node's breakpoints as a label suffix: ` (pause before)`, ` (pause after)`, ` (pause before, after)`. */
function pauses(spec: GraphSpec, name: string): string {
  const has = (l: string[] | "*" | undefined) => l === "*" || (l?.includes(name) ?? false);
  const which = [
    has(spec.interruptBefore) ? "before" : "",
    has(spec.interruptAfter) ? "after" : "",
  ];
  const text = which.filter(Boolean).join(", ");
  return text ? ` (pause ${text})` : "";
}
