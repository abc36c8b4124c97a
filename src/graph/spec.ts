/**
 * Graph specs and pictures: `toSpec` (a JSON description of a graph), `fromSpec` (the graph
 * built back, importing only through a resolver), and `toMermaid` (a flowchart).
 *
 * @module
 */
import type { z } from "zod";
import { GraphConfigError, ValueError } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";
import { lazyObject, memo } from "../lazy.js";
import { addMessages } from "../state/add-messages.js";
import type { StateDefinition } from "../state/define-state.js";
import { zod } from "../zod-runtime.js";
import { END_NAME } from "./compile.js";
import { Graph, type GraphOptions } from "./graph.js";
import { type Edge, isNode, type Node, type NodeHandler, node, START } from "./node.js";
import {
  type AnyNode,
  type Condition,
  type Conditional,
  END,
  type EndSentinel,
  type TargetRef,
  when,
} from "./routing.js";

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

/** An edge in a {@link GraphSpec}. */
export type EdgeSpec = StaticEdgeSpec | WhenEdgeSpec;

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
interface DescribedEdge {
  spec: EdgeSpec;
  condition: Condition<unknown> | null;
}

function describeEdges(edges: readonly Edge[]): DescribedEdge[] {
  const out: DescribedEdge[] = [];
  for (const e of edges) {
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

function stateSpec(def: StateDefinition | null): GraphSpec["state"] {
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
    visit(e.from);
    if ("to" in e) e.to.forEach(visit);
    else {
      e.target.forEach(visit);
      e.otherwise?.forEach(visit);
    }
  }
  for (const name of gotoOf.keys()) visit(name);
  return order;
}

function describeGraph(graph: Graph<StateDefinition | null>): {
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

/** What a resolver may return for a ref: a node function, a node (its function is used), or a condition. */
export type Resolved = NodeHandler<never> | AnyNode | Condition<never>;

/** Options of {@link fromSpec}: the resolver, the state definition, and any other graph option. */
export interface FromSpecOptions<D extends StateDefinition | null>
  extends Omit<GraphOptions, "name"> {
  /**
   * Turns a `ref` (`module#export`) into the node function (or a node) or condition it names,
   * or a promise of one; what it returns is checked. It is the only way `fromSpec` finds code:
   * nothing is imported by itself.
   */
  resolve: (ref: string) => unknown;
  /** The state definition; it must match the spec's `state` (field names, kinds and schemas). `null` (default) for a plain-object state. */
  state?: D;
}

/**
 * Build a graph back from a spec.
 *
 * Every node and condition is found through `options.resolve(ref)`; nothing else is loaded,
 * so a spec from elsewhere can only reach the code the resolver gives it. The state
 * definition is given, not read from the spec (reducers are functions); it must describe the
 * same fields as `spec.state`. Other graph options (`stateStore`, `workspace`, `middleware`,
 * `maxSteps`, …) are passed on. The rebuilt graph has the same spec:
 * `toSpec(await fromSpec(toSpec(g), { resolve, state }))` equals `toSpec(g)`.
 *
 * @param spec - a {@link GraphSpec} (for example parsed from JSON).
 * @param options - `{ resolve, state, ...graph options }`.
 * @returns the graph, its flow set.
 * @throws ValueError when `spec` is not a valid version-1 spec (with the first problem);
 *   GraphConfigError when the state does not match, a node or condition has no `ref`, the
 *   resolver returns something else than a function or a node for one, an edge names an
 *   unknown node, or the flow does not compile; TypeError for an option that is neither
 *   `resolve`, `state` nor a graph option. Errors from the resolver propagate.
 * @example
 * ```ts
 * const modules = { "./nodes.js": await import("./nodes.js") };
 * const graph = await Graph.fromSpec(JSON.parse(text), { state: State, resolve: refResolver(modules) });
 * ```
 */
export async function fromSpec<D extends StateDefinition | null = null>(
  spec: unknown,
  options: FromSpecOptions<D>,
): Promise<Graph<D>> {
  const parsed = specSchema().safeParse(spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    const where = issue.path.length ? `${issue.path.map(String).join(".")}: ` : "";
    throw new ValueError(`fromSpec: not a valid graph spec: ${where}${issue.message}`, {
      cause: parsed.error,
    });
  }
  const s = parsed.data;
  if (typeof options !== "object" || options === null || typeof options.resolve !== "function") {
    throw new TypeError(
      "fromSpec(spec, options): options.resolve must be a function (ref) => function",
    );
  }
  const { resolve, state: givenState, ...graphOptions } = options;
  const state = (givenState ?? null) as D;
  const fail = (message: string, nodeName?: string): never => {
    throw new GraphConfigError(`Graph spec "${s.name}": ${message}`, {
      graph: s.name,
      ...(nodeName === undefined ? {} : { node: nodeName }),
    });
  };
  checkState(s, stateSpec(state), fail);

  const specs = new Map<string, NodeSpec>();
  for (const n of s.nodes) {
    if (specs.has(n.name)) fail(`node "${n.name}" is listed twice`, n.name);
    if (n.name === START_NAME || n.name === END_NAME) fail(`"${n.name}" is not a node name`);
    specs.set(n.name, n);
  }
  const known = (name: string, where: string): void => {
    if (name !== END_NAME && !specs.has(name)) {
      fail(`${where} names node "${name}", which is not in the spec's nodes`);
    }
  };
  const inEdges = new Set<string>();
  for (const [i, e] of s.edges.entries()) {
    const where = `edge ${i + 1}`;
    if (e.from !== START_NAME) {
      if (e.from === END_NAME || !specs.has(e.from))
        fail(`${where} starts from unknown node "${e.from}"`);
      inEdges.add(e.from);
    }
    const targets = "to" in e ? e.to : [...e.target, ...(e.otherwise ?? [])];
    for (const t of targets) {
      known(t, where);
      inEdges.add(t);
    }
  }
  for (const n of s.nodes)
    for (const g of n.goto ?? []) known(g, `the goto list of node "${n.name}"`);

  const handlers = new Map<string, NodeHandler<never>>();
  for (const n of s.nodes) {
    if (n.ref === null) {
      fail(
        `node "${n.name}" has no ref, so it cannot be rebuilt; give it one with node(fn, { ref: "module#export" })`,
        n.name,
      );
    }
    const r = await resolve(n.ref as string);
    if (isNode(r)) handlers.set(n.name, r.handler as NodeHandler<never>);
    else if (typeof r === "function") handlers.set(n.name, r as NodeHandler<never>);
    else {
      fail(
        `the resolver gave ${describe(r)} for node "${n.name}" (ref "${n.ref}"), not a function or a node`,
        n.name,
      );
    }
  }

  // Nodes named only in goto lists must be node objects somewhere for the flow to know them;
  // build them before the nodes that list them (a cycle among them falls back to names).
  const built = new Map<string, AnyNode>();
  const building = new Set<string>();
  const build = (name: string): AnyNode => {
    const done = built.get(name);
    if (done !== undefined) return done;
    building.add(name);
    const n = specs.get(name) as NodeSpec;
    const goto =
      n.goto === null
        ? undefined
        : n.goto.map((g): AnyNode | string | EndSentinel =>
            g === END_NAME ? END : !inEdges.has(g) && !building.has(g) ? build(g) : g,
          );
    const made = node(handlers.get(name) as NodeHandler<never>, {
      name,
      ...(n.ref === null ? {} : { ref: n.ref }),
      ...(n.timeoutMs === null ? {} : { timeoutMs: n.timeoutMs }),
      ...(goto === undefined ? {} : { goto }),
    }) as AnyNode;
    building.delete(name);
    built.set(name, made);
    return made;
  };
  for (const n of s.nodes) build(n.name);

  const target = (name: string): AnyNode | EndSentinel =>
    name === END_NAME ? END : (built.get(name) as AnyNode);
  const targets = (list: readonly string[]) =>
    list.length === 1 ? target(list[0] as string) : list.map(target);
  const edges: Edge[] = [];
  for (const e of s.edges) {
    const from = e.from === START_NAME ? START : (built.get(e.from) as AnyNode);
    if ("to" in e) {
      edges.push(from.to(targets(e.to)));
      continue;
    }
    if (e.when.ref === null) {
      fail(
        `the condition of the edge from "${e.from}" has no ref, so it cannot be rebuilt; give it one with when(cond, target, { ref: "module#export" })`,
      );
    }
    const cond = await resolve(e.when.ref as string);
    if (typeof cond !== "function" || isNode(cond)) {
      fail(`the resolver gave ${describe(cond)} for the condition "${e.when.ref}", not a function`);
    }
    edges.push(
      from.to(
        when(cond as Condition<never>, targets(e.target), {
          ...(e.otherwise === null ? {} : { otherwise: targets(e.otherwise) }),
          ref: e.when.ref as string,
        }),
      ),
    );
  }
  const breakpoints: Pick<GraphOptions, "interruptBefore" | "interruptAfter"> = {};
  if (s.interruptBefore !== undefined) breakpoints.interruptBefore = s.interruptBefore;
  if (s.interruptAfter !== undefined) breakpoints.interruptAfter = s.interruptAfter;
  return new Graph(state, { ...breakpoints, ...graphOptions, name: s.name }).flow(...edges);
}

function checkState(
  s: GraphSpec,
  given: GraphSpec["state"],
  fail: (message: string) => never,
): void {
  if (s.state === null && given === null) return;
  if (s.state === null)
    fail("the spec has a plain-object state (state: null), but a state definition was given");
  if (given === null) {
    fail(
      "the spec declares state fields; pass the matching definition as fromSpec(spec, { state, resolve })",
    );
  }
  const want = (s.state as { fields: StateFieldSpec[] }).fields;
  const have = (given as { fields: StateFieldSpec[] }).fields;
  const haveNames = have.map((f) => f.name).join(", ");
  const wantNames = want.map((f) => f.name).join(", ");
  if (haveNames !== wantNames) {
    fail(`the given state has the fields [${haveNames}], the spec [${wantNames}]`);
  }
  for (const [i, w] of want.entries()) {
    const h = have[i] as StateFieldSpec;
    if (h.kind !== w.kind)
      fail(
        `state field "${w.name}" is a ${h.kind} field in the given state, a ${w.kind} field in the spec`,
      );
    if (JSON.stringify(h.schema) !== JSON.stringify(w.schema)) {
      fail(
        `state field "${w.name}" has the schema ${JSON.stringify(h.schema)} in the given state, ${JSON.stringify(w.schema)} in the spec`,
      );
    }
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * A resolver over modules the caller already imported: `ref` `"module#export"` is
 * `modules[module][export]` (`"module"` alone means the `default` export).
 *
 * @param modules - module name → module object (such as `await import("./nodes.js")`).
 * @throws (when resolving) GraphConfigError for a module or export it does not have.
 * @example
 * ```ts
 * const resolve = refResolver({ "./nodes.js": await import("./nodes.js") });
 * await resolve("./nodes.js#think"); // the think function
 * ```
 */
export function refResolver(
  modules: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
): (ref: string) => Resolved {
  return (ref: string): Resolved => {
    const at = ref.lastIndexOf("#");
    const mod = at < 0 ? ref : ref.slice(0, at);
    const name = at < 0 ? "default" : ref.slice(at + 1);
    if (!Object.hasOwn(modules, mod)) {
      throw new GraphConfigError(
        `refResolver: no module "${mod}" for ref "${ref}"; known: ${Object.keys(modules).join(", ") || "(none)"}`,
      );
    }
    const m = modules[mod] as Readonly<Record<string, unknown>>;
    if (!Object.hasOwn(m, name)) {
      throw new GraphConfigError(
        `refResolver: module "${mod}" has no export "${name}" (ref "${ref}")`,
      );
    }
    return m[name] as Resolved;
  };
}

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
 * `goto` targets are dashed arrows labelled `goto`. Node ids are `n0`, `n1`, … in spec order.
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
    ...spec.nodes.map((n) => `  ${id(n.name)}["${mermaidText(n.name)}${pauses(spec, n.name)}"]`),
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
