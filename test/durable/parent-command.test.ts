/**
 * `Command.PARENT` across a pause, on every store: the child asks, the thread is continued by
 * new graph objects on a reopened store, and the child's answer routes the parent. And across
 * a crash between the child's hand-off and the parent's record of it: the store is the truth.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { Command, END, Graph, node, START, subgraph } from "../../src/graph/index.js";
import { isPlainObject } from "../../src/json/index.js";
import { defineState, reducer } from "../../src/state/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { caught } from "../helpers.js";
import { describeStores } from "./stores.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  owner: z.string().default(""),
});
type S = typeof State.State;

function makeParent(store: StateStore, childThread: "fresh" | "stable"): Graph<typeof State> {
  const triage = node(
    (_s: S, ctx) => {
      const who = String(ctx.interrupt("who takes it?", { key: "who" }));
      return new Command({ graph: Command.PARENT, update: { owner: who }, goto: who });
    },
    { name: "triage" },
  );
  const never = node(() => ({ log: ["never"] }), { name: "never" });
  const desk = new Graph(State, { name: "desk" }).flow(
    START.to(triage),
    triage.to(never),
    never.to(END),
  );
  const sub = subgraph("desk", desk, { share: ["log"], childThread });
  const mark = (name: string) => node((s: S) => ({ log: [`${name}:${s.owner}`] }), { name });
  const [billing, support] = [mark("billing"), mark("support")];
  return new Graph(State, { name: "front", stateStore: store }).flow(
    START.to(sub),
    sub.to(support),
    support.to(END),
    billing.to(END),
  );
}

describeStores("Command.PARENT across a pause", (fx) => {
  for (const childThread of ["fresh", "stable"] as const) {
    it(`a new graph on a reopened store routes the parent with the child's answer (${childThread})`, async () => {
      const store = await fx.open();
      const first = await makeParent(store, childThread).invoke({}, { threadId: "t" });
      expect([first.status, first.interrupts.map((i) => i.key)]).toEqual([
        "interrupted",
        ["0:0/who"],
      ]);
      const reopened = await fx.reopen(store);
      const done = await makeParent(reopened, childThread).invoke(null, {
        threadId: "t",
        resume: { "0:0/who": "billing" },
      });
      expect(done.state).toEqual({ log: ["billing:billing"], owner: "billing" });
      const again = await makeParent(await fx.reopen(store), childThread).getState("t");
      expect([again.status, again.next, again.state]).toEqual(["completed", [], done.state]);
    });
  }

  it("a fork from before the answer can route the parent elsewhere", async () => {
    const store = await fx.open();
    const g = makeParent(store, "fresh");
    const first = await g.invoke({}, { threadId: "t" });
    expect(first.status).toBe("interrupted");
    const paused = (await g.getState("t")).lastEventId!;
    await g.invoke(null, { threadId: "t", resume: { "0:0/who": "billing" } });
    await g.fork("t", { eventId: paused, branchId: "b" });
    const other = await makeParent(await fx.reopen(store), "fresh").invoke(null, {
      threadId: "t",
      branchId: "b",
      resume: { "0:0/who": "support" },
    });
    expect(other.state).toEqual({ log: ["support:support"], owner: "support" });
    expect((await makeParent(store, "fresh").getState("t")).state.owner).toBe("billing");
  });
});

/**
 * `store` as seen by a process that dies right after a child thread recorded its hand-off
 * (`run_finished` with `toParent`): every later append to the parent's thread `parent` fails,
 * so the parent never records its task. (Its lease is given back, as SQLite and PostgreSQL
 * take a dead process's lease over at once.)
 */
function dyingAfterHandoff(store: StateStore, parent: string): StateStore {
  let handed = false;
  return new Proxy(store, {
    get(target, prop) {
      if (prop === "append") {
        const append: StateStore["append"] = async (threadId, branchId, events, expected) => {
          if (handed && threadId === parent) throw new Error("the process died");
          const stored = await target.append(threadId, branchId, events, expected);
          if (
            events.some(
              (e) => e.type === "run_finished" && isPlainObject(e.data) && "toParent" in e.data,
            )
          )
            handed = true;
          return stored;
        };
        return append;
      }
      if (prop === "appendLeased" && target.appendLeased) {
        // A run's appends on a store that has it (PostgreSQL) come this way: the same death.
        const appendLeased: NonNullable<StateStore["appendLeased"]> = async (
          threadId,
          branchId,
          events,
          expected,
          lease,
        ) => {
          if (handed && threadId === parent) throw new Error("the process died");
          const res = await target.appendLeased!(threadId, branchId, events, expected, lease);
          if (
            events.some(
              (e) => e.type === "run_finished" && isPlainObject(e.data) && "toParent" in e.data,
            )
          )
            handed = true;
          return res;
        };
        return appendLeased;
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

const Desk = defineState({ topic: z.string().default("") });

/** How many times the child's triage node handed off (module-wide: graphs are made anew per call). */
let handoffs = 0;

function makeCrashParent(
  store: StateStore,
  childThread: "fresh" | "stable",
  ask: boolean,
): Graph<typeof State> {
  const triage = node(
    (_s: typeof Desk.State, ctx) => {
      const who = ask ? String(ctx.interrupt("who takes it?", { key: "who" })) : "billing";
      handoffs++;
      return new Command({
        graph: Command.PARENT,
        update: { owner: who, log: [`handoff:${who}`] },
        goto: who,
      });
    },
    { name: "triage" },
  );
  const never = node(() => ({ topic: "never" }), { name: "never" });
  const desk = new Graph(Desk, { name: "desk" }).flow(
    START.to(triage),
    triage.to(never),
    never.to(END),
  );
  const sub = subgraph("desk", desk, {
    stateIn: () => ({ topic: "refund" }),
    stateOut: () => ({ log: ["desk returned"] }),
    childThread,
  });
  const mark = (name: string) => node((s: S) => ({ log: [`${name}:${s.owner}`] }), { name });
  const [billing, support] = [mark("billing"), mark("support")];
  return new Graph(State, { name: "front", stateStore: store }).flow(
    START.to(sub),
    sub.to(support),
    support.to(END),
    billing.to(END),
  );
}

describeStores("Command.PARENT across a crash after the child's hand-off", (fx) => {
  for (const childThread of ["fresh", "stable"] as const) {
    for (const ask of [true, false]) {
      it(`the parent applies the stored command once (${childThread} child, ${ask ? "paused first" : "no pause"})`, async () => {
        handoffs = 0;
        const store = await fx.open();
        let resume: Record<string, string> | undefined;
        if (ask) {
          const first = await makeCrashParent(store, childThread, ask).invoke(
            {},
            { threadId: "t" },
          );
          expect([first.status, first.interrupts.map((i) => i.key)]).toEqual([
            "interrupted",
            ["0:0/who"],
          ]);
          resume = { "0:0/who": "billing" };
        }
        const dying = dyingAfterHandoff(await fx.reopen(store), "t");
        const g = makeCrashParent(dying, childThread, ask);
        const died = await caught(() =>
          ask ? g.invoke(null, { threadId: "t", resume }) : g.invoke({}, { threadId: "t" }),
        );
        expect(died.message).toBe("the process died");
        expect(handoffs).toBe(1);
        // The parent's log has no result of the desk task: only the child's log holds the command.
        const before = await store.read("t", "main");
        expect(before.some((e) => e.type === "step_committed" || e.type === "task_finished")).toBe(
          false,
        );

        // A new process: new graph objects on a reopened store continue the parent.
        const done = await makeCrashParent(await fx.reopen(store), childThread, ask).invoke(null, {
          threadId: "t",
        });
        expect([done.status, done.state]).toEqual([
          "completed",
          { log: ["handoff:billing", "billing:billing"], owner: "billing" },
        ]);
        expect(handoffs).toBe(1);
        const kids = (await store.listThreads())
          .map((t) => t.threadId)
          .filter((id) => id.startsWith("t:desk"));
        expect(kids).toHaveLength(1);
        const handedOff = (await store.read(kids[0]!, "main"))
          .filter((e) => e.type === "run_finished" && isPlainObject(e.data) && "toParent" in e.data)
          .map((e) => e.data);
        expect(handedOff).toEqual([
          {
            status: "completed",
            toParent: "triage",
            command: { update: { owner: "billing", log: ["handoff:billing"] }, goto: "billing" },
            parentTask: JSON.stringify(["t", "main", "0:0"]),
          },
        ]);
        const again = await makeCrashParent(await fx.reopen(store), childThread, ask).getState("t");
        expect([again.status, again.next, again.state]).toEqual(["completed", [], done.state]);
      });
    }
  }
});
