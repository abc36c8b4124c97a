/**
 * Checking and compiling a flow of edges into the tables the engine runs.
 *
 * @module
 */
import { GraphConfigError } from "../errors/index.js";
import { type CompiledJoin, isJoin } from "./joins.js";
import { type Edge, isNode } from "./node.js";
import {
  type AnyNode,
  type Condition,
  type Conditional,
  isEnd,
  type TargetRef,
} from "./routing.js";

/** The name used for `END` in compiled targets. */
export const END_NAME = "__end__";

/** A compiled edge: static targets, or a condition with its two sides. Names only; `END` is `"__end__"`. */
export type CompiledTarget =
  | { kind: "static"; names: readonly string[] }
  | {
      kind: "when";
      condition: Condition<unknown>;
      target: readonly string[];
      otherwise: readonly string[];
    };

/** A node with its outgoing edges and declared goto targets, resolved to names. */
export interface CompiledNode {
  readonly node: AnyNode;
  readonly name: string;
  readonly edges: readonly CompiledTarget[];
  /** Declared goto targets by name (`"__end__"` for END), or `null` when none are declared. */
  readonly goto: ReadonlySet<string> | null;
}

/** A compiled flow. */
export interface CompiledFlow {
  readonly nodes: ReadonlyMap<string, CompiledNode>;
  readonly start: readonly CompiledTarget[];
  /** The edges as given, for specs and diagrams. */
  readonly edges: readonly Edge[];
  /** The join edges, in the order given (empty for most graphs). */
  readonly joins: readonly CompiledJoin[];
  /** Names of the deferred nodes (`defer: true`). */
  readonly deferred: ReadonlySet<string>;
  /** Whether the flow has joins or deferred nodes (the scheduler then settles what waits). */
  readonly waits: boolean;
}

/**
 * Check a flow and compile it.
 * @throws GraphConfigError for no edge from START, an edge from END, an unknown node name, two
 *   different nodes with one name, a target that is not a node, or a node with no way out;
 *   for a join: fewer than two sources, a source named twice, a `when()` target, or the same
 *   join twice.
 */
export function compileFlow(graphName: string, edges: readonly Edge[]): CompiledFlow {
  const fail = (message: string, node?: string): never => {
    throw new GraphConfigError(`Graph "${graphName}": ${message}`, { graph: graphName, node });
  };
  const byName = new Map<string, AnyNode>();
  const add = (n: AnyNode) => {
    const seen = byName.get(n.name);
    if (seen && seen !== n)
      fail(`two different nodes are named "${n.name}"; node names must be unique`, n.name);
    if (!seen) {
      byName.set(n.name, n);
      for (const g of n.goto ?? []) if (isNode(g)) add(g as AnyNode);
    }
  };
  const collect = (t: unknown, where: string) => {
    if (isNode(t)) add(t as AnyNode);
    else if (Array.isArray(t)) for (const x of t) collect(x, where);
    else if (isWhen(t)) {
      if (typeof t.condition !== "function")
        fail(`the condition of when() in ${where} is not a function`);
      collect(t.target, where);
      if (t.otherwise !== null) collect(t.otherwise, where);
    }
  };
  for (const [i, e] of edges.entries()) {
    if (!e || (e as { kind?: unknown }).kind !== "edge") {
      fail(
        `flow() argument ${i + 1} is not an edge; build edges with START.to(node), a.to(b) or a.to(when(...))`,
      );
    }
    if (isEnd(e.from)) fail("an edge starts from END; END has no way out");
    if (isNode(e.from)) add(e.from as AnyNode);
    if (isJoin(e.from)) for (const s of e.from.sources) collect(s, "a join");
    collect(e.to, `the edge from "${e.from.name}"`);
  }
  const resolve = (t: unknown, where: string, allowNested = true): string[] => {
    if (isEnd(t)) return [END_NAME];
    if (isNode(t)) return [(t as AnyNode).name];
    if (typeof t === "string") {
      if (t === END_NAME) return [END_NAME];
      if (!byName.has(t))
        fail(
          `${where} names node "${t}", which is not in the flow; known nodes: ${[...byName.keys()].join(", ") || "(none)"}`,
        );
      return [t];
    }
    if (Array.isArray(t) && allowNested) return t.flatMap((x) => resolve(x, where, false));
    if ((t as { kind?: unknown })?.kind === "start")
      fail(`${where} leads to START; START can only be a source`);
    return fail(`${where} leads to ${describe(t)}, which is not a node, a node name or END`);
  };
  const compileTarget = (t: unknown, where: string): CompiledTarget[] => {
    if (isWhen(t)) {
      return [
        {
          kind: "when",
          condition: t.condition as Condition<unknown>,
          target: resolve(t.target, `the when() target of ${where}`),
          otherwise:
            t.otherwise === null ? [] : resolve(t.otherwise, `the when() otherwise of ${where}`),
        },
      ];
    }
    if (Array.isArray(t)) {
      // In the order written: the next superstep's tasks (and the order their updates are
      // applied in) follow the list, conditions included.
      const out: CompiledTarget[] = [];
      let statics: string[] | null = null;
      for (const x of t) {
        if (isWhen(x)) {
          statics = null;
          out.push(...compileTarget(x, where));
        } else {
          if (statics === null) {
            statics = [];
            out.push({ kind: "static", names: statics });
          }
          statics.push(...resolve(x, where, false));
        }
      }
      return out;
    }
    return [{ kind: "static", names: resolve(t, where) }];
  };
  const start: CompiledTarget[] = [];
  const outgoing = new Map<string, CompiledTarget[]>();
  const joins: CompiledJoin[] = [];
  const joined = new Set<string>();
  for (const e of edges) {
    if (isJoin(e.from)) {
      const j = compileJoin(e.from.sources, e.to, resolve, fail);
      if (joins.some((x) => x.key === j.key)) fail(`the join ${j.key} is given twice`);
      joins.push(j);
      for (const s of j.sources) joined.add(s);
      continue;
    }
    const from = e.from.name;
    const where = from === "__start__" ? "the edge from START" : `the edge from "${from}"`;
    const compiled = compileTarget(e.to, where);
    if (from === "__start__") start.push(...compiled);
    else {
      const list = outgoing.get(from) ?? [];
      list.push(...compiled);
      outgoing.set(from, list);
    }
  }
  if (start.length === 0) fail("no edge leaves START; add START.to(firstNode)");
  const nodes = new Map<string, CompiledNode>();
  for (const [name, n] of byName) {
    const goto = n.goto
      ? new Set(n.goto.flatMap((g) => resolve(g, `the goto list of node "${name}"`, false)))
      : null;
    const out = outgoing.get(name) ?? [];
    if (out.length === 0 && goto === null && !joined.has(name)) {
      fail(
        `node "${name}" has no way out: add an edge from it (${name}.to(END) to finish there) or declare its goto targets`,
        name,
      );
    }
    nodes.set(name, { node: n, name, edges: out, goto });
  }
  const deferred = new Set([...byName.values()].filter((n) => n.defer).map((n) => n.name));
  return { nodes, start, edges, joins, deferred, waits: joins.length > 0 || deferred.size > 0 };
}

/** A join edge's sources and targets, checked and resolved to names. */
function compileJoin(
  sources: readonly unknown[],
  to: unknown,
  resolve: (t: unknown, where: string, allowNested?: boolean) => string[],
  fail: (message: string, node?: string) => never,
): CompiledJoin {
  const names = sources.flatMap((s) => resolve(s, "a join", false));
  const where = `the join of ${names.map((n) => `"${n}"`).join(", ")}`;
  if (names.length < 2)
    fail(
      `${names.length === 0 ? "a join" : where} has ${names.length === 0 ? "no sources" : "one source"}; a join waits for two or more nodes`,
    );
  for (const [i, n] of names.entries()) {
    if (n === END_NAME) fail(`${where} lists END as a source; END never finishes`);
    if (names.indexOf(n) !== i) fail(`${where} names "${n}" twice`, n);
  }
  const list = Array.isArray(to) ? to : [to];
  if (list.some(isWhen) || list.length === 0)
    fail(`${where} must lead to nodes, node names or END; when() is for edges from one node`);
  const targets = list.flatMap((t) => resolve(t, where, false));
  return { key: `${names.join("+")}>${targets.join("+")}`, sources: names, targets };
}

function isWhen(t: unknown): t is Conditional<unknown> {
  return typeof t === "object" && t !== null && (t as { kind?: unknown }).kind === "when";
}

function describe(t: unknown): string {
  if (t === null) return "null";
  if (t === undefined) return "undefined";
  if (typeof t === "function") return `a function (${t.name || "anonymous"}); wrap it with node()`;
  if (typeof t === "object") return "an object";
  return `${typeof t} ${String(t)}`;
}

export type { TargetRef };
