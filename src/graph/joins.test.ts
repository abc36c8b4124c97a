/**
 * Join edges (`join(a, b).to(c)`) and deferred nodes (`defer: true`): when they run, what the
 * log keeps of them, and the errors of a flow that misuses them.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { GraphConfigError, ValueError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { join } from "./joins.js";
import { node, START } from "./node.js";
import { Command, END, Send } from "./routing.js";

const S = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  n: z.number().default(0),
});
type St = typeof S.State;

/** A node that appends its name (and the superstep it ran in) to the log. */
const mark = (name: string, opts: { defer?: boolean } = {}) =>
  node((_s: St, ctx) => ({ log: [`${name}@${ctx.step}`] }), { name, ...opts });

describe("join edges", () => {
  it("runs the target once, after the last source, when sources finish in different supersteps", async () => {
    const [a, a2, b, c] = ["a", "a2", "b", "c"].map((n) => mark(n));
    const g = new Graph(S).flow(START.to([a!, b!]), a!.to(a2!), join(a2!, b!).to(c!), c!.to(END));
    const r = await g.invoke({});
    expect(r.state.log).toEqual(["a@0", "b@0", "a2@1", "c@2"]);
  });

  it("without the join, the same flow runs the target twice (the difference a join makes)", async () => {
    const [a, a2, b, c] = ["a", "a2", "b", "c"].map((n) => mark(n));
    const g = new Graph(S).flow(START.to([a!, b!]), a!.to(a2!), a2!.to(c!), b!.to(c!), c!.to(END));
    expect((await g.invoke({})).state.log).toEqual(["a@0", "b@0", "a2@1", "c@1", "c@2"]);
  });

  it("fires once per superstep in which all sources finished since it last fired, and starts over", async () => {
    // a loops three times; b runs once. The join hears b once, so it fires once (after a's
    // first pass), and never again: later passes of a find b not heard from since.
    const a = node((s: St, ctx) => ({ log: [`a@${ctx.step}`], n: s.n + 1 }), { name: "a" });
    const again = node((s: St) => (s.n < 3 ? new Command({ goto: "a" }) : END), {
      name: "again",
      goto: ["a", END],
    });
    const [b, c] = ["b", "c"].map((n) => mark(n));
    const g = new Graph(S).flow(START.to([a, b!]), a.to(again), join(a, b!).to(c!), c!.to(END));
    const r = await g.invoke({});
    expect(r.state.log).toEqual(["a@0", "b@0", "c@1", "a@2", "a@4"]);
  });

  it("counts a Send task of a source, and a source that routes with goto does not count", async () => {
    const split = node(() => [new Send("work", { n: 1 }), new Send("work", { n: 2 })], {
      name: "split",
      goto: ["work"],
    });
    const work = node((s: St) => ({ log: [`work${s.n}`] }), { name: "work" });
    const side = node(() => new Command({ goto: END }), { name: "side", goto: [END] });
    const [b, done, other] = ["b", "done", "other"].map((n) => mark(n));
    const g = new Graph(S).flow(
      START.to([split, side, b!]),
      join(work, b!).to(done!),
      join(work, side).to(other!),
      done!.to(END),
      other!.to(END),
    );
    // Both Send tasks of work count (the join fires once); side routes with goto, so it does
    // not count and its join never fires.
    expect((await g.invoke({})).state.log).toEqual(["b@0", "work1", "work2", "done@2"]);
  });

  it("a node that is only the source of a join has a way out", () => {
    const [a, b, c] = ["a", "b", "c"].map((n) => mark(n));
    expect(() =>
      new Graph(S).flow(START.to([a!, b!]), join(a!, b!).to(c!), c!.to(END)),
    ).not.toThrow();
  });

  it("refuses a join of fewer than two nodes, a source named twice, a when() target, the same join twice", async () => {
    const [a, b, c] = ["a", "b", "c"].map((n) => mark(n));
    const flow =
      (...edges: Parameters<Graph<typeof S>["flow"]>) =>
      () =>
        new Graph(S).flow(START.to([a!, b!]), c!.to(END), ...edges);
    await expectError(
      flow(join(a!).to(c!)),
      GraphConfigError,
      'Graph "graph": the join of "a" has one source; a join waits for two or more nodes',
    );
    await expectError(
      flow(join(a!, "a", b!).to(c!)),
      GraphConfigError,
      'Graph "graph": the join of "a", "a", "b" names "a" twice',
    );
    await expectError(
      flow(join(a!, "x").to(c!)),
      GraphConfigError,
      'Graph "graph": a join names node "x", which is not in the flow; known nodes: a, b, c',
    );
    await expectError(
      flow(join(a!, b!).to(c!), join("a", "b").to("c")),
      GraphConfigError,
      'Graph "graph": the join a+b>c is given twice',
    );
    expect(() => join(a!, 3 as never)).toThrow(
      new TypeError("join(...sources): source 2 must be a node or the name of one, got number"),
    );
  });
});

describe("deferred nodes", () => {
  it("waits until nothing else is pending, and runs once however often it was scheduled", async () => {
    const [a, a2, a3, b] = ["a", "a2", "a3", "b"].map((n) => mark(n));
    const reduce = mark("reduce", { defer: true });
    const g = new Graph(S).flow(
      START.to([a!, b!]),
      a!.to(a2!),
      a2!.to(a3!),
      a3!.to(reduce),
      b!.to(reduce),
      reduce.to(END),
    );
    expect((await g.invoke({})).state.log).toEqual(["a@0", "b@0", "a2@1", "a3@2", "reduce@3"]);
  });

  it("runs at once when nothing else is scheduled, and waits from START too", async () => {
    const a = mark("a");
    const d = mark("d", { defer: true });
    const g = new Graph(S).flow(START.to([d, a]), a.to(END), d.to(END));
    expect((await g.invoke({})).state.log).toEqual(["a@0", "d@1"]);
  });

  it("refuses a defer that is not a boolean", () => {
    expect(() => node(() => ({}), { name: "x", defer: "yes" as never })).toThrow(
      new TypeError('node "x": defer must be true or false, got yes'),
    );
  });

  it("records what waits in the log: join progress and deferred tasks in step_committed", async () => {
    const store = new MemoryStateStore();
    const [a, a2, b, c] = ["a", "a2", "b", "c"].map((n) => mark(n));
    const d = mark("d", { defer: true });
    const g = new Graph(S, { stateStore: store }).flow(
      START.to([a!, b!]),
      a!.to(a2!),
      b!.to(d),
      join(a2!, b!).to(c!),
      c!.to(END),
      d.to(END),
    );
    const r = await g.invoke({}, { threadId: "t" });
    expect(r.state.log).toEqual(["a@0", "b@0", "a2@1", "c@2", "d@3"]);
    const commits = (await g.history("t"))
      .filter((e) => e.type === "step_committed")
      .map((e) => {
        const { next, joins, deferred } = e.data as Record<string, unknown>;
        return { step: e.step, next, joins, deferred };
      });
    expect(commits).toEqual([
      { step: 0, next: ["a2"], joins: { "a2+b>c": ["b"] }, deferred: ["d"] },
      { step: 1, next: ["c"], joins: undefined, deferred: ["d"] },
      { step: 2, next: ["d"], joins: undefined, deferred: undefined },
      { step: 3, next: [], joins: undefined, deferred: undefined },
    ]);
  });
});

describe("joins and deferred nodes in specs and diagrams", () => {
  const refs = {
    a: (_s: St) => ({ log: ["a"] }),
    a2: (_s: St) => ({ log: ["a2"] }),
    b: (_s: St) => ({ log: ["b"] }),
    c: (_s: St) => ({ log: ["c"] }),
  };
  const build = () => {
    const [a, a2, b] = (["a", "a2", "b"] as const).map((n) =>
      node(refs[n], { name: n, ref: `./n.js#${n}` }),
    );
    const c = node(refs.c, { name: "c", ref: "./n.js#c", defer: true });
    return new Graph(S).flow(START.to([a!, b!]), a!.to(a2!), join(a2!, b!).to(c), c.to(END));
  };

  it("toSpec has the join as an edge of its own and marks the deferred node; fromSpec runs the same", async () => {
    const spec = build().toSpec();
    expect(spec.nodes).toEqual([
      { name: "a", ref: "./n.js#a", timeoutMs: null, goto: null },
      { name: "b", ref: "./n.js#b", timeoutMs: null, goto: null },
      { name: "a2", ref: "./n.js#a2", timeoutMs: null, goto: null },
      { name: "c", ref: "./n.js#c", timeoutMs: null, goto: null, defer: true },
    ]);
    expect(spec.edges).toEqual([
      { from: "__start__", to: ["a", "b"] },
      { from: "a", to: ["a2"] },
      { join: ["a2", "b"], to: ["c"] },
      { from: "c", to: ["__end__"] },
    ]);
    const rebuilt = await Graph.fromSpec(JSON.parse(JSON.stringify(spec)), {
      state: S,
      resolve: (ref) => refs[ref.slice(ref.indexOf("#") + 1) as keyof typeof refs],
    });
    expect(rebuilt.toSpec()).toEqual(spec);
    expect((await rebuilt.invoke({})).state.log).toEqual(["a", "b", "a2", "c"]);
  });

  it("fromSpec refuses a join of an unknown node or of one node", async () => {
    const spec = build().toSpec();
    const bad = { ...spec, edges: [...spec.edges, { join: ["a", "zz"], to: ["c"] }] };
    await expectError(
      () => Graph.fromSpec(bad, { state: S, resolve: () => refs.a }),
      GraphConfigError,
      'Graph spec "graph": edge 5 joins unknown node "zz"',
    );
    const one = { ...spec, edges: [...spec.edges, { join: ["a"], to: ["c"] }] };
    await expectError(
      () => Graph.fromSpec(one, { state: S, resolve: () => refs.a }),
      ValueError,
      "fromSpec: not a valid graph spec: edges.4.join: Too small: expected array to have >=2 items",
    );
  });

  it("toMermaid draws the join as one thick arrow from its sources and labels the deferred node", () => {
    expect(build().toMermaid()).toBe(
      [
        "flowchart TD",
        "  __start__([START])",
        '  n0["a"]',
        '  n1["b"]',
        '  n2["a2"]',
        '  n3["c (deferred)"]',
        "  __end__([END])",
        "  __start__ --> n0",
        "  __start__ --> n1",
        "  n0 --> n2",
        "  n2 & n1 ==>|join| n3",
        "  n3 --> __end__",
      ].join("\n"),
    );
  });
});
