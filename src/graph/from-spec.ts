/**
 * `fromSpec`: a graph built back from its spec (`graph.toSpec()`, `spec.ts`), finding code
 * only through a resolver; and `refResolver`, a resolver over modules already imported.
 *
 * @module
 */
import type { z } from "zod";
import { GraphConfigError, ValueError } from "../errors/index.js";
import type { StateDefinition } from "../state/define-state.js";
import { END_NAME } from "./compile.js";
import { Graph, type GraphOptions } from "./graph.js";
import type { FieldSchema } from "./io-schema.js";
import { join } from "./joins.js";
import { type Edge, isNode, type NodeHandler, node, START } from "./node.js";
import { type AnyNode, type Condition, END, type EndSentinel, when } from "./routing.js";
import {
  type GraphSpec,
  GraphSpecSchema,
  type NodeSpec,
  START_NAME,
  type StateFieldSpec,
  stateSpec,
} from "./spec.js";

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
): Promise<Graph<D, FieldSchema | undefined>> {
  const parsed = GraphSpecSchema.safeParse(spec);
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
    if ("join" in e) {
      for (const src of e.join) {
        if (!specs.has(src)) fail(`${where} joins unknown node "${src}"`);
        inEdges.add(src);
      }
    } else if (e.from !== START_NAME) {
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
      ...(n.defer ? { defer: true } : {}),
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
    if ("join" in e) {
      edges.push(join(...e.join.map((n) => built.get(n) as AnyNode)).to(targets(e.to)));
      continue;
    }
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
