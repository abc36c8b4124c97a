/**
 * Input and output schemas: `new Graph(State, { input, output })` refuses input fields
 * outside `input`, and results and `"values"` events show only `output`; the thread keeps
 * every field.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { StateUpdateError, ValueError } from "../errors/index.js";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { Command, END } from "./routing.js";
import { subgraph } from "./subgraph.js";
import type { StreamEvent } from "./types.js";

const State = defineState({
  question: z.string().default(""),
  scratch: z.array(z.string()).default([]),
  answer: z.string().default(""),
});
type S = typeof State.State;
const Input = defineState({ question: z.string().default("") });

const think = node((s: S) => ({ scratch: [`about ${s.question}`] }), { name: "think" });
const reply = node((s: S) => ({ answer: `${s.question}? ${s.scratch.length} note(s)` }), {
  name: "reply",
});
const make = (options: ConstructorParameters<typeof Graph>[1] = {}) =>
  new Graph(State, { input: Input, output: ["answer"], ...options }).flow(
    START.to(think),
    think.to(reply),
    reply.to(END),
  );

describe("input and output schemas", () => {
  it("a result shows only the output fields; the thread keeps them all", async () => {
    const store = new MemoryStateStore();
    const g = make({ stateStore: store });
    const r = await g.invoke({ question: "why" }, { threadId: "t" });
    expect(r.state).toEqual({ answer: "why? 1 note(s)" });
    expect((await make({ stateStore: store }).getState("t")).state).toEqual({
      question: "why",
      scratch: ["about why"],
      answer: "why? 1 note(s)",
    });
  });

  it("values events show only the output fields; updates events stay as the nodes wrote them", async () => {
    const events: StreamEvent[] = [];
    for await (const e of make().stream({ question: "how" }, { modes: ["values", "updates"] }))
      events.push(e);
    expect(events.map((e) => [e.mode, e.node, e.data])).toEqual([
      ["updates", "think", { scratch: ["about how"] }],
      ["values", null, { answer: "" }],
      ["updates", "reply", { answer: "how? 1 note(s)" }],
      ["values", null, { answer: "how? 1 note(s)" }],
    ]);
  });

  it("refuses an input field outside input, naming it, before anything is written", async () => {
    const store = new MemoryStateStore();
    const g = make({ stateStore: store });
    const e = await expectError(
      () => g.invoke({ question: "q", scratch: ["planted"] } as never, { threadId: "t" }),
      StateUpdateError,
      'Graph "graph": the input has field "scratch", which is not an input field; input fields: question',
    );
    expect([e.node, e.field]).toEqual(["__input__", "scratch"]);
    expect(await g.history("t")).toEqual([]);
    await expectError(
      () => make().invoke({ answer: "x" } as never),
      StateUpdateError,
      'Graph "graph": the input has field "answer", which is not an input field; input fields: question',
    );
  });

  it("a Command as input and updateState may still write any field (they edit the thread)", async () => {
    const store = new MemoryStateStore();
    const ask = node((_s: S, ctx) => ({ question: String(ctx.interrupt("q?", { key: "q" })) }), {
      name: "ask",
    });
    const g = new Graph(State, {
      stateStore: store,
      input: ["question"],
      output: ["answer", "scratch"],
    }).flow(START.to(ask), ask.to(reply), reply.to(END));
    await g.invoke({}, { threadId: "t" });
    const r = await g.invoke(
      new Command({ resume: { q: "who" }, update: { scratch: ["given"] } }),
      {
        threadId: "t",
      },
    );
    expect(r.state).toEqual({ answer: "who? 1 note(s)", scratch: ["given"] });
  });

  it("field lists and definitions are checked when the graph is made", async () => {
    await expectError(
      () => new Graph(State, { output: ["answr"] }),
      ValueError,
      'Graph "graph": output names field "answr", which is not a field of the graph\'s state; fields: question, scratch, answer',
    );
    await expectError(
      () => new Graph(State, { input: defineState({ other: z.string() }) }),
      ValueError,
      'Graph "graph": input names field "other", which is not a field of the graph\'s state; fields: question, scratch, answer',
    );
    await expectError(
      () => new Graph(State, { input: [] }),
      TypeError,
      'Graph "graph": input lists no fields',
    );
    await expectError(
      () => new Graph(State, { output: "answer" as never }),
      TypeError,
      'Graph "graph": output must be a list of state field names or a defineState(...) definition',
    );
    expect(new Graph(State, { input: Input, output: ["answer", "answer"] }).outputFields).toEqual([
      "answer",
    ]);
    expect(make().inputFields).toEqual(["question"]);
  });

  it("as a subgraph, the child's output is what comes back to the parent", async () => {
    const child = make();
    const sub = subgraph("sub", child, {
      stateIn: (p: S) => ({ question: p.question }),
      stateOut: (c: S) => ({ answer: c.answer, scratch: c.scratch ?? ["(hidden)"] }),
      childThread: "fresh",
    });
    const parent = new Graph(State).flow(START.to(sub), sub.to(END));
    expect((await parent.invoke({ question: "q" })).state).toEqual({
      question: "q",
      scratch: ["(hidden)"],
      answer: "q? 1 note(s)",
    });
  });
});

describe("the result's type follows the output schema", () => {
  it("a list of names types RunResult.state as those fields, and the value has only them", async () => {
    const g = new Graph(State, { output: ["answer", "question"] }).flow(
      START.to(think),
      think.to(reply),
      reply.to(END),
    );
    const r = await g.invoke({ question: "who" });
    expectTypeOf(r.state).toEqualTypeOf<{ answer: string; question: string }>();
    expect(r.state).toEqual({ question: "who", answer: "who? 1 note(s)" });
    for await (const e of g.stream({ question: "who" }, { modes: ["values"] })) {
      if (e.mode === "values")
        expectTypeOf(e.data).toEqualTypeOf<{ answer: string; question: string }>();
    }
  });

  it("a definition types it as the definition's fields", async () => {
    const Out = defineState({ answer: z.string().default("") });
    const g = new Graph(State, { output: Out }).flow(
      START.to(think),
      think.to(reply),
      reply.to(END),
    );
    const r = await g.invoke({ question: "when" });
    expectTypeOf(r.state).toEqualTypeOf<{ answer: string }>();
    expect(r.state).toEqual({ answer: "when? 1 note(s)" });
  });

  it("without an output schema it is the whole state; with unknown names every field is optional", async () => {
    const whole = new Graph(State).flow(START.to(think), think.to(reply), reply.to(END));
    expectTypeOf((await whole.invoke({ question: "a" })).state).toEqualTypeOf<S>();
    const names: string[] = ["answer"];
    const loose = new Graph(State, { output: names }).flow(
      START.to(think),
      think.to(reply),
      reply.to(END),
    );
    const r = await loose.invoke({ question: "b" });
    expectTypeOf(r.state).toEqualTypeOf<Partial<S>>();
    expect(r.state).toEqual({ answer: "b? 1 note(s)" });
  });
});
