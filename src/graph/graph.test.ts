// Graph runs: supersteps (fan-out, reducers, when(), maxSteps) and what a node may return.
// Checks: graph-checks.test.ts; timeouts, cancellation, streaming, plain-object state:
// graph-run-control.test.ts. Shared setup: graph.fixture.ts.
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { caught, expectError } from "../../test/helpers.js";
import {
  GraphExecutionError,
  StateStoreError,
  StateUpdateError,
  StepLimitError,
} from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { Replace } from "../state/replace.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { type S, State, sleep } from "./graph.fixture.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { Command, END, Send, when } from "./routing.js";

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
