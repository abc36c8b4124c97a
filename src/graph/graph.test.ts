import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { caught, expectError } from "../../test/helpers.js";
import {
  ContextNotProvidedError,
  GraphConfigError,
  GraphExecutionError,
  NodeTimeoutError,
  RunCancelledError,
  StateStoreError,
  StateUpdateError,
  StepLimitError,
} from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { Replace } from "../state/replace.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { Command, END, Send, when } from "./routing.js";
import type { StreamEvent } from "./types.js";

const State = defineState({
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  topic: z.string().nullable().default(null),
});
type S = typeof State.State;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
      'new Command(init): unknown key "updates"; a Command takes only update, goto and resume',
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
      'Graph "g": unknown option "maxStep"; the options of new Graph(state, options) are name, stateStore, workspace, memoryStore, maxSteps, middleware, leaseTtlMs, retry, nodeCache, tracer, interruptBefore, interruptAfter, maxConcurrency, onError',
    );
    await expectError(
      () => new Graph(State, { store: null, thread: "t" } as never),
      TypeError,
      'Graph "graph": unknown options "store", "thread"; the options of new Graph(state, options) are name, stateStore, workspace, memoryStore, maxSteps, middleware, leaseTtlMs, retry, nodeCache, tracer, interruptBefore, interruptAfter, maxConcurrency, onError',
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

describe("supersteps", () => {
  it("runs fan-out targets in one superstep and applies their updates in task order, not finishing order", async () => {
    const slow = node(
      async () => {
        await sleep(30);
        return { log: ["slow"] };
      },
      { name: "slow" },
    );
    const fast = node(() => ({ log: ["fast"] }), { name: "fast" });
    const steps: number[] = [];
    const join = node(
      (s: S, ctx) => {
        steps.push(ctx.step);
        return { log: [`join saw ${s.log.join(",")}`] };
      },
      { name: "join" },
    );
    const g = new Graph(State).flow(
      START.to([slow, fast]),
      slow.to(join),
      fast.to(join),
      join.to(END),
    );
    const { state } = await g.invoke({});
    expect(state.log).toEqual(["slow", "fast", "join saw slow,fast"]);
    expect(steps).toEqual([1]);
  });

  it("takes a reducer field's first update as its value when it has no default, warm and cold", async () => {
    const T = defineState({ text: reducer(z.string(), (a: string, b: string) => a + b) });
    const x = node(() => ({ text: "x" }), { name: "x" });
    const y = node(() => ({ text: "y" }), { name: "y" });
    const z2 = node(() => ({ text: "z" }), { name: "z" });
    const store = new MemoryStateStore();
    const make = () =>
      new Graph(T, { stateStore: store }).flow(START.to([x, y]), x.to(z2), y.to(z2), z2.to(END));
    const { state } = await make().invoke({}, { threadId: "t" });
    expect(state).toEqual({ text: "xyz" });
    expect((await make().getState("t")).state).toEqual({ text: "xyz" });
  });

  it("routes with when() on the state after the superstep", async () => {
    const inc = node(() => ({ count: 1 }), { name: "inc" });
    const g = new Graph(State).flow(
      START.to(inc),
      inc.to(when((s: S) => s.count < 5, inc, { otherwise: END })),
    );
    expect((await g.invoke({})).state.count).toBe(5);
  });

  it("routes with async when() conditions, in edge order, between synchronous ones", async () => {
    const seen: string[][] = [];
    const record = (name: string) =>
      node(
        (s: S) => {
          seen.push([name, String(s.count)]);
          return {};
        },
        { name },
      );
    const a = node(() => ({ count: 1 }), { name: "a" });
    const [b, c, d, e] = ["b", "c", "d", "e"].map(record) as [
      ReturnType<typeof record>,
      ReturnType<typeof record>,
      ReturnType<typeof record>,
      ReturnType<typeof record>,
    ];
    const g = new Graph(State).flow(
      START.to(a),
      a.to([
        b,
        when(async (s: S) => s.count === 1, c, { otherwise: END }),
        d,
        when(async () => false, END, { otherwise: e }),
      ]),
      b.to(END),
      c.to(END),
      d.to(END),
      e.to(END),
    );
    const steps: string[][] = [];
    for await (const ev of g.stream({}, { modes: ["updates"] })) {
      if (ev.step === 1) steps.push([ev.node ?? "", ev.taskId ?? ""]);
    }
    // The next superstep's tasks keep the order of the edges, async conditions or not.
    expect(steps).toEqual([
      ["b", "1:0"],
      ["c", "1:1"],
      ["d", "1:2"],
      ["e", "1:3"],
    ]);
  });

  it("stops after exactly maxSteps supersteps with StepLimitError", async () => {
    let runs = 0;
    const loop = node(
      () => {
        runs++;
        return { count: 1 };
      },
      { name: "loop" },
    );
    const g = new Graph(State, { name: "forever", maxSteps: 7 }).flow(
      START.to(loop),
      loop.to(loop),
    );
    const e = await expectError(
      () => g.invoke({}),
      StepLimitError,
      'Graph "forever" reached its limit of 7 supersteps with nodes still to run (loop); raise maxSteps, or check for a loop that never reaches END',
    );
    expect(runs).toBe(7);
    expect(e.maxSteps).toBe(7);
    expect(e.pending).toEqual(["loop"]);
    expect(e).toBeInstanceOf(GraphExecutionError);
  });

  it("defaults maxSteps to 25", async () => {
    let runs = 0;
    const loop = node(
      () => {
        runs++;
      },
      { name: "loop" },
    );
    await caught(() => new Graph(State).flow(START.to(loop), loop.to(loop)).invoke({}));
    expect(runs).toBe(25);
  });
});

describe("return forms", () => {
  it("takes the received state changed in place as the changed fields, written as they are", async () => {
    const n = node(
      (s: S) => {
        s.count = 41;
        s.topic = "t";
        return s;
      },
      { name: "n" },
    );
    const g = new Graph(State).flow(START.to(n), n.to(END));
    const { state } = await g.invoke({ count: 2 });
    expect(state.count).toBe(41);
    expect(state.topic).toBe("t");
  });

  it("gives each node its own copy of the state's lists and objects, one level deep", async () => {
    // In place: a list changed with push counts as changed (written as it is, past the reducer).
    const pushes = node(
      (s: S) => {
        s.log.push("pushed");
        return s;
      },
      { name: "pushes" },
    );
    const g1 = new Graph(State).flow(START.to(pushes), pushes.to(END));
    expect((await g1.invoke({ log: ["a"] })).state.log).toEqual(["a", "pushed"]);

    // A node that changes its copy and returns an update changes nothing else: the sibling in
    // the same superstep and the next superstep see the state as committed.
    const seen: string[][] = [];
    const stray = node(
      (s: S) => {
        s.log.push("stray");
        return { count: 1 };
      },
      { name: "stray" },
    );
    const sibling = node(
      (s: S) => {
        seen.push([...s.log]);
        return {};
      },
      { name: "sibling" },
    );
    const after = node(
      (s: S) => {
        seen.push([...s.log]);
        return {};
      },
      { name: "after" },
    );
    const g2 = new Graph(State).flow(
      START.to([stray, sibling]),
      stray.to(after),
      sibling.to(END),
      after.to(END),
    );
    const r = await g2.invoke({ log: ["a"] });
    expect(r.state).toEqual({ count: 1, log: ["a"], topic: null });
    expect(seen).toEqual([["a"], ["a"]]);

    // A Send task returning its state in place writes only what it changed, not its payload.
    const worker = node(
      (s: S) => {
        s.count = s.count + 10;
        return s;
      },
      { name: "worker" },
    );
    const fan = node(() => [new Send("worker", { topic: "x" })], { name: "fan", goto: ["worker"] });
    const g3 = new Graph(State).flow(START.to(fan), worker.to(END));
    expect((await g3.invoke({ count: 1 })).state).toEqual({ count: 11, log: [], topic: null });
  });

  it("types a node's update by the state's fields: one with none of them does not compile", async () => {
    // @ts-expect-error: "cout" is not a field of the state (count is); tsc refuses it
    const typo = node((s: S) => ({ cout: s.count + 1 }), { name: "typo" });
    // At run time the same mistake is a StateUpdateError naming the field.
    await expectError(
      () => new Graph(State).flow(START.to(typo), typo.to(END)).invoke({}),
      StateUpdateError,
      'Node "typo" wrote unknown state field "cout"; declared fields: count, log, topic',
    );
  });

  it("types stream events by mode: values carry the state", async () => {
    const inc = node(() => ({ count: 1 }), { name: "inc" });
    const g = new Graph(State).flow(START.to(inc), inc.to(END));
    const counts: number[] = [];
    for await (const e of g.stream({ count: 1 }, { modes: ["values", "updates"] })) {
      if (e.mode === "values") {
        expectTypeOf(e.data).toEqualTypeOf<S>();
        counts.push(e.data.count);
      } else {
        expectTypeOf(e.mode).toEqualTypeOf<
          "updates" | "custom" | "tokens" | "messages" | "tasks" | "checkpoints" | "debug"
        >();
      }
    }
    expect(counts).toEqual([2]);
  });

  it("hands the caller copies: changing a result, a values event or getState's state changes no run", async () => {
    const store = new MemoryStateStore();
    const add = node(() => ({ log: ["x"] }), { name: "add" });
    const g = new Graph(State, { stateStore: store }).flow(START.to(add), add.to(END));
    const first = await g.invoke({}, { threadId: "t" });
    first.state.log.push("changed by the caller");
    (await g.getState("t")).state.log.push("changed by the caller");
    for await (const e of g.stream({}, { threadId: "t", modes: ["values"] })) {
      (e.data as S).log.push("changed by a listener");
    }
    expect((await g.getState("t")).state.log).toEqual(["x", "x"]);
    expect((await g.invoke({}, { threadId: "t" })).state.log).toEqual(["x", "x", "x"]);
  });

  it("routes by Command and applies its update", async () => {
    const a = node(() => new Command({ update: { topic: "x" }, goto: "b" }), {
      name: "a",
      goto: ["b"],
    });
    const b = node((s: S) => ({ log: [`b:${s.topic}`] }), { name: "b" });
    const c = node(() => ({ log: ["c"] }), { name: "c" });
    const g = new Graph(State).flow(START.to(a), a.to(c), b.to(END), c.to(END));
    expect((await g.invoke({})).state.log).toEqual(["b:x"]);
  });

  it("follows the edges when Command has no goto, and routes nowhere with goto []", async () => {
    const a = node(() => new Command({ update: { count: 1 } }), { name: "a" });
    const b = node(() => ({ log: ["b"] }), { name: "b" });
    const g = new Graph(State).flow(START.to(a), a.to(b), b.to(END));
    expect((await g.invoke({})).state).toEqual({ count: 1, log: ["b"], topic: null });
    const a2 = node(() => new Command({ goto: [] }), { name: "a" });
    const g2 = new Graph(State).flow(START.to(a2), a2.to(b), b.to(END));
    expect((await g2.invoke({})).state.log).toEqual([]);
  });

  it("runs each Send as its own task with its payload laid over the state", async () => {
    const fan = node(() => ["a", "b", "c"].map((t) => new Send("worker", { topic: t })), {
      name: "fan",
      goto: ["worker"],
    });
    const worker = node((s: S) => ({ log: [`${s.topic}`], count: 1 }), { name: "worker" });
    const g = new Graph(State).flow(START.to(fan), worker.to(END));
    const { state } = await g.invoke({});
    expect(state.log).toEqual(["a", "b", "c"]);
    expect(state.count).toBe(3);
    expect(state.topic).toBeNull();
  });

  it("ends on a returned END declared in goto", async () => {
    const a = node(() => END, { name: "a", goto: [END] });
    const b = node(() => ({ log: ["b"] }), { name: "b" });
    const g = new Graph(State).flow(START.to(a), a.to(b), b.to(END));
    expect((await g.invoke({})).state.log).toEqual([]);
  });

  it("raises GraphExecutionError when routing to a target not declared in goto", async () => {
    const a = node(() => new Command({ goto: "b" }), { name: "a" });
    const b = node(() => ({}), { name: "b" });
    const g = new Graph(State).flow(START.to(a), a.to(END), b.to(END));
    await expectError(
      () => g.invoke({}),
      GraphExecutionError,
      'Node "a" routed to "b" through Command.goto, but "b" is not in its goto list; declare it with node(fn, { goto: [...] })',
    );
    const c = node(() => END, { name: "c", goto: ["b"] });
    await expectError(
      () => new Graph(State).flow(START.to(c), b.to(END)).invoke({}),
      GraphExecutionError,
      'Node "c" routed to END through a returned END, but END is not in its goto list (b); declare it with node(fn, { goto: [...] })',
    );
  });

  it("adds declared goto targets to the flow, by node or by name", async () => {
    const b = node(() => ({ log: ["b"] }), { name: "b" });
    const a = node(() => new Command({ goto: b }), { name: "a", goto: [b] });
    const g = new Graph(State).flow(START.to(a), b.to(END));
    expect(g.nodeNames).toEqual(["a", "b"]);
    expect((await g.invoke({})).state.log).toEqual(["b"]);
  });

  it("refuses a Send payload with Replace, or one that is not JSON", async () => {
    const w = node(() => ({}), { name: "w" });
    const bad = node(() => [new Send("w", { count: Replace(1) })], { name: "bad", goto: ["w"] });
    await expectError(
      () => new Graph(State).flow(START.to(bad), w.to(END)).invoke({}),
      StateUpdateError,
      'Send payload for node "w" has a Replace in field "count"; a payload sets values as they are, without reducers',
    );
    const nonJson = node(() => [new Send("w", { when: new Date() })], { name: "bad", goto: ["w"] });
    await expectError(
      () => new Graph().flow(START.to(nonJson), w.to(END)).invoke({}),
      StateStoreError,
      'Cannot store the Send payload for node "w": when is not JSON (a Date instance is not plain JSON data)',
    );
    const wrongType = node(() => [new Send("w", { count: "two" })], { name: "bad", goto: ["w"] });
    const e = await expectError(
      () => new Graph(State).flow(START.to(wrongType), w.to(END)).invoke({}),
      StateUpdateError,
      'Invalid value for state field "count" written by the Send payload for node "w": Invalid input: expected number, received string',
    );
    expect(e.node).toBe("w");
    expect(e.field).toBe("count");
  });

  it("refuses a return value of another kind", async () => {
    const a = node(() => 42 as never, { name: "a" });
    await expectError(
      () => new Graph(State).flow(START.to(a), a.to(END)).invoke({}),
      StateUpdateError,
      'Node "a" returned a number (42); a node returns an update object, its state changed in place, a Command, a Send or an array of Sends, END, or nothing',
    );
  });

  it("names the node of an invalid update", async () => {
    const a = node(() => ({ topic: 3 }) as never, { name: "a" });
    const e = await expectError(
      () => new Graph(State).flow(START.to(a), a.to(END)).invoke({}),
      StateUpdateError,
      'Invalid value for state field "topic" written by node "a": Invalid input: expected string, received number',
    );
    expect(e.node).toBe("a");
    expect(e.field).toBe("topic");
  });
});

describe("timeouts, context and cancellation", () => {
  it("fails an async node after timeoutMs and aborts its signal", async () => {
    let aborted = false;
    const slow = node(
      async (_s: S, ctx) => {
        ctx.signal.addEventListener("abort", () => {
          aborted = true;
        });
        await sleep(500);
      },
      { name: "slow", timeoutMs: 20 },
    );
    const e = await expectError(
      () => new Graph(State, { name: "g" }).flow(START.to(slow), slow.to(END)).invoke({}),
      NodeTimeoutError,
      'Node "slow" of graph "g" did not finish within 20 ms',
    );
    expect(e.node).toBe("slow");
    expect(e.timeoutMs).toBe(20);
    expect(aborted).toBe(true);
  });

  it("fails a sync node only when it returns", async () => {
    let returned = false;
    const busy = node(
      () => {
        const end = performance.now() + 30;
        while (performance.now() < end) {}
        returned = true;
        return {};
      },
      { name: "busy", timeoutMs: 5 },
    );
    await expectError(
      () => new Graph(State).flow(START.to(busy), busy.to(END)).invoke({}),
      NodeTimeoutError,
      'Node "busy" of graph "graph" did not finish within 5 ms',
    );
    expect(returned).toBe(true);
  });

  it("gives nodes the run's context and raises ContextNotProvidedError without one", async () => {
    const n = node((_s: S, ctx) => ({ topic: (ctx.context as { user: string }).user }), {
      name: "n",
    });
    const g = new Graph(State, { name: "g" }).flow(START.to(n), n.to(END));
    const { state } = await g.invoke({}, { context: { user: "ada" } });
    expect(state.topic).toBe("ada");
    await expectError(
      () => g.invoke({}),
      ContextNotProvidedError,
      'Node "n" of graph "g" read ctx.context, but the run was started without one; pass it as invoke(input, { context }) (and again on resume: it is never stored)',
    );
  });

  it("cancels a run promptly through an AbortSignal", async () => {
    let sawAbort = false;
    const slow = node(
      async (_s: S, ctx) => {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 5_000);
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            clearTimeout(t);
            resolve();
          });
        });
      },
      { name: "slow" },
    );
    const ac = new AbortController();
    const g = new Graph(State).flow(START.to(slow), slow.to(END));
    const started = performance.now();
    setTimeout(() => ac.abort(), 20);
    const e = await caught(() => g.invoke({}, { signal: ac.signal }));
    expect(e).toBeInstanceOf(RunCancelledError);
    expect(e.message).toBe('Run of graph "graph" was cancelled');
    expect(sawAbort).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("fails the run with a node's own error and fires every sibling's signal at once", async () => {
    const reasons: unknown[] = [];
    const boom = node(
      async () => {
        await sleep(1);
        throw new RangeError("boom");
      },
      { name: "boom" },
    );
    const waiter = (name: string) =>
      node(
        (_s: S, ctx) =>
          new Promise<void>((resolve) =>
            ctx.signal.addEventListener("abort", () => {
              reasons.push(ctx.signal.reason);
              resolve();
            }),
          ),
        { name },
      );
    const one = waiter("one");
    const two = waiter("two");
    const g = new Graph(State).flow(
      START.to([one, boom, two]),
      boom.to(END),
      one.to(END),
      two.to(END),
    );
    const e = await caught(() => g.invoke({}));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toBe("boom");
    // Fired before the caller saw the error, with why.
    expect(reasons).toHaveLength(2);
    for (const r of reasons) {
      expect(r).toBeInstanceOf(RunCancelledError);
      expect((r as Error).message).toBe(
        'Run of graph "graph" stopped: node "boom" (task 0:1) failed',
      );
      expect((r as Error).cause).toBe(e);
    }
  });

  it("stops a sibling's retries when a task fails", async () => {
    let attempts = 0;
    let firstFailed!: () => void;
    const failedOnce = new Promise<void>((r) => {
      firstFailed = r;
    });
    let seen: AbortSignal | null = null;
    const flaky = node(
      async (_s: S, ctx) => {
        seen = ctx.signal;
        attempts++;
        firstFailed();
        throw new Error("flaky");
      },
      { name: "flaky", retry: { maxAttempts: 5, initialIntervalMs: 60_000, jitter: false } },
    );
    const boom = node(
      async () => {
        await failedOnce;
        throw new RangeError("boom");
      },
      { name: "boom" },
    );
    const g = new Graph(State).flow(START.to([flaky, boom]), flaky.to(END), boom.to(END));
    await expectError(() => g.invoke({}), RangeError, "boom");
    expect(seen!.aborted).toBe(true);
    await sleep(0);
    await sleep(0);
    expect(attempts).toBe(1);
  });
});

describe("streaming", () => {
  const a = node(
    (_s: S, ctx) => {
      ctx.emit({ progress: 1 });
      return { count: 1 };
    },
    { name: "a" },
  );
  const b = node(() => ({ log: ["b"] }), { name: "b" });
  const g = new Graph(State).flow(START.to(a), a.to(b), b.to(END));

  it("yields updates, values and custom events with node, step and task id", async () => {
    const events: StreamEvent[] = [];
    for await (const e of g.stream({}, { modes: ["updates", "values", "custom"] })) events.push(e);
    expect(events).toEqual([
      { mode: "custom", node: "a", step: 0, taskId: "0:0", data: { progress: 1 } },
      { mode: "updates", node: "a", step: 0, taskId: "0:0", data: { count: 1 } },
      {
        mode: "values",
        node: null,
        step: 0,
        taskId: null,
        data: { count: 1, log: [], topic: null },
      },
      { mode: "updates", node: "b", step: 1, taskId: "1:0", data: { log: ["b"] } },
      {
        mode: "values",
        node: null,
        step: 1,
        taskId: null,
        data: { count: 1, log: ["b"], topic: null },
      },
    ]);
  });

  it("streams only the modes asked for (updates by default)", async () => {
    const modes: string[] = [];
    for await (const e of g.stream({})) modes.push(e.mode);
    expect(modes).toEqual(["updates", "updates"]);
  });

  it("closes the run when the loop is left early", async () => {
    let aborted = false;
    let afterRan = false;
    const waiting = node(
      async (_s: S, ctx) => {
        ctx.emit("started");
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
        aborted = true;
      },
      { name: "waiting" },
    );
    const after = node(
      () => {
        afterRan = true;
      },
      { name: "after" },
    );
    const g2 = new Graph(State).flow(START.to(waiting), waiting.to(after), after.to(END));
    for await (const e of g2.stream({}, { modes: ["custom"] })) {
      if (e.data === "started") break;
    }
    expect(aborted).toBe(true);
    expect(afterRan).toBe(false);
  });

  it("raises the run's error from the loop", async () => {
    const bad = node(() => ({ nope: 1 }) as never, { name: "bad" });
    const g3 = new Graph(State).flow(START.to(bad), bad.to(END));
    const e = await caught(async () => {
      for await (const _ of g3.stream({})) {
      }
    });
    expect(e).toBeInstanceOf(StateUpdateError);
  });
});

describe("plain-object state", () => {
  it("keeps the last write and accepts any JSON field", async () => {
    const a = node(() => ({ x: 1, y: "a" }), { name: "a" });
    const b = node((s: Record<string, unknown>) => ({ x: (s.x as number) + 1 }), { name: "b" });
    const g = new Graph().flow(START.to(a), a.to(b), b.to(END));
    expect((await g.invoke({ z: true })).state).toEqual({ z: true, x: 2, y: "a" });
  });
});
