import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { GraphConfigError, ValueError } from "../errors/index.js";
import { defineState, messagesField, reducer } from "../state/define-state.js";
import { fromSpec, refResolver } from "./from-spec.js";
import { Graph } from "./graph.js";
import { toMermaid } from "./mermaid.js";
import { node, START } from "./node.js";
import { Command, END, when } from "./routing.js";
import { type GraphSpec, toSpec } from "./spec.js";

const State = defineState({
  messages: messagesField(),
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
  topic: z.string().nullable().default(null),
});
type S = typeof State.State;

// The "module" the refs point into.
function plan(_s: S) {
  return { count: 1 };
}
function work(_s: S) {
  return { count: 10 };
}
function check(_s: S) {
  return { count: 100 };
}
function route(s: S) {
  return new Command<S>({ update: { topic: s.count > 50 ? "big" : "small" }, goto: END });
}
function needsMore(s: S) {
  return s.count < 20;
}
const mod = { plan, work, check, route, needsMore };

function buildGraph() {
  const r = node(route, { ref: "./nodes.js#route", goto: [END] });
  const p = node(plan, { ref: "./nodes.js#plan", timeoutMs: 500 });
  const w = node(work, { ref: "./nodes.js#work" });
  const c = node(check, { ref: "./nodes.js#check", goto: [r] });
  return new Graph(State, { name: "pipeline" }).flow(
    START.to(p),
    p.to([w, when(needsMore, c, { otherwise: END, ref: "./nodes.js#needsMore" })]),
    w.to(r),
  );
}

const expected: GraphSpec = {
  version: 1,
  name: "pipeline",
  state: {
    fields: [
      { name: "messages", kind: "messages", schema: { default: [], type: "array", items: {} } },
      { name: "count", kind: "reducer", schema: { default: 0, type: "number" } },
      { name: "topic", kind: "value", schema: { default: null, type: ["string", "null"] } },
    ],
  },
  nodes: [
    { name: "plan", ref: "./nodes.js#plan", timeoutMs: 500, goto: null },
    { name: "work", ref: "./nodes.js#work", timeoutMs: null, goto: null },
    { name: "check", ref: "./nodes.js#check", timeoutMs: null, goto: ["route"] },
    { name: "route", ref: "./nodes.js#route", timeoutMs: null, goto: ["__end__"] },
  ],
  edges: [
    { from: "__start__", to: ["plan"] },
    { from: "plan", to: ["work"] },
    {
      from: "plan",
      when: { ref: "./nodes.js#needsMore" },
      target: ["check"],
      otherwise: ["__end__"],
    },
    { from: "work", to: ["route"] },
  ],
};

describe("toSpec", () => {
  it("describes state fields, nodes with ref, timeoutMs and goto, plain and conditional edges", () => {
    const g = buildGraph();
    expect(toSpec(g)).toEqual(expected);
    expect(g.toSpec()).toEqual(expected);
    expect(JSON.parse(JSON.stringify(g.toSpec()))).toEqual(expected);
  });

  it("gives null for a plain-object state, a node without ref and a condition without ref", () => {
    const a = node(() => ({}), { name: "a" });
    const g = new Graph(null, { name: "g" }).flow(START.to(a), a.to(when(() => false, a)));
    expect(toSpec(g)).toEqual({
      version: 1,
      name: "g",
      state: null,
      nodes: [{ name: "a", ref: null, timeoutMs: null, goto: null }],
      edges: [
        { from: "__start__", to: ["a"] },
        { from: "a", when: { ref: null }, target: ["a"], otherwise: null },
      ],
    });
  });

  it("throws before flow()", async () => {
    await expectError(
      () => toSpec(new Graph(null, { name: "empty" })),
      GraphConfigError,
      'Graph "empty" has no flow; call graph.flow(START.to(...), ...) first',
    );
  });
});

describe("fromSpec", () => {
  it("rebuilds an equal graph through the resolver only, and it runs the same", async () => {
    const asked: string[] = [];
    const resolve = (ref: string) => {
      asked.push(ref);
      return refResolver({ "./nodes.js": mod })(ref);
    };
    const text = JSON.stringify(buildGraph().toSpec());
    const rebuilt = await Graph.fromSpec(JSON.parse(text), { state: State, resolve });
    expect(rebuilt.toSpec()).toEqual(expected);
    expect(asked).toEqual([
      "./nodes.js#plan",
      "./nodes.js#work",
      "./nodes.js#check",
      "./nodes.js#route",
      "./nodes.js#needsMore",
    ]);
    const a = await buildGraph().invoke({});
    const b = await rebuilt.invoke({});
    expect(b.state).toEqual(a.state);
    expect(b.state).toEqual({ messages: [], count: 111, topic: "big" });
    expect(toMermaid(rebuilt)).toBe(toMermaid(buildGraph()));
  });

  it("accepts nodes and async resolvers, and passes graph options on", async () => {
    const spec = buildGraph().toSpec();
    const nodes = {
      "./nodes.js#plan": node(plan, { name: "whatever" }),
      "./nodes.js#work": work,
      "./nodes.js#check": check,
      "./nodes.js#route": route,
      "./nodes.js#needsMore": needsMore,
    } as const;
    const g = await fromSpec(spec, {
      state: State,
      maxSteps: 7,
      resolve: async (ref) => nodes[ref as keyof typeof nodes],
    });
    expect(g.maxSteps).toBe(7);
    expect(g.name).toBe("pipeline");
    expect(g.toSpec()).toEqual(expected);
  });

  it("rebuilds a node reached only through another node's goto", async () => {
    const done = node(() => ({}), { name: "done", ref: "m#done", goto: [END] });
    const start = node(() => new Command({ goto: done }), {
      name: "start",
      ref: "m#start",
      goto: [done],
    });
    const g = new Graph(null, { name: "g" }).flow(START.to(start));
    const spec = g.toSpec();
    expect(spec.nodes.map((n) => n.name)).toEqual(["start", "done"]);
    const rebuilt = await fromSpec(spec, {
      resolve: refResolver({ m: { start: start.handler, done: done.handler } }),
    });
    expect(rebuilt.toSpec()).toEqual(spec);
    expect((await rebuilt.invoke({ x: 1 })).status).toBe("completed");
  });

  it("refuses what is not a valid spec", async () => {
    const resolve = () => plan;
    await expectError(
      () => fromSpec({ ...expected, version: 2 }, { state: State, resolve }),
      ValueError,
      "fromSpec: not a valid graph spec: version: Invalid input: expected 1",
    );
    await expectError(
      () => fromSpec({ ...expected, nodes: [{ name: "a" }] }, { state: State, resolve }),
      ValueError,
      "fromSpec: not a valid graph spec: nodes.0.ref: Invalid input: expected string, received undefined",
    );
  });

  it("refuses a node or a condition without a ref, and a resolver that gives no function", async () => {
    const resolve = refResolver({ "./nodes.js": mod });
    await expectError(
      () =>
        fromSpec(
          {
            ...expected,
            nodes: expected.nodes.map((n) => (n.name === "work" ? { ...n, ref: null } : n)),
          },
          { state: State, resolve },
        ),
      GraphConfigError,
      'Graph spec "pipeline": node "work" has no ref, so it cannot be rebuilt; give it one with node(fn, { ref: "module#export" })',
    );
    await expectError(
      () =>
        fromSpec(
          {
            ...expected,
            edges: expected.edges.map((e) => ("when" in e ? { ...e, when: { ref: null } } : e)),
          },
          { state: State, resolve },
        ),
      GraphConfigError,
      'Graph spec "pipeline": the condition of the edge from "plan" has no ref, so it cannot be rebuilt; give it one with when(cond, target, { ref: "module#export" })',
    );
    await expectError(
      () => fromSpec(expected, { state: State, resolve: () => ({ not: "a function" }) as never }),
      GraphConfigError,
      'Graph spec "pipeline": the resolver gave an object for node "plan" (ref "./nodes.js#plan"), not a function or a node',
    );
  });

  it("refuses an edge to an unknown node", async () => {
    await expectError(
      () =>
        fromSpec(
          { ...expected, edges: [...expected.edges, { from: "work", to: ["ghost"] }] },
          { state: State, resolve: refResolver({ "./nodes.js": mod }) },
        ),
      GraphConfigError,
      'Graph spec "pipeline": edge 5 names node "ghost", which is not in the spec\'s nodes',
    );
  });

  it("refuses a state that does not match the spec", async () => {
    const resolve = refResolver({ "./nodes.js": mod });
    await expectError(
      () => fromSpec(expected, { resolve }),
      GraphConfigError,
      'Graph spec "pipeline": the spec declares state fields; pass the matching definition as fromSpec(spec, { state, resolve })',
    );
    await expectError(
      () => fromSpec(expected, { resolve, state: State.extend({ extra: z.number() }) }),
      GraphConfigError,
      'Graph spec "pipeline": the given state has the fields [messages, count, topic, extra], the spec [messages, count, topic]',
    );
    await expectError(
      () =>
        fromSpec(expected, { resolve, state: State.extend({ topic: z.string().default("x") }) }),
      GraphConfigError,
      'Graph spec "pipeline": state field "topic" has the schema {"default":"x","type":"string"} in the given state, {"default":null,"type":["string","null"]} in the spec',
    );
    await expectError(
      () => fromSpec(expected, { resolve, state: State.extend({ count: z.number().default(0) }) }),
      GraphConfigError,
      'Graph spec "pipeline": state field "count" is a value field in the given state, a reducer field in the spec',
    );
  });
});

describe("refResolver", () => {
  it("finds module#export, and says what is missing", async () => {
    const resolve = refResolver({ "./nodes.js": mod, "./default.js": { default: plan } });
    expect(resolve("./nodes.js#work")).toBe(work);
    expect(resolve("./default.js")).toBe(plan);
    await expectError(
      () => resolve("./other.js#x"),
      GraphConfigError,
      'refResolver: no module "./other.js" for ref "./other.js#x"; known: ./nodes.js, ./default.js',
    );
    await expectError(
      () => resolve("./nodes.js#nope"),
      GraphConfigError,
      'refResolver: module "./nodes.js" has no export "nope" (ref "./nodes.js#nope")',
    );
  });
});

describe("toMermaid", () => {
  it("draws START, END, nodes, solid plain edges, dashed labelled conditions and goto", () => {
    expect(buildGraph().toMermaid()).toBe(
      [
        "flowchart TD",
        "  __start__([START])",
        '  n0["plan"]',
        '  n1["work"]',
        '  n2["check"]',
        '  n3["route"]',
        "  __end__([END])",
        "  __start__ --> n0",
        "  n0 --> n1",
        "  n0 -.->|needsMore| n2",
        "  n0 -.->|not needsMore| __end__",
        "  n1 --> n3",
        "  n2 -.->|goto| n3",
        "  n3 -.->|goto| __end__",
      ].join("\n"),
    );
  });

  it("labels a condition without ref by its function name, escapes labels, and omits an unused END", () => {
    const a = node(() => ({}), { name: "say.hi" });
    const b = node(() => ({}), { name: "b" });
    function isReady() {
      return true;
    }
    const g = new Graph(null).flow(
      START.to(a),
      a.to(when(isReady, b)),
      b.to(when(isReady, a, { ref: './conds.js#is"ready|<now>' })),
    );
    expect(toMermaid(g)).toBe(
      [
        "flowchart TD",
        "  __start__([START])",
        '  n0["say.hi"]',
        '  n1["b"]',
        "  __start__ --> n0",
        "  n0 -.->|isReady| n1",
        "  n1 -.->|is#34;ready#124;#60;now#62;| n0",
      ].join("\n"),
    );
  });
});
