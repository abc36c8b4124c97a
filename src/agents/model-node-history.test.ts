import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AIMessage, type Chat, HumanMessage, ScriptedChat, ToolMessage } from "../chat/index.js";
import { ChatHistoryError } from "../errors/index.js";
import { AgentState } from "./agent-state.js";
import { ask, lookup, oneNode, seen, single, stock } from "./model-node.fixture.js";
import { modelNode } from "./model-node.js";

describe("modelNode: consistent history", () => {
  const call = (id: string) => ({ id, name: "lookup_order", arguments: {}, argumentsError: null });

  it("raises ChatHistoryError for a tool call without a result right after it", async () => {
    const chat = new ScriptedChat(["never"]);
    const graph = oneNode(AgentState, modelNode("think", { chat }));
    const messages = [
      HumanMessage({ content: "a" }),
      AIMessage({ toolCalls: [call("call_1"), call("call_2")] }),
      ToolMessage({ content: "1", toolCallId: "call_1" }),
      HumanMessage({ content: "b" }),
    ];
    const error = await graph.invoke({ messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatHistoryError);
    expect((error as ChatHistoryError).message).toBe(
      'Node "think" of graph "g" cannot call the model: tool call "call_2" of the AIMessage at index 1 has no result right after it (the message at index 3 is a human message). Every tool call must be answered by a tool message right after it. Continue a stopped tool turn with invoke(null, { threadId }), fork the thread, or set repairHistory: true',
    );
    expect((error as ChatHistoryError).index).toBe(1);
    expect((error as ChatHistoryError).node).toBe("think");
    expect(chat.requests).toHaveLength(0);
  });

  it("raises ChatHistoryError when the history ends with unanswered calls", async () => {
    const graph = oneNode(AgentState, modelNode("think", { chat: new ScriptedChat(["x"]) }));
    const messages = [HumanMessage({ content: "a" }), AIMessage({ toolCalls: [call("c9")] })];
    await expect(graph.invoke({ messages })).rejects.toThrow(
      'tool call "c9" of the AIMessage at index 1 has no result right after it (the history ends there)',
    );
  });

  it("raises ChatHistoryError for a tool result that answers no call", async () => {
    const graph = oneNode(AgentState, modelNode("think", { chat: new ScriptedChat(["x"]) }));
    const messages = [
      HumanMessage({ content: "a" }),
      AIMessage({ toolCalls: [call("call_1")] }),
      ToolMessage({ content: "1", toolCallId: "call_1" }),
      ToolMessage({ content: "2", toolCallId: "call_7" }),
    ];
    const error = (await graph.invoke({ messages }).catch((e: unknown) => e)) as ChatHistoryError;
    expect(error).toBeInstanceOf(ChatHistoryError);
    expect(error.message).toContain(
      'cannot call the model: the tool result at index 3 (call "call_7") answers no call of the AIMessage before it.',
    );
    expect(error.index).toBe(3);
  });

  it("with repairHistory sends a repaired copy and leaves the state unchanged", async () => {
    const chat = new ScriptedChat(["fine"]);
    const graph = oneNode(AgentState, modelNode("think", { chat, repairHistory: true }), {
      name: "graph",
    });
    const messages = [
      HumanMessage({ content: "a", id: "m0" }),
      ToolMessage({ content: "orphan", toolCallId: "zz", id: "m1" }),
      AIMessage({ toolCalls: [call("call_1"), call("call_2")], id: "m2" }),
      ToolMessage({ content: "one", toolCallId: "call_1", id: "m3" }),
      HumanMessage({ content: "b", id: "m4" }),
    ];
    const { state } = await graph.invoke({ messages });
    expect(seen(chat.requests[0]!)).toEqual([
      { type: "human", content: "a" },
      { type: "ai", content: null },
      { type: "tool", content: "one" },
      { type: "tool", content: "Tool call was not executed." },
      { type: "human", content: "b" },
    ]);
    const filled = chat.requests[0]!.messages[3] as ToolMessage;
    expect([filled.toolCallId, filled.name]).toEqual(["call_2", "lookup_order"]);
    expect(state.messages.slice(0, 5)).toEqual(messages);
    expect(state.messages[5]).toMatchObject({ type: "ai", content: "fine" });
  });
});

describe("modelNode: the request", () => {
  it("sends the system prompt first, the tools' definitions, the tool choice and the output schema", async () => {
    const chat = new ScriptedChat(['{"title":"t","priority":2}']);
    const Ticket = z.object({ title: z.string(), priority: z.number() }).meta({ title: "Ticket" });
    const think = modelNode("think", {
      chat,
      systemPrompt: "Be brief.",
      tools: [lookup, stock],
      toolChoice: "required",
      outputSchema: Ticket,
    });
    await single(think).invoke(ask("help"));
    const request = chat.requests[0]!;
    expect(seen(request)).toEqual([
      { type: "system", content: "Be brief." },
      { type: "human", content: "help" },
    ]);
    expect(request.tools).toEqual([lookup.definition(), stock.definition()]);
    expect(request.toolChoice).toBe("required");
    expect(request.outputSchema).toEqual({
      type: "object",
      properties: { title: { type: "string" }, priority: { type: "number" } },
      required: ["title", "priority"],
      additionalProperties: false,
      title: "Ticket",
    });
  });

  it("sends a tool name as tool choice, and null and no tools by default", async () => {
    const named = new ScriptedChat(["x"]);
    await single(
      modelNode("think", { chat: named, tools: [lookup], toolChoice: "lookup_order" }),
    ).invoke(ask("q"));
    expect(named.requests[0]!.toolChoice).toBe("lookup_order");
    const plain = new ScriptedChat(["x"]);
    await single(modelNode("think", { chat: plain })).invoke(ask("q"));
    expect(plain.requests[0]).toMatchObject({ tools: [], toolChoice: null, outputSchema: null });
    expect(seen(plain.requests[0]!)).toEqual([{ type: "human", content: "q" }]);
  });

  it("sends its reasoning option in the request, and none by default", async () => {
    const chat = new ScriptedChat(["x"]);
    await single(modelNode("think", { chat, reasoning: { budgetTokens: 2048 } })).invoke(ask("q"));
    expect(chat.requests[0]!.reasoning).toEqual({ budgetTokens: 2048 });
    const effort = new ScriptedChat(["x"]);
    await single(modelNode("think", { chat: effort, reasoning: { effort: "low" } })).invoke(
      ask("q"),
    );
    expect(effort.requests[0]!.reasoning).toEqual({ effort: "low" });
    const plain = new ScriptedChat(["x"]);
    await single(modelNode("think", { chat: plain, reasoning: null })).invoke(ask("q"));
    expect("reasoning" in plain.requests[0]!).toBe(false);
  });

  it("passes the run's signal to the model call", async () => {
    const signals: unknown[] = [];
    const chat: Chat = {
      model: "m",
      async complete(_request, options) {
        signals.push(options?.signal);
        return { content: "ok" };
      },
      async *stream() {},
    };
    await single(modelNode("think", { chat })).invoke(ask("q"));
    expect(signals).toHaveLength(1);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
  });
});
