/**
 * Events are immutable once made: what a task returned is stored (and run on) as it was when
 * the task ended, on every store, whatever the node does to its objects afterwards — behind
 * an append still in flight (PostgreSQL's latency), or held for the superstep's commit.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { AIMessage } from "../../src/chat/messages.js";
import { Graph, node, START, when } from "../../src/graph/index.js";
import { END } from "../../src/graph/routing.js";
import { defineState, messagesField } from "../../src/state/index.js";
import { describeStores } from "./stores.js";

const State = defineState({
  fast: z.any().optional(),
  late: z.any().optional(),
});

const tick = () => new Promise<void>((r) => setImmediate(r));

describeStores("events are immutable once made", (fx) => {
  it("stores a task's update as it returned it, though an append is still in flight", async () => {
    const store = await fx.open();
    const fast = node(() => ({ fast: { n: 1 } }), { name: "fast" });
    const late = node(
      async () => {
        await Promise.resolve();
        const obj = { list: ["returned"] };
        // Changed after the node returned, while the sibling's pending write is being stored.
        setImmediate(() => obj.list.push("changed later"));
        return { late: obj };
      },
      { name: "late" },
    );
    const wait = node(
      async () => {
        for (let i = 0; i < 20; i++) await tick();
        return {};
      },
      { name: "wait" },
    );
    const make = (s = store) =>
      new Graph(State, { stateStore: s }).flow(
        START.to([fast, late]),
        fast.to(wait),
        late.to(wait),
        wait.to(END),
      );
    const { state } = await make().invoke({}, { threadId: "t" });
    const expected = { fast: { n: 1 }, late: { list: ["returned"] } };
    expect(state).toEqual(expected);
    const cold = make(await fx.reopen(store));
    expect((await cold.getState("t")).state).toEqual(expected);
  });

  it("stores a single task's update as it returned it, though its commit waits on a condition", async () => {
    const store = await fx.open();
    const one = node(
      () => {
        const obj = { list: ["returned"] };
        setImmediate(() => obj.list.push("changed later"));
        return { late: obj };
      },
      { name: "one" },
    );
    const route = when(async () => {
      for (let i = 0; i < 5; i++) await tick();
      return true;
    }, END);
    const make = (s = store) =>
      new Graph(State, { stateStore: s }).flow(START.to(one), one.to(route));
    const { state } = await make().invoke({}, { threadId: "t" });
    expect(state).toEqual({ late: { list: ["returned"] } });
    const cold = make(await fx.reopen(store));
    expect((await cold.getState("t")).state).toEqual({ late: { list: ["returned"] } });
  });

  it("stores plain messages as a node returned them, though it changes them afterwards", async () => {
    const store = await fx.open();
    const Chat = defineState({ messages: messagesField(), n: z.number().default(0) });
    const call = { id: "c1", name: "t", arguments: { q: "x" }, argumentsError: null };
    const ai = AIMessage({ id: "a1", content: "said", toolCalls: [call] });
    const say = node(
      () => {
        setImmediate(() => {
          ai.content = "changed later";
          call.arguments.q = "changed later";
          ai.toolCalls.push({ id: "c2", name: "t", arguments: {}, argumentsError: null });
        });
        return { messages: [ai], n: 1 };
      },
      { name: "say" },
    );
    const route = when(async () => {
      for (let i = 0; i < 5; i++) await tick();
      return true;
    }, END);
    const make = (s = store) =>
      new Graph(Chat, { stateStore: s }).flow(START.to(say), say.to(route));
    const said = { ...call, arguments: { q: "x" } };
    const expected = {
      messages: [AIMessage({ id: "a1", content: "said", toolCalls: [said] })],
      n: 1,
    };
    const { state } = await make().invoke({}, { threadId: "t" });
    expect(state).toEqual(expected);
    const cold = make(await fx.reopen(store));
    expect((await cold.getState("t")).state).toEqual(expected);
  });
});
