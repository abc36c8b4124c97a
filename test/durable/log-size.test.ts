/**
 * What a ReAct run writes to its thread's log (issue 8: "history costs only what changed"):
 * each superstep is one event holding the next tasks and the task's update, each message is
 * stored without its default-valued keys, the tool calls an AIMessage already holds are not
 * stored a second time, and the whole log stays within 1.5× the JSON of the final message list.
 * A reader in another process folds it back to the same state, key for key.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { AgentState, buildReactAgent } from "../../src/agents/index.js";
import type { ChatResponseInit } from "../../src/chat/index.js";
import { HumanMessage, ScriptedChat } from "../../src/chat/index.js";
import { Graph } from "../../src/graph/index.js";
import { tool } from "../../src/tools/index.js";
import { describeStores } from "./stores.js";

const lookup = tool(({ q }) => `found ${q}`, {
  name: "lookup",
  description: "Look up an item by name.",
  input: z.object({ q: z.string() }),
  output: z.string(),
});

function script(k: number): ChatResponseInit[] {
  const out: ChatResponseInit[] = [];
  for (let n = 1; n < k; n++) {
    out.push({ toolCalls: [{ id: `call_${n}`, name: "lookup", arguments: { q: `item ${n}` } }] });
  }
  out.push({ content: `Done after ${k} turns.` });
  return out;
}

describeStores("the log of a ReAct run", (fx) => {
  it("holds one event per superstep, each message once and compact", async () => {
    const store = await fx.open();
    const agent = buildReactAgent(new ScriptedChat(script(2)), {
      tools: [lookup],
      stateStore: store,
    });
    const question = HumanMessage({ id: "q", content: "Look it up." });
    await agent.invoke({ messages: [question] }, { threadId: "t" });
    const events = await store.read("t", "main");
    expect(events.map((e) => e.type)).toEqual([
      "run_started",
      "step_committed",
      "step_committed",
      "step_committed",
      "run_finished",
    ]);
    const [started, think, act, answer, finished] = events.map((e) => e.data);
    expect(started).toEqual({
      // The state a new thread starts from, then its input and the start tasks.
      init: { messages: [], toolCalls: [], finalText: null, finalOutput: null },
      input: { messages: [{ type: "human", id: "q", content: "Look it up." }] },
      tasks: ["think"],
    });
    const aiId = (think as { update: { messages: { id: string }[] } }).update.messages[0]!.id;
    expect(think).toEqual({
      next: ["act"],
      update: {
        messages: [
          {
            type: "ai",
            id: aiId,
            toolCalls: [{ id: "call_1", name: "lookup", arguments: { q: "item 1" } }],
            finishReason: "tool_calls",
          },
        ],
      },
      // toolCalls repeats messages[0].toolCalls; finalText stays null, so it is not written.
      same: { toolCalls: ["messages", 0] },
    });
    const toolId = (act as { update: { messages: { id: string }[] } }).update.messages[0]!.id;
    expect(act).toEqual({
      next: ["think"],
      update: {
        messages: [
          {
            type: "tool",
            id: toolId,
            content: '{"result":"found item 1"}',
            name: "lookup",
            toolCallId: "call_1",
          },
        ],
        toolCalls: [],
      },
    });
    // A short answer is written as it is in finalText too.
    expect((answer as { next: unknown; update: { finalText: string } }).update.finalText).toBe(
      "Done after 2 turns.",
    );
    expect(finished).toEqual({ status: "completed" });
  });

  it("stores a long answer once: finalText is where the AIMessage's content is", async () => {
    const store = await fx.open();
    const text = "The blue mug is in stock: 14 left in the Lyon warehouse, shipping in 2 days.";
    const agent = buildReactAgent(new ScriptedChat([text]), { tools: [lookup], stateStore: store });
    const live = await agent.invoke(
      { messages: [HumanMessage({ id: "q", content: "Is the blue mug in stock?" })] },
      { threadId: "t" },
    );
    const answer = (await store.read("t", "main"))[1]!.data as {
      update: { messages: { id: string }[] };
    };
    expect(answer).toEqual({
      next: [],
      update: {
        messages: [
          { type: "ai", id: answer.update.messages[0]!.id, content: text, finishReason: "stop" },
        ],
      },
      same: { finalText: ["messages", 0, "content"] },
    });
    const reader = new Graph(AgentState, { stateStore: await fx.reopen(store) });
    const folded = await reader.getState("t");
    expect(folded.state.finalText).toBe(text);
    expect(JSON.stringify(folded.state)).toBe(JSON.stringify(live.state));
  });

  it("stays within 1.5× the final messages' JSON over 100 turns, and folds back key for key", async () => {
    const store = await fx.open();
    const k = 100;
    const agent = buildReactAgent(new ScriptedChat(script(k)), {
      tools: [lookup],
      stateStore: store,
      maxSteps: 2 * k + 10,
      maxToolCalls: k + 10,
    });
    const live = await agent.invoke(
      { messages: [HumanMessage({ content: "Look up every item, then say you are done." })] },
      { threadId: "t" },
    );
    expect(live.state.messages).toHaveLength(2 * k);
    const messagesJson = Buffer.byteLength(JSON.stringify(live.state.messages));
    const stored = await store.sizeBytes();
    expect(stored / messagesJson).toBeLessThanOrEqual(1.5);

    // Another process: a new graph over a second handle on the same data, no cache.
    const other = await fx.reopen(store);
    const reader = new Graph(AgentState, { stateStore: other });
    const folded = await reader.getState("t");
    expect(JSON.stringify(folded.state)).toBe(JSON.stringify(live.state));
  });
});
