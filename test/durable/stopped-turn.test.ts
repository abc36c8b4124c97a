/**
 * After a stopped tool turn (agents-and-tools.md): a tool fails with toolErrors "raise", so
 * the thread holds an AIMessage whose calls have no results. New input is refused
 * (PendingToolCallsError, nothing written); `invoke(null, { threadId })` runs the unfinished tool step;
 * a fork at the event before the model's request takes new input; `repairHistory: true` is
 * the opt-in alternative. On every store.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import {
  AgentState,
  buildReactAgent,
  modelNode,
  runAgent,
  toolRunner,
} from "../../src/agents/index.js";
import { ScriptedChat, ToolMessage } from "../../src/chat/index.js";
import type { Chat } from "../../src/chat/types.js";
import {
  ChatHistoryError,
  PendingToolCallsError,
  ToolExecutionError,
} from "../../src/errors/index.js";
import { Graph, START } from "../../src/graph/index.js";
import { END, when } from "../../src/graph/routing.js";
import type { StateStore } from "../../src/stores/types.js";
import { tool } from "../../src/tools/index.js";
import { expectError } from "../helpers.js";
import { describeStores } from "./stores.js";

const noIds = (ms: readonly object[]) => ms.map((m) => ({ ...m, id: null }));

function setup() {
  const runs: string[] = [];
  const flags = { broken: true };
  const charge = tool(
    (args) => {
      runs.push(`charge ${args.orderId}`);
      if (flags.broken) throw new Error("payment service down");
      return "charged";
    },
    { name: "charge", description: "Charge an order.", input: z.object({ orderId: z.string() }) },
  );
  const lookup = tool(
    (args) => {
      runs.push(`lookup ${args.orderId}`);
      return "shipped";
    },
    { name: "lookup", description: "Look up an order.", input: z.object({ orderId: z.string() }) },
  );
  return { runs, flags, tools: [lookup, charge] };
}

const TURN = {
  toolCalls: [
    { id: "c1", name: "lookup", arguments: { orderId: "A-1" } },
    { id: "c2", name: "charge", arguments: { orderId: "A-1" } },
  ],
};

/** An agent with the first run done ("hi" → "Hello.") and the second stopped in its tool step. */
async function stopped(store: StateStore, later: readonly (string | object)[]) {
  const s = setup();
  const chat = new ScriptedChat(["Hello.", TURN, ...(later as string[])]);
  const agent = buildReactAgent(chat, { tools: s.tools, stateStore: store });
  expect(await runAgent(agent, "hi", { threadId: "t" })).toBe("Hello.");
  await expectError(
    () => runAgent(agent, "charge A-1", { threadId: "t" }),
    ToolExecutionError,
    'Tool "charge" failed on call "c2": Error: payment service down',
  );
  expect(s.runs).toEqual(["lookup A-1", "charge A-1"]);
  return { ...s, chat, agent };
}

describeStores("a stopped tool turn", (fx) => {
  it("leaves an AIMessage with unanswered calls and the tool step to run", async () => {
    const { agent } = await stopped(await fx.open(), []);
    const snap = await agent.getState("t");
    expect(snap.status).toBe("failed");
    expect(snap.next).toEqual(["act"]);
    expect(snap.state.messages.map((m) => m.type)).toEqual(["human", "ai", "human", "ai"]);
    expect(snap.state.messages.at(-1)).toMatchObject({
      type: "ai",
      toolCalls: TURN.toolCalls.map((c) => ({ ...c, argumentsError: null })),
    });
    expect(snap.state.toolCalls.map((c) => c.id)).toEqual(["c1", "c2"]);
  });

  it("new input is refused before anything is written, without calling the model", async () => {
    const { agent, chat } = await stopped(await fx.open(), ["never sent"]);
    const before = await agent.history("t");
    const e = await expectError(
      () => runAgent(agent, "what about A-2?", { threadId: "t" }),
      PendingToolCallsError,
      'Thread "t" of graph "agent" cannot take new input: tool calls "c1", "c2" of the AIMessage at index 3 have no result. Continue the tool step with invoke(null, { threadId: "t" }), or fork the thread at event "t/main/4" (before the model\'s request) and send the input on the branch. Nothing was written',
    );
    expect(e).toBeInstanceOf(ChatHistoryError);
    expect([e.index, e.callIds, e.interruptKeys]).toEqual([3, ["c1", "c2"], []]);
    expect(await agent.history("t")).toEqual(before);
    expect(chat.requests).toHaveLength(2);
    expect(chat.remaining).toBe(1);
  });

  it("invoke(null, { threadId }) runs the unfinished tool step, without the calls that finished, and goes on", async () => {
    const { agent, chat, runs, flags } = await stopped(await fx.open(), ["Charged A-1."]);
    flags.broken = false;
    const done = await agent.invoke(null, { threadId: "t" });
    expect(done.status).toBe("completed");
    expect(done.state.finalText).toBe("Charged A-1.");
    // lookup finished before the failure (its result was saved): it does not run again.
    expect(runs).toEqual(["lookup A-1", "charge A-1", "charge A-1"]);
    expect(noIds(chat.requests.at(-1)!.messages.slice(2))).toEqual([
      { type: "human", id: null, content: "charge A-1" },
      {
        type: "ai",
        id: null,
        content: null,
        refusal: null,
        toolCalls: TURN.toolCalls.map((c) => ({ ...c, argumentsError: null })),
        reasoning: [],
        finishReason: "tool_calls",
        usage: {},
      },
      ToolMessage({ content: '{"result":"shipped"}', toolCallId: "c1", name: "lookup" }),
      ToolMessage({ content: '{"result":"charged"}', toolCallId: "c2", name: "charge" }),
    ]);
    const snap = await agent.getState("t");
    expect(snap.status).toBe("completed");
    expect(snap.next).toEqual([]);
    expect(snap.state.messages.map((m) => m.type)).toEqual([
      "human",
      "ai",
      "human",
      "ai",
      "tool",
      "tool",
      "ai",
    ]);
  });

  it("a fork at the event before the model's request takes new input; the main branch is kept", async () => {
    const { agent, chat } = await stopped(await fx.open(), ["A-2 has shipped."]);
    const events = await agent.history("t");
    // The model's request of the stopped turn: the think task of the second run.
    const secondRun = events.filter((e) => e.type === "run_started")[1]!.runId;
    // The think task's result is written inside its superstep's commit: the event before the
    // model's request is the run's start.
    const before = events.find((e) => e.runId === secondRun && e.type === "run_started")!;
    expect(events[events.indexOf(before) + 1]!.type).toBe("step_committed");
    const branch = await agent.fork("t", { eventId: before.id });
    expect(branch.parent).toEqual({ branchId: "main", seq: before.seq });
    const forked = await agent.getState("t", { branchId: branch.branchId });
    expect(forked.state.messages.map((m) => m.content)).toEqual(["hi", "Hello.", "charge A-1"]);

    const answer = await runAgent(agent, "what about A-2?", {
      threadId: "t",
      branchId: branch.branchId,
    });
    expect(answer).toBe("A-2 has shipped.");
    expect(noIds(chat.requests.at(-1)!.messages)).toEqual([
      { type: "human", id: null, content: "hi" },
      {
        type: "ai",
        id: null,
        content: "Hello.",
        refusal: null,
        toolCalls: [],
        reasoning: [],
        finishReason: "stop",
        usage: {},
      },
      { type: "human", id: null, content: "charge A-1" },
      { type: "human", id: null, content: "what about A-2?" },
    ]);
    const main = await agent.getState("t");
    expect(main.status).toBe("failed");
    expect(main.state.messages).toHaveLength(4);
  });

  it("repairHistory: true sends a repaired copy and leaves the state as it is", async () => {
    const s = setup();
    const chat = new ScriptedChat([TURN, "Sorry, the payment failed."]);
    const graph = agentWithRepair(chat, s.tools, await fx.open());
    await expectError(
      () =>
        graph.invoke(
          { messages: [{ type: "human", id: null, content: "charge A-1" }] },
          { threadId: "r" },
        ),
      ToolExecutionError,
      'Tool "charge" failed on call "c2": Error: payment service down',
    );
    const r = await graph.invoke(
      { messages: [{ type: "human", id: null, content: "what happened?" }] },
      { threadId: "r" },
    );
    expect(r.state.finalText).toBe("Sorry, the payment failed.");
    expect(noIds(chat.requests.at(-1)!.messages.slice(1))).toEqual([
      {
        type: "ai",
        id: null,
        content: null,
        refusal: null,
        toolCalls: TURN.toolCalls.map((c) => ({ ...c, argumentsError: null })),
        reasoning: [],
        finishReason: "tool_calls",
        usage: {},
      },
      ToolMessage({ content: "Tool call was not executed.", toolCallId: "c1", name: "lookup" }),
      ToolMessage({ content: "Tool call was not executed.", toolCallId: "c2", name: "charge" }),
      { type: "human", id: null, content: "what happened?" },
    ]);
    // The stored history is not changed by the repair.
    const snap = await graph.getState("r");
    expect(snap.state.messages.map((m) => m.type)).toEqual(["human", "ai", "human", "ai"]);
  });
});

/** buildReactAgent's graph, with repairHistory on the model node. */
function agentWithRepair(chat: Chat, tools: ReturnType<typeof setup>["tools"], store: StateStore) {
  const think = modelNode<AgentState>("think", { chat, tools, repairHistory: true });
  const act = toolRunner<AgentState>("act", { tools });
  return new Graph(AgentState, { name: "agent", stateStore: store }).flow(
    START.to(think),
    think.to(when((s: AgentState) => s.toolCalls.length > 0, act, { otherwise: END })),
    act.to(think),
  );
}
