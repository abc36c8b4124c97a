import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import {
  GraphConfigError,
  GraphExecutionError,
  StateUpdateError,
  UnknownBranchError,
  ValueError,
} from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";
import { Graph, type GraphOptions } from "./graph.js";
import { node, START } from "./node.js";
import { Command, END, Send, when } from "./routing.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  ok: z.boolean().default(false),
});
type S = typeof State.State;

const step = (name: string) => node((s: S) => ({ log: [`${name}:${s.ok}`] }), { name });

/** a → (ok ? b : c) → END */
function build(store: StateStore, options: GraphOptions = {}) {
  const a = step("a");
  const b = step("b");
  const c = step("c");
  return new Graph(State, { stateStore: store, ...options }).flow(
    START.to(a),
    a.to(when((s: S) => s.ok, b, { otherwise: c })),
    b.to(END),
    c.to(END),
  );
}

describe("graph.updateState", () => {
  it("without asNode: the state changes through the reducers, next stays, continuing uses it", async () => {
    const g = build(new MemoryStateStore(), { interruptAfter: ["a"] });
    await g.invoke({}, { threadId: "t" });
    expect((await g.getState("t")).next).toEqual(["c"]);
    const snap = await g.updateState("t", { log: ["fixed"], ok: true });
    expect(snap).toMatchObject({
      state: { log: ["a:false", "fixed"], ok: true },
      step: 1,
      next: ["c"],
      breakpoint: { when: "after", step: 1, nodes: ["a"] },
    });
    const last = (await g.history("t")).at(-1)!;
    expect([last.type, last.step, last.node, last.data]).toEqual([
      "state_updated",
      1,
      null,
      { update: { log: ["fixed"], ok: true } },
    ]);
    const r = await g.invoke(null, { threadId: "t" });
    expect([r.status, r.state]).toEqual([
      "completed",
      { log: ["a:false", "fixed", "c:true"], ok: true },
    ]);
  });

  it("asNode: its edges on the new state decide what runs next", async () => {
    const g = build(new MemoryStateStore(), { interruptAfter: ["a"] });
    await g.invoke({}, { threadId: "t" });
    const snap = await g.updateState("t", { ok: true }, { asNode: "a" });
    expect([snap.step, snap.next, snap.state]).toEqual([2, ["b"], { log: ["a:false"], ok: true }]);
    const last = (await g.history("t")).at(-1)!;
    expect([last.type, last.step, last.node, last.data]).toEqual([
      "state_updated",
      1,
      "a",
      { update: { ok: true }, asNode: "a", next: ["b"] },
    ]);
    // The breakpoint it was paused at stays the pause it continues past.
    const r = await g.invoke(null, { threadId: "t" });
    expect(r.state).toEqual({ log: ["a:false", "b:true"], ok: true });
    // A position cached by this graph object and one folded by a new graph object agree.
    expect(await build(g.stateStore!).getState("t")).toEqual(await g.getState("t"));
  });

  it("seeds a new thread; asNode schedules the node's edges", async () => {
    const g = build(new MemoryStateStore());
    const snap = await g.updateState("new", { log: ["seed"] }, { asNode: "a" });
    expect([snap.step, snap.next, snap.status]).toEqual([1, ["c"], null]);
    const r = await g.invoke(null, { threadId: "new" });
    expect(r.state).toEqual({ log: ["seed", "c:false"], ok: false });
  });

  it("fork plus update: edit and branch", async () => {
    const g = build(new MemoryStateStore());
    await g.invoke({}, { threadId: "t" });
    const first = (await g.history("t")).find((e) => e.type === "step_committed")!;
    const branch = await g.fork("t", { eventId: first.id, branchId: "edit" });
    await g.updateState("t", { ok: true }, { asNode: "a", branchId: branch.branchId });
    const r = await g.invoke(null, { threadId: "t", branchId: "edit" });
    expect(r.state).toEqual({ log: ["a:false", "b:true"], ok: true });
    expect((await g.getState("t")).state).toEqual({ log: ["a:false", "c:false"], ok: false });
  });

  it("refuses what a node could not return, with the node's errors, and writes nothing", async () => {
    const store = new MemoryStateStore();
    const g = build(store, { interruptAfter: ["a"] });
    await g.invoke({}, { threadId: "t" });
    const before = await g.history("t");
    await expectError(
      () => g.updateState("t", { nope: 1 } as never, { asNode: "a" }),
      StateUpdateError,
      'Node "a" wrote unknown state field "nope"; declared fields: log, ok',
    );
    await expectError(
      () => g.updateState("t", { nope: 1 } as never),
      StateUpdateError,
      'The update given to updateState wrote unknown state field "nope"; declared fields: log, ok',
    );
    await expectError(
      () => g.updateState("t", { ok: "yes" } as never),
      StateUpdateError,
      'Invalid value for state field "ok" written by the update given to updateState: Invalid input: expected boolean, received string',
    );
    await expectError(
      () => g.updateState("t", { ok: true }, { asNode: "zz" }),
      ValueError,
      'Graph "graph": updateState asNode "zz" is not a node of the flow; known nodes: a, b, c',
    );
    await expectError(
      () => g.updateState("t", { ok: true }, { as: "a" } as never),
      TypeError,
      'Graph "graph": unknown updateState option "as"; the options are asNode and branchId',
    );
    await expectError(
      () => g.updateState("t", { ok: true }, { branchId: "nope" }),
      UnknownBranchError,
      'Thread "t" has no branch "nope"',
    );
    await expectError(
      () => build(null as never).updateState("t", { ok: true }),
      GraphConfigError,
      'Graph "graph" has no stateStore; updateState needs one',
    );
    expect(await g.history("t")).toEqual(before);
  });
});

describe("a Command as run input", () => {
  const askThenStep = (store: StateStore) => {
    const ask = node(
      (s: S, ctx) => ({ log: [`ask:${ctx.interrupt<string>("go?", { key: "go" })}:${s.ok}`] }),
      { name: "ask" },
    );
    const b = step("b");
    const c = step("c");
    return new Graph(State, { stateStore: store }).flow(
      START.to(ask),
      ask.to(b),
      b.to(END),
      c.to(END),
    );
  };

  it("resume with an update: the update is applied, then the paused task resumes", async () => {
    const g = askThenStep(new MemoryStateStore());
    await g.invoke({}, { threadId: "t" });
    const r = await g.invoke(new Command({ resume: { go: "yes" }, update: { ok: true } }), {
      threadId: "t",
    });
    expect(r.state).toEqual({ log: ["ask:yes:true", "b:true"], ok: true });
    const types = (await g.history("t")).map((e) => e.type);
    expect(types.slice(-5)).toEqual([
      "state_updated",
      "run_started",
      "step_committed",
      "step_committed",
      "run_finished",
    ]);
  });

  it("goto sets what runs next (a Send with its payload included)", async () => {
    const g = askThenStep(new MemoryStateStore());
    await g.invoke({}, { threadId: "t" });
    const r = await g.invoke(
      new Command({ update: { log: ["skipped"] }, goto: ["c", new Send("b", { ok: true }), "c"] }),
      { threadId: "t" },
    );
    expect(r.state).toEqual({ log: ["skipped", "c:false", "b:true"], ok: false });
    expect(r.interrupts).toEqual([]);
  });

  it("refuses a Command without a thread, resume given twice, resume with goto, unknown targets, and resume from a node", async () => {
    const store = new MemoryStateStore();
    const g = askThenStep(store);
    await expectError(
      () => g.invoke(new Command({ update: { ok: true } })),
      ValueError,
      'Graph "graph": a Command as input continues a thread; pass the threadId of the thread it continues',
    );
    await g.invoke({}, { threadId: "t" });
    const before = await g.history("t");
    await expectError(
      () => g.invoke(new Command({ resume: { go: "a" } }), { threadId: "t", resume: { go: "b" } }),
      ValueError,
      'Graph "graph": resume answers were given both in the Command and in the run options; give them once',
    );
    await expectError(
      () => g.invoke(new Command({ resume: { go: "a" }, goto: "b" }), { threadId: "t" }),
      ValueError,
      'Graph "graph": a Command with goto sets the tasks that run next, so the interrupts of the paused ones cannot be answered; give resume or goto, not both',
    );
    await expectError(
      () => g.invoke(new Command({ goto: "zz" }), { threadId: "t" }),
      ValueError,
      'Graph "graph": Command.goto names node "zz", which is not in the flow; known nodes: ask, b, c',
    );
    // A bad update in a Command is named as the Command's, not updateState's.
    await expectError(
      () => g.invoke(new Command({ update: { nope: 1 } as never }), { threadId: "t" }),
      StateUpdateError,
      'The Command\'s update wrote unknown state field "nope"; declared fields: log, ok',
    );
    await expectError(
      () => g.invoke(new Command({ update: { ok: "yes" } as never }), { threadId: "t" }),
      StateUpdateError,
      'Invalid value for state field "ok" written by the Command\'s update: Invalid input: expected boolean, received string',
    );
    const err = await g
      .invoke(new Command({ update: { ok: 1 } as never }), { threadId: "t" })
      .catch((e: StateUpdateError) => e);
    expect([(err as StateUpdateError).node, (err as StateUpdateError).field]).toEqual([
      "__command__",
      "ok",
    ]);
    await expectError(
      () => g.invoke(new Command({ resume: { nope: 1 }, update: { ok: true } }), { threadId: "t" }),
      ValueError,
      'Thread "t" has no pending interrupt with key "nope"; pending: go',
    );
    expect(await g.history("t")).toEqual(before);
    await expectError(
      () => new Command({ resume: "yes" as never }),
      TypeError,
      "new Command(init): resume must be an object of answers by interrupt key or null, got a string (yes)",
    );
    const bad = node(() => new Command({ resume: { x: 1 } }), { name: "bad" });
    await expectError(
      () => new Graph(State).flow(START.to(bad), bad.to(END)).invoke({}),
      GraphExecutionError,
      'Node "bad" returned a Command with resume; resume answers interrupts when a Command is the input of a run (graph.invoke(new Command({ resume }), { threadId })), not from a node',
    );
  });
});
