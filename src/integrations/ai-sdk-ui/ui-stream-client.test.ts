import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UIMessage as AiUIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { ScriptedChat } from "../../chat/scripted-chat.js";
import { MemoryStateStore } from "../../stores/memory-state-store.js";
import { SqliteStateStore } from "../sqlite/index.js";
import {
  toUIMessageChunks,
  toUIMessages,
  UI_STREAM_MODES,
  uiChatTurn,
  uiStreamResponse,
} from "./index.js";
import {
  agentOn,
  answer,
  clientRead,
  dirs,
  pausedParts,
  script,
  streamed,
  usage,
  userMessage,
} from "./ui-stream.fixture.js";

describe("the UI message stream, read by the ai package's client", () => {
  it("streams reasoning, text and a tool call, pauses for approval, and continues cold after the answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ui-stream-"));
    dirs.push(dir);
    const path = join(dir, "t.db");
    const chat = script();

    // 1. The user's message: the run pauses before the refund.
    let store = new SqliteStateStore({ path });
    let turn = uiChatTurn({ id: "t-1", messages: [userMessage], trigger: "submit-message" });
    expect(turn).toEqual({
      threadId: "t-1",
      input: { messages: [{ type: "human", id: "u1", content: "Refund A-1" }] },
      resume: undefined,
      messageId: null,
    });
    let agent = agentOn(store, chat);
    const first = uiStreamResponse(
      agent.stream(turn.input, { threadId: "t-1", modes: UI_STREAM_MODES }),
      { messageId: "a1" },
    );
    expect(first.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(first.headers.get("content-type")).toBe("text/event-stream");
    const paused = await clientRead(first, [userMessage]);
    expect(paused.errors).toEqual([]);
    expect(paused.body).toEqual({
      id: "t-1",
      messages: [userMessage],
      trigger: "submit-message",
    });
    expect(paused.message).toEqual({
      id: "a1",
      role: "assistant",
      metadata: { status: "interrupted", usage },
      parts: streamed(pausedParts),
    });
    // A reloaded page shows the same (the id is the stored AI message's).
    const state = await agent.getState("t-1");
    const reloaded = toUIMessages(state.state.messages, { interrupts: state.interrupts });
    expect(reloaded).toEqual([
      { id: "u1", role: "user", parts: [{ type: "text", text: "Refund A-1" }] },
      { id: state.state.messages[1]?.id, role: "assistant", parts: pausedParts },
    ]);
    await store.close();

    // 2. The person approves (what addToolApprovalResponse does to the part); new store, new graph.
    const answered: AiUIMessage = {
      ...paused.message,
      parts: paused.message.parts.map((p) =>
        p.type === "tool-refund" ? answer(p, { approved: true, reason: undefined }) : p,
      ),
    };
    turn = uiChatTurn({ id: "t-1", messages: [userMessage, answered], trigger: "submit-message" });
    expect(turn).toEqual({
      threadId: "t-1",
      input: null,
      resume: { "1:0#c1": { approved: true } },
      messageId: "a1",
    });
    store = new SqliteStateStore({ path });
    agent = agentOn(store, chat);
    const second = uiStreamResponse(
      agent.stream(turn.input, { threadId: "t-1", resume: turn.resume, modes: UI_STREAM_MODES }),
      { messageId: turn.messageId },
    );
    const done = await clientRead(second, [userMessage, answered], answered);
    expect(done.errors).toEqual([]);
    expect(done.message).toEqual({
      id: "a1",
      role: "assistant",
      metadata: { status: "done", usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25 } },
      parts: [
        ...streamed(pausedParts.slice(0, 3)),
        {
          type: "tool-refund",
          toolCallId: "c1",
          state: "output-available",
          input: { orderId: "A-1", amount: 20 },
          output: "refunded 20 EUR on A-1",
          approval: { id: "1:0#c1", requestReason: "Refund 20 EUR on A-1?", approved: true },
        },
        { type: "data-progress", id: "refund", data: { step: "paying" } },
        { type: "step-start" },
        { type: "text", text: "Refunded 20 EUR.", state: "done" },
      ],
    });
    const after = await agent.getState("t-1");
    expect(toUIMessages(after.state.messages)).toEqual([
      { id: "u1", role: "user", parts: [{ type: "text", text: "Refund A-1" }] },
      {
        id: after.state.messages[1]?.id,
        role: "assistant",
        parts: [
          ...pausedParts.slice(0, 3),
          {
            type: "tool-refund",
            toolCallId: "c1",
            state: "output-available",
            input: { orderId: "A-1", amount: 20 },
            output: "refunded 20 EUR on A-1",
          },
          { type: "step-start" },
          { type: "text", text: "Refunded 20 EUR.", state: "done" },
        ],
      },
    ]);
    await store.close();
  });

  it("sends the exact chunks: deltas while streaming, tool input deltas, approval, finish", async () => {
    const agent = agentOn(new MemoryStateStore(), script());
    const chunks = [];
    for await (const c of toUIMessageChunks(
      agent.stream(
        { messages: [{ type: "human", id: "u1", content: "Refund A-1" }] },
        {
          threadId: "t",
          modes: UI_STREAM_MODES,
        },
      ),
    )) {
      chunks.push(c);
    }
    const input = { orderId: "A-1", amount: 20 };
    expect(chunks).toEqual([
      { type: "start" },
      { type: "start-step" },
      { type: "reasoning-start", id: "0:0:reasoning:0" },
      { type: "reasoning-delta", id: "0:0:reasoning:0", delta: "Need the order." },
      { type: "text-start", id: "0:0:text" },
      { type: "text-delta", id: "0:0:text", delta: "Checking." },
      { type: "tool-input-start", toolCallId: "c1", toolName: "refund" },
      { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: JSON.stringify(input) },
      { type: "reasoning-end", id: "0:0:reasoning:0" },
      { type: "text-end", id: "0:0:text" },
      { type: "tool-input-available", toolCallId: "c1", toolName: "refund", input },
      {
        type: "tool-approval-request",
        approvalId: "1:0#c1",
        toolCallId: "c1",
        reason: "Refund 20 EUR on A-1?",
      },
      { type: "finish-step" },
      {
        type: "finish",
        finishReason: "tool-calls",
        messageMetadata: { status: "interrupted", usage },
      },
    ]);
  });

  it("a denied call is output-denied; a model node without streaming sends whole parts", async () => {
    const store = new MemoryStateStore();
    const chat = script();
    const agent = agentOn(store, chat, false);
    const first = await clientRead(
      uiStreamResponse(
        agent.stream(
          { messages: [{ type: "human", id: "u1", content: "Refund A-1" }] },
          {
            threadId: "t",
            modes: UI_STREAM_MODES,
          },
        ),
        { messageId: "a1" },
      ),
      [userMessage],
    );
    expect(first.message.parts).toEqual(streamed(pausedParts));
    const denied: AiUIMessage = {
      ...first.message,
      parts: first.message.parts.map((p) =>
        p.type === "tool-refund" ? answer(p, { approved: false, reason: "too much" }) : p,
      ),
    };
    const turn = uiChatTurn({ id: "t", messages: [userMessage, denied] });
    expect(turn.resume).toEqual({ "1:0#c1": { approved: false, reason: "too much" } });
    const second = await clientRead(
      uiStreamResponse(
        agent.stream(null, { threadId: "t", resume: turn.resume, modes: UI_STREAM_MODES }),
        {
          messageId: "a1",
        },
      ),
      [userMessage, denied],
      denied,
    );
    expect(second.message.parts[3]).toEqual({
      type: "tool-refund",
      toolCallId: "c1",
      state: "output-denied",
      input: { orderId: "A-1", amount: 20 },
      approval: {
        id: "1:0#c1",
        requestReason: "Refund 20 EUR on A-1?",
        approved: false,
        reason: "too much",
      },
    });
    expect(chat.requests[1]?.messages.at(-1)).toEqual({
      type: "tool",
      id: expect.any(String),
      content: "Tool call denied by a person: too much",
      name: "refund",
      toolCallId: "c1",
      arguments: null,
    });
    const state = await agent.getState("t");
    expect(toUIMessages(state.state.messages)[1]?.parts[3]).toEqual({
      type: "tool-refund",
      toolCallId: "c1",
      state: "output-denied",
      input: { orderId: "A-1", amount: 20 },
    });
  });

  it("a failing run ends with an error chunk and finish error", async () => {
    const agent = agentOn(new MemoryStateStore(), new ScriptedChat([new Error("provider down")]));
    const r = await clientRead(
      uiStreamResponse(
        agent.stream(
          { messages: [{ type: "human", id: "u1", content: "hi" }] },
          {
            threadId: "t",
            modes: UI_STREAM_MODES,
          },
        ),
      ),
      [userMessage],
    );
    expect(r.errors).toEqual(["Error: provider down"]);
    expect(r.message.metadata).toEqual({ status: "error", usage: {} });
  });
});
