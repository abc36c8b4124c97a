/**
 * Graph specs and pictures: `toSpec` (a JSON description of a graph), `fromSpec` (the graph
 * built back, importing only through a resolver: `from-spec.ts`). `toMermaid` (a flowchart)
 * is in `mermaid.ts`.
 *
 * @module
 */
import type { z } from "zod";
import type { JsonObject } from "../json/index.js";
import { lazyObject, memo } from "../lazy.js";
import { addMessages } from "../state/add-messages.js";
import type { StateDefinition } from "../state/define-state.js";
import { zod } from "../zod-runtime.js";
import { END_NAME } from "./compile.js";
import type { Graph } from "./graph.js";
import { isJoin } from "./joins.js";
import { type Edge, isNode, type Node } from "./node.js";
import { type Condition, type Conditional, END, type TargetRef } from "./routing.js";

/** The name `START` has in specs and diagrams. */
export const START_NAME = "__start__";

/** One state field in a {@link GraphSpec}. */
export interface StateFieldSpec {
  name: string;
  /** `"value"` (last write wins), `"reducer"` (`reducer(schema, fn)`), `"messages"` (`messagesField()`). */
  kind: "value" | "reducer" | "messages";
  /** JSON schema of the field's value (`z.toJSONSchema`, output side; what JSON schema cannot say is `{}`), or `null` when it cannot be written. */
  schema: JsonObject | null;
}

/** One node in a {@link GraphSpec}. */
export interface NodeSpec {
  name: string;
  /** Import path `module#export` of the node function, or `null` when the node has none. */
  ref: string | null;
  timeoutMs: number | null;
  /** Declared `goto` targets by name (`"__end__"` for END), or `null`. */
  goto: string[] | null;
  /** `true` for a deferred node (`node(fn, { defer: true })`); absent otherwise. */
  defer?: true;
}

/** A plain edge: `from` (`"__start__"` for START) leads to every node of `to` (`"__end__"` for END). */
export interface StaticEdgeSpec {
  from: string;
  to: string[];
}

/** A conditional edge: `when(condition, target, { otherwise, ref })`. */
export interface WhenEdgeSpec {
  from: string;
  /** The condition: its `ref` (`module#export`), or `null` when `when()` was given none. */
  when: { ref: string | null };
  target: string[];
  /** Where to go when the condition is false, or `null` (nowhere). */
  otherwise: string[] | null;
}

/** A join edge: `join(...sources).to(...to)`; the targets run once every source has finished. */
export interface JoinEdgeSpec {
  join: string[];
  to: string[];
}

/** An edge in a {@link GraphSpec}. */
export type EdgeSpec = StaticEdgeSpec | WhenEdgeSpec | JoinEdgeSpec;

/**
 * A JSON description of a graph (`graph.toSpec()`): plain data, stable for a given graph.
 *
 * - `state`: the fields of the state definition, `null` for a plain-object state;
 * - `nodes`: in the order they first appear in the edges (a node's goto targets right after it);
 * - `edges`: in the order given to `flow()`; an edge to a list that mixes nodes and `when()`
 *   becomes one plain edge and one conditional edge per `when()`, as the engine runs them.
 */
export interface GraphSpec {
  version: 1;
  name: string;
  state: { fields: StateFieldSpec[] } | null;
  nodes: NodeSpec[];
  edges: EdgeSpec[];
  /** The graph's `interruptBefore` (node names or `"*"`); absent when not set. */
  interruptBefore?: string[] | "*";
  /** The graph's `interruptAfter` (node names or `"*"`); absent when not set. */
  interruptAfter?: string[] | "*";
}

/** The spec schema, built on first use (no zod at import: see zod-runtime.ts). */
const specSchema = memo((): z.ZodType<GraphSpec> => {
  const z = zod();
  const names = z.array(z.string().min(1));
  return z.strictObject({
    version: z.literal(1),
    name: z.string(),
    state: z
      .strictObject({
        fields: z.array(
          z.strictObject({
            name: z.string(),
            kind: z.enum(["value", "reducer", "messages"]),
            schema: z.record(z.string(), z.json()).nullable(),
          }),
        ),
      })
      .nullable(),
    nodes: z.array(
      z.strictObject({
        name: z.string().min(1),
        ref: z.string().min(1).nullable(),
        timeoutMs: z.number().positive().nullable(),
        goto: names.nullable(),
        defer: z.literal(true).optional(),
      }),
    ),
    edges: z.array(
      z.union([
        z.strictObject({ from: z.string().min(1), to: names }),
        z.strictObject({
          from: z.string().min(1),
          when: z.strictObject({ ref: z.string().min(1).nullable() }),
          target: names,
          otherwise: names.nullable(),
        }),
        z.strictObject({ join: names.min(2), to: names.min(1) }),
      ]),
    ),
    interruptBefore: z.union([z.literal("*"), names]).optional(),
    interruptAfter: z.union([z.literal("*"), names]).optional(),
  }) as z.ZodType<GraphSpec>;
});

/** Zod schema of a {@link GraphSpec}, as {@link fromSpec} checks it (built on first use). */
export const GraphSpecSchema: z.ZodType<GraphSpec> = lazyObject(specSchema);

function targetName(t: unknown): string {
  if (t === END) return END_NAME;
  if (isNode(t)) return t.name;
  return String(t);
}

function targetNames(t: TargetRef | ReadonlyArray<TargetRef>): string[] {
  return Array.isArray(t) ? t.map(targetName) : [targetName(t)];
}

function isWhen(t: unknown): t is Conditional<unknown> {
  return typeof t === "object" && t !== null && (t as { kind?: unknown }).kind === "when";
}

/** A spec edge with the condition function it came from (for diagram labels). */
export interface DescribedEdge {
  spec: EdgeSpec;
  condition: Condition<unknown> | null;
}

function describeEdges(edges: readonly Edge[]): DescribedEdge[] {
  const out: DescribedEdge[] = [];
  for (const e of edges) {
    if (isJoin(e.from)) {
      const to = e.to as TargetRef | ReadonlyArray<TargetRef>;
      out.push({
        spec: { join: e.from.sources.map(targetName), to: targetNames(to) },
        condition: null,
      });
      continue;
    }
    const from = e.from.name;
    const whenEdge = (c: Conditional<unknown>): DescribedEdge => ({
      spec: {
        from,
        when: { ref: c.ref ?? null },
        target: targetNames(c.target),
        otherwise: c.otherwise === null ? null : targetNames(c.otherwise),
      },
      condition: c.condition,
    });
    const to = e.to as unknown;
    if (isWhen(to)) out.push(whenEdge(to));
    else if (Array.isArray(to)) {
      const statics = to.filter((x) => !isWhen(x)).map(targetName);
      if (statics.length > 0) out.push({ spec: { from, to: statics }, condition: null });
      for (const x of to) if (isWhen(x)) out.push(whenEdge(x));
    } else out.push({ spec: { from, to: [targetName(to)] }, condition: null });
  }
  return out;
}

function jsonSchemaOf(schema: z.ZodType): JsonObject | null {
  try {
    const { $schema: _, ...rest } = zod().toJSONSchema(schema, {
      io: "output",
      unrepresentable: "any",
    }) as JsonObject;
    return rest;
  } catch {
    return null;
  }
}

/** The `state` part of a spec for a definition (`null` for a plain-object state). */
export function stateSpec(def: StateDefinition | null): GraphSpec["state"] {
  if (def === null) return null;
  return {
    fields: [...def.fields.values()].map((f) => ({
      name: f.name,
      kind:
        f.reducer === null
          ? "value"
          : f.reducer === (addMessages as unknown as typeof f.reducer)
            ? "messages"
            : "reducer",
      schema: jsonSchemaOf(f.schema),
    })),
  };
}

/** Node names in the order they first appear in the edges, each node's goto targets right after it. */
function nodeOrder(
  edges: readonly EdgeSpec[],
  gotoOf: ReadonlyMap<string, string[] | null>,
): string[] {
  const seen = new Set<string>();
  const order: string[] = [];
  const visit = (name: string): void => {
    if (name === START_NAME || name === END_NAME || seen.has(name) || !gotoOf.has(name)) return;
    seen.add(name);
    order.push(name);
    for (const g of gotoOf.get(name) ?? []) visit(g);
  };
  for (const e of edges) {
    if ("join" in e) e.join.forEach(visit);
    else visit(e.from);
    if ("to" in e) e.to.forEach(visit);
    else {
      e.target.forEach(visit);
      e.otherwise?.forEach(visit);
    }
  }
  for (const name of gotoOf.keys()) visit(name);
  return order;
}

/** A graph's spec, with the condition functions of its edges (for `toMermaid`'s labels). */
export function describeGraph(graph: Graph<StateDefinition | null>): {
  spec: GraphSpec;
  edges: DescribedEdge[];
} {
  const flow = graph.compiled;
  const edges = describeEdges(flow.edges);
  const byName = new Map<string, NodeSpec>();
  for (const [name, c] of flow.nodes) {
    const n = c.node as Node<never>;
    byName.set(name, {
      name,
      ref: n.ref,
      timeoutMs: n.timeoutMs,
      goto: c.goto === null ? null : [...c.goto],
      ...(n.defer ? { defer: true as const } : {}),
    });
  }
  const gotoOf = new Map([...byName].map(([k, v]) => [k, v.goto] as const));
  const nodes = nodeOrder(
    edges.map((e) => e.spec),
    gotoOf,
  ).map((name) => byName.get(name) as NodeSpec);
  const spec: GraphSpec = {
    version: 1,
    name: graph.name,
    state: stateSpec(graph.state),
    nodes,
    edges: edges.map((e) => e.spec),
  };
  if (graph.interruptBefore !== undefined)
    spec.interruptBefore = graph.interruptBefore === "*" ? "*" : [...graph.interruptBefore];
  if (graph.interruptAfter !== undefined)
    spec.interruptAfter = graph.interruptAfter === "*" ? "*" : [...graph.interruptAfter];
  return { spec, edges };
}

/**
 * Describe a graph as JSON: its name, state fields, nodes (with `ref`, `timeoutMs`, `goto`)
 * and edges (plain and conditional). See {@link GraphSpec}.
 *
 * Functions are never in a spec: a node is named by its `ref` (`node(fn, { ref })`), a
 * condition by its `ref` (`when(cond, target, { ref })`). Both are `null` when not given; the
 * spec still describes and draws the graph, but {@link fromSpec} cannot rebuild it.
 *
 * @param graph - a graph whose `flow()` was set.
 * @returns the spec; `JSON.stringify` it to store it.
 * @throws GraphConfigError when the graph has no flow.
 * @example
 * ```ts
 * const spec = graph.toSpec();
 * // { version: 1, name: "agent", state: { fields: [...] },
 * //   nodes: [{ name: "think", ref: "./nodes.js#think", timeoutMs: null, goto: null }, ...],
 * //   edges: [{ from: "__start__", to: ["think"] },
 * //           { from: "think", when: { ref: "./nodes.js#hasToolCalls" }, target: ["act"], otherwise: ["__end__"] }, ...] }
 * ```
 */
export function toSpec(graph: Graph<StateDefinition | null>): GraphSpec {
  return describeGraph(graph).spec;
}
