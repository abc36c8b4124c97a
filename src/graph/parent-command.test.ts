/**
 * `Command.PARENT`: a node of a subgraph updates and routes its parent; the child's run ends
 * there. Fresh and stable child threads, cold (a new graph object per call), and the errors.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { GraphExecutionError, StateUpdateError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { decodeParentCommand, encodeParentCommand } from "./parent-command.js";
import { Command, END, Send } from "./routing.js";
import { subgraph } from "./subgraph.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  owner: z.string().default(""),
});
type S = typeof State.State;
const ChildState = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  topic: z.string().default(""),
});
type C = typeof ChildState.State;

/** A child whose triage node hands off to the parent's `target` (after asking, when `ask`). */
function child(target: string, opts: { ask?: boolean; update?: Record<string, unknown> } = {}) {
  const triage = node(
    (_s: C, ctx) => {
      const who = opts.ask ? String(ctx.interrupt("who?", { key: "who" })) : target;
      return new Command({
        graph: Command.PARENT,
        update: opts.update ?? { owner: who, log: [`handoff:${who}`] },
        goto: who,
      });
    },
    { name: "triage" },
  );
  const sibling = node(() => ({ log: ["sibling"] }), { name: "sibling" });
  const later = node(() => ({ log: ["later"] }), { name: "later" });
  return new Graph(ChildState, { name: "child" }).flow(
    START.to([triage, sibling]),
    triage.to(later),
    sibling.to(END),
    later.to(END),
  );
}

function parent(
  store: StateStore | null,
  childThread: "fresh" | "stable",
  c = child("billing"),
): Graph<typeof State> {
  const intake = node(() => ({ log: ["intake"] }), { name: "intake" });
  const billing = node((s: S) => ({ log: [`billing for ${s.owner}`] }), { name: "billing" });
  const after = node(() => ({ log: ["after"] }), { name: "after" });
  const sub = subgraph("desk", c, {
    stateIn: () => ({ topic: "refund" }),
    stateOut: () => ({ log: ["desk returned"] }),
    childThread,
  });
  return new Graph(State, { name: "parent", stateStore: store }).flow(
    START.to(intake),
    intake.to(sub),
    sub.to(after),
    after.to(END),
    billing.to(END),
  );
}

describe("Command.PARENT", () => {
  for (const childThread of ["fresh", "stable"] as const) {
    it(`updates and routes the parent, and the child's run ends there (${childThread} child)`, async () => {
      const store = new MemoryStateStore();
      const r = await parent(store, childThread).invoke({}, { threadId: "t" });
      // sub's own edge (to after) is not taken: the child's goto replaces it; the child's
      // sibling ran, but its superstep was not applied, and "later" never ran.
      expect(r.state).toEqual({
        log: ["intake", "handoff:billing", "billing for billing"],
        owner: "billing",
      });
      const events = await parent(store, childThread).history("t");
      const desk = events.find((e) => e.type === "step_committed" && e.step === 1);
      expect(desk?.data).toEqual({
        next: ["billing"],
        update: { owner: "billing", log: ["handoff:billing"] },
      });
    });

    it(`resumes a child that paused before handing off, cold (${childThread} child)`, async () => {
      const store = new MemoryStateStore();
      const make = () => parent(store, childThread, child("", { ask: true }));
      const first = await make().invoke({}, { threadId: "t" });
      expect(first.status).toBe("interrupted");
      expect(first.interrupts.map((i) => i.key)).toEqual(["1:0/who"]);
      const done = await make().invoke(null, { threadId: "t", resume: { "1:0/who": "after" } });
      expect(done.status).toBe("completed");
      expect(done.state).toEqual({ log: ["intake", "handoff:after", "after"], owner: "after" });
      const snap = await make().getState("t", { subgraphs: true });
      expect([snap.status, snap.next, snap.state]).toEqual(["completed", [], done.state]);
      if (childThread === "stable") {
        // The child's thread: its run handed off and ended, with nothing left to run.
        const c = await child("", { ask: true }).getState("t:desk", { stateStore: store });
        expect([c.status, c.next, c.state.log]).toEqual(["completed", [], []]);
        const last = (await store.read("t:desk", "main")).at(-1);
        expect([last?.type, last?.data]).toEqual([
          "run_finished",
          {
            status: "completed",
            toParent: "triage",
            command: { update: { owner: "after", log: ["handoff:after"] }, goto: "after" },
            parentTask: JSON.stringify(["t", "main", "1:0"]),
          },
        ]);
      }
    });
  }

  it("refuses a target the parent does not have, naming both graphs", async () => {
    await expectError(
      () => parent(null, "fresh", child("nowhere")).invoke({}),
      GraphExecutionError,
      'Node "triage" of graph "child" routed its parent graph "parent" to "nowhere" (Command.PARENT), which is not a node of the parent; its nodes: intake, desk, after, billing',
    );
  });

  it("refuses a field the parent's state does not have, leaving the thread as it was", async () => {
    const store = new MemoryStateStore();
    const g = parent(store, "fresh", child("billing", { update: { topic: "x" } }));
    const e = await expectError(
      () => g.invoke({}, { threadId: "t" }),
      StateUpdateError,
      'Node "triage" of graph "child" sent its parent graph "parent" field "topic" (Command.PARENT), which is not a field of the parent\'s state; its fields: log, owner',
    );
    expect([e.node, e.field]).toEqual(["triage", "topic"]);
    expect((await g.getState("t")).state).toEqual({ log: ["intake"], owner: "" });
  });

  it("refuses Command.PARENT in a graph that is not running as a subgraph", async () => {
    await expectError(
      () => child("billing").invoke({}),
      GraphExecutionError,
      'Node "triage" of graph "child" returned a Command for its parent graph (Command.PARENT), but graph "child" is not running as a subgraph, so there is no parent to update; run it through subgraph(...) in a parent graph, or return a Command without graph',
    );
  });

  it("stores a hand-off's goto as names, END and Sends, and reads it back", () => {
    const billing = node(() => ({}), { name: "billing" });
    const goto = [billing, "after", END, new Send("billing", { owner: "y" })];
    const stored = encodeParentCommand(
      new Command({ graph: Command.PARENT, update: { owner: "x" }, goto }),
    );
    expect(stored).toEqual({
      update: { owner: "x" },
      goto: ["billing", "after", "__end__", { send: "billing", payload: { owner: "y" } }],
    });
    const back = decodeParentCommand(JSON.parse(JSON.stringify(stored)));
    const targets = back.goto as unknown[];
    expect([back.graph, back.update, targets.slice(0, 2)]).toEqual([
      null,
      { owner: "x" },
      ["billing", "after"],
    ]);
    expect(targets[2]).toBe(END);
    expect(targets[3]).toBeInstanceOf(Send);
    expect([(targets[3] as Send).node, (targets[3] as Send).payload]).toEqual([
      "billing",
      { owner: "y" },
    ]);
    expect(encodeParentCommand(new Command({ graph: Command.PARENT, goto: "after" }))).toEqual({
      update: null,
      goto: "after",
    });
    expect(decodeParentCommand({ update: null }).goto).toBeNull();
  });

  it("checks graph when the Command is made", () => {
    expect(() => new Command({ graph: "parent" as never })).toThrow(
      new TypeError(
        'new Command(init): graph must be Command.PARENT ("__parent__") or null, got a string (parent)',
      ),
    );
    expect(() => new Command({ graph: Command.PARENT, resume: { a: 1 } })).toThrow(
      new TypeError(
        "new Command(init): a Command for the parent graph cannot carry resume answers; resume answers are run input",
      ),
    );
    expect(new Command({ graph: Command.PARENT }).graph).toBe("__parent__");
  });
});
