// Graph's checks of its definition and arguments: the flow, node options, Command, Send,
// graph options, interrupt keys. Shared setup: graph.fixture.ts.
import { describe, expect, it } from "vitest";
import { expectError } from "../../test/helpers.js";
import { GraphConfigError } from "../errors/index.js";
import { type S, State } from "./graph.fixture.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { Command, END, Send, when } from "./routing.js";

describe("flow checks", () => {
  const a = node(() => ({}), { name: "a" });
  const b = node(() => ({}), { name: "b" });

  it("refuses an unknown node name", async () => {
    await expectError(
      () => new Graph(State).flow(START.to(a), a.to("c")),
      GraphConfigError,
      'Graph "graph": the edge from "a" names node "c", which is not in the flow; known nodes: a',
    );
  });

  it("refuses two different nodes with one name", async () => {
    const a2 = node(() => ({}), { name: "a" });
    await expectError(
      () => new Graph(State).flow(START.to(a), a.to(a2), a2.to(END)),
      GraphConfigError,
      'Graph "graph": two different nodes are named "a"; node names must be unique',
    );
  });

  it("refuses a node with no way out", async () => {
    const e = await expectError(
      () => new Graph(State, { name: "g" }).flow(START.to(a), a.to(b)),
      GraphConfigError,
      'Graph "g": node "b" has no way out: add an edge from it (b.to(END) to finish there) or declare its goto targets',
    );
    expect((e as GraphConfigError).node).toBe("b");
  });

  it("refuses a conditional target that is not a node", async () => {
    await expectError(
      () =>
        new Graph(State).flow(
          START.to(a),
          a.to(when(() => true, (() => ({})) as never, { otherwise: END })),
        ),
      GraphConfigError,
      'Graph "graph": the when() target of the edge from "a" leads to a function (anonymous); wrap it with node(), which is not a node, a node name or END',
    );
  });

  it("refuses a flow without an edge from START", async () => {
    await expectError(
      () => new Graph(State).flow(a.to(END)),
      GraphConfigError,
      'Graph "graph": no edge leaves START; add START.to(firstNode)',
    );
  });

  it("refuses to run before flow()", async () => {
    await expectError(
      () => new Graph(State).invoke({}),
      GraphConfigError,
      'Graph "graph" has no flow; call graph.flow(START.to(...), ...) first',
    );
  });

  it("refuses bad node options with TypeError", async () => {
    await expectError(
      () => node((() => ({})) as never),
      TypeError,
      'node(fn): the function has no name; pass one as node(fn, { name: "..." })',
    );
    await expectError(
      () => node(42 as never),
      TypeError,
      "node(fn): fn must be a function, got number",
    );
    await expectError(
      () => node(() => ({}), { name: "x", goto: [] }),
      TypeError,
      'node "x": goto must be a non-empty list of nodes, node names and END',
    );
    await expectError(
      () => node(() => ({}), { name: "x", timeoutMs: -1 }),
      TypeError,
      'node "x": timeoutMs must be a positive number of milliseconds, got -1',
    );
  });

  it("names a node after its function", () => {
    function greet() {
      return {};
    }
    expect(node(greet).name).toBe("greet");
  });
});

describe("argument checks", () => {
  const a = node(() => ({}), { name: "a" });

  it("refuses a Command that is not an object of update and goto", async () => {
    await expectError(
      () => new Command("x" as never),
      TypeError,
      "new Command(init): init must be an object { update?, goto? }, got a string (x)",
    );
    await expectError(
      () => new Command(null as never),
      TypeError,
      "new Command(init): init must be an object { update?, goto? }, got null",
    );
    await expectError(
      () => new Command({ updates: { count: 1 } } as never),
      TypeError,
      'new Command(init): unknown key "updates"; a Command takes only update, goto, resume and graph',
    );
    await expectError(
      () => new Command({ update: [1] as never }),
      TypeError,
      "new Command(init): update must be a plain object of state fields or null, got an array",
    );
    await expectError(
      () => new Command({ goto: 5 as never }),
      TypeError,
      "new Command(init): goto must be a node, a node name, END or a Send (or a list of them), got a number (5)",
    );
    await expectError(
      () => new Command({ goto: [a, ""] }),
      TypeError,
      'new Command(init): goto[1] must be a node, a node name, END or a Send (or a list of them), got ""',
    );
    const ok = new Command({ update: { count: 1 }, goto: [a, "b", END, new Send(a)] });
    expect(ok.goto).toHaveLength(4);
    expect(new Command().update).toBeNull();
    expect(new Command({ goto: [] }).goto).toEqual([]);
  });

  it("refuses a Send whose node is not a node or a node name, or whose payload is not an object", async () => {
    await expectError(
      () => new Send(5 as never),
      TypeError,
      "new Send(node, payload): node must be a node or the name of one, got a number (5)",
    );
    await expectError(
      () => new Send({ name: "a" } as never),
      TypeError,
      "new Send(node, payload): node must be a node or the name of one, got an object",
    );
    await expectError(
      () => new Send(" "),
      TypeError,
      'new Send(node, payload): node must be a node or the name of one, got " "',
    );
    await expectError(
      () => new Send(END as never),
      TypeError,
      "new Send(node, payload): node must be a node or the name of one, got END; a Send starts a task, so end with Command({ goto: END }) or a returned END instead",
    );
    await expectError(
      () => new Send(a, "item" as never),
      TypeError,
      'new Send(node "a", payload): payload must be a plain object of state fields or null, got a string (item)',
    );
    expect(new Send("a").payload).toBeNull();
    expect(new Send(a, { topic: "x" }).node).toBe(a);
  });

  it("refuses an unknown graph option, listing the known ones", async () => {
    await expectError(
      () => new Graph(State, { name: "g", maxStep: 3 } as never),
      TypeError,
      'Graph "g": unknown option "maxStep"; the options of new Graph(state, options) are name, stateStore, workspace, memoryStore, maxSteps, middleware, leaseTtlMs, retry, nodeCache, tracer, interruptBefore, interruptAfter, maxConcurrency, onError, input, output, checkInput',
    );
    await expectError(
      () => new Graph(State, { store: null, thread: "t" } as never),
      TypeError,
      'Graph "graph": unknown options "store", "thread"; the options of new Graph(state, options) are name, stateStore, workspace, memoryStore, maxSteps, middleware, leaseTtlMs, retry, nodeCache, tracer, interruptBefore, interruptAfter, maxConcurrency, onError, input, output, checkInput',
    );
    await expectError(
      () => new Graph(State, "g" as never),
      TypeError,
      "new Graph(state, options): options must be an object, got a string (g)",
    );
    const every = new Graph(State, {
      name: "all",
      stateStore: null,
      workspace: null,
      maxSteps: 3,
      middleware: [],
      leaseTtlMs: 1000,
      retry: { maxAttempts: 2 },
      tracer: false,
    });
    expect(every.maxSteps).toBe(3);
  });

  it("refuses a second flow() instead of replacing the first", async () => {
    const g = new Graph(State, { name: "g" }).flow(START.to(a), a.to(END));
    const e = await expectError(
      () => g.flow(START.to(a), a.to(a)),
      GraphConfigError,
      'Graph "g" already has a flow; flow() sets all of a graph\'s edges at once, so pass them in one call, or build a new Graph for another flow',
    );
    expect(e.graph).toBe("g");
    expect(g.nodeNames).toEqual(["a"]);
    expect((await g.invoke({})).status).toBe("completed");
  });

  it("refuses an interrupt key that is not a non-empty string", async () => {
    const run = (options: unknown) =>
      new Graph(State, { name: "g" })
        .flow(START.to(ask), ask.to(END))
        .invoke({}, { context: options });
    const ask = node(
      (_s: S, ctx) => {
        ctx.interrupt("ok?", ctx.context as never);
        return {};
      },
      { name: "ask" },
    );
    await expectError(
      () => run({ key: 5 }),
      TypeError,
      'Node "ask" of graph "g": ctx.interrupt(value, { key }): key must be a non-empty string, got a number (5); omit it for the default key',
    );
    await expectError(
      () => run({ key: "" }),
      TypeError,
      'Node "ask" of graph "g": ctx.interrupt(value, { key }): key must be a non-empty string, got ""; omit it for the default key',
    );
    await expectError(
      () => run("approve"),
      TypeError,
      'Node "ask" of graph "g": ctx.interrupt(value, options): options must be an object { key? }, got a string (approve)',
    );
    expect((await run({ key: "approve" })).interrupts.map((i) => i.key)).toEqual(["approve"]);
  });
});
