import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../../agents/react-agent.js";
import { ScriptedChat } from "../../chat/scripted-chat.js";
import { MemoryStateStore } from "../../stores/memory-state-store.js";
import { tool } from "../../tools/tool.js";
import { toUIMessageChunks, toUIMessages, UI_STREAM_MODES, uiStreamResponse } from "./index.js";
import { clientRead, userMessage } from "./ui-stream.fixture.js";

describe("the other chunk kinds", () => {
  it("custom events without a type are data-custom; a question that is not an approval is data-interrupt, finish other", async () => {
    const { defineState, Graph, node, START, END } = await import("../../index.js");
    const State = defineState({ answer: z.string().default("") });
    const ask = node(
      (_s: typeof State.State, ctx) => {
        ctx.emit("thinking");
        ctx.emit({ type: "progress", id: 7, done: 1 });
        return { answer: String(ctx.interrupt("Which order?")) };
      },
      { name: "ask" },
    );
    const graph = new Graph(State, { stateStore: new MemoryStateStore() }).flow(
      START.to(ask),
      ask.to(END),
    );
    const chunks = [];
    for await (const c of toUIMessageChunks(
      graph.stream({}, { threadId: "q", modes: UI_STREAM_MODES }),
    )) {
      chunks.push(c);
    }
    expect(chunks).toEqual([
      { type: "start" },
      { type: "data-custom", data: "thinking" },
      { type: "data-progress", data: { id: 7, done: 1 } },
      { type: "data-interrupt", id: "0:0#0", data: { key: "0:0#0", value: "Which order?" } },
      {
        type: "finish",
        finishReason: "other",
        messageMetadata: { status: "interrupted", usage: {} },
      },
    ]);
  });

  it("a tool error is output-error; arguments that do not parse are tool-input-error", async () => {
    const chat = new ScriptedChat([
      {
        toolCalls: [
          { id: "c1", name: "boom", arguments: {} },
          { id: "c2", name: "boom", arguments: {}, argumentsError: "Unexpected end of JSON input" },
        ],
      },
      "Sorry.",
    ]);
    const boom = tool(
      () => {
        throw new Error("out of stock");
      },
      { name: "boom", description: "Fails." },
    );
    const agent = buildReactAgent(chat, {
      tools: [boom],
      toolErrors: "return",
      stateStore: new MemoryStateStore(),
    });
    const { message } = await clientRead(
      uiStreamResponse(
        agent.stream(
          { messages: [{ type: "human", id: "u1", content: "go" }] },
          {
            threadId: "b",
            modes: UI_STREAM_MODES,
          },
        ),
        { messageId: "a1" },
      ),
      [userMessage],
    );
    const state = await agent.getState("b");
    const c2Text = (state.state.messages[3] as { content: string }).content;
    expect(message.parts).toEqual([
      { type: "step-start" },
      {
        type: "tool-boom",
        toolCallId: "c1",
        state: "output-error",
        input: {},
        errorText: "Tool error: Error: out of stock",
      },
      {
        type: "tool-boom",
        toolCallId: "c2",
        state: "output-error",
        input: {},
        errorText: c2Text,
      },
      { type: "step-start" },
      { type: "text", text: "Sorry.", state: "done" },
    ]);
    expect(c2Text).toBe(
      'Tool error: ToolExecutionError: Invalid arguments for tool "boom": Unexpected end of JSON input (call "c2")',
    );
    expect(toUIMessages(state.state.messages)[1]?.parts).toEqual([
      { type: "step-start" },
      {
        type: "tool-boom",
        toolCallId: "c1",
        state: "output-error",
        input: {},
        errorText: "Tool error: Error: out of stock",
      },
      { type: "tool-boom", toolCallId: "c2", state: "output-error", input: {}, errorText: c2Text },
      { type: "step-start" },
      { type: "text", text: "Sorry.", state: "done" },
    ]);
  });
});

describe("the chunks while arguments stream", () => {
  it("sends tool-input-start once the call has an id and a name, with the buffered argument text", async () => {
    async function* events() {
      const base = { node: "think", step: 0, taskId: "0:0" };
      yield {
        ...base,
        mode: "tokens" as const,
        data: { toolCallDelta: { index: 0, arguments: '{"a"' } },
      };
      yield {
        ...base,
        mode: "tokens" as const,
        data: { toolCallDelta: { index: 0, id: "c9", name: "t" } },
      };
      yield {
        ...base,
        mode: "tokens" as const,
        data: { toolCallDelta: { index: 0, arguments: ":1}" } },
      };
    }
    const chunks = [];
    for await (const c of toUIMessageChunks(events())) chunks.push(c);
    expect(chunks).toEqual([
      { type: "start" },
      { type: "start-step" },
      { type: "tool-input-start", toolCallId: "c9", toolName: "t" },
      { type: "tool-input-delta", toolCallId: "c9", inputTextDelta: '{"a"' },
      { type: "tool-input-delta", toolCallId: "c9", inputTextDelta: ":1}" },
      { type: "finish-step" },
      { type: "finish", finishReason: "stop", messageMetadata: { status: "done", usage: {} } },
    ]);
  });
});
