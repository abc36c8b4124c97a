import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type UIMessage as AiUIMessage,
  DefaultChatTransport,
  readUIMessageStream,
  type UIMessageChunk,
} from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../../agents/react-agent.js";
import { ScriptedChat } from "../../chat/scripted-chat.js";
import { ValueError } from "../../errors/index.js";
import { ApprovalMiddleware } from "../../middleware/approval.js";
import { MemoryStateStore } from "../../stores/memory-state-store.js";
import type { StateStore } from "../../stores/types.js";
import { tool } from "../../tools/tool.js";
import { SqliteStateStore } from "../sqlite/index.js";
import {
  toUIMessageChunks,
  toUIMessages,
  UI_STREAM_MODES,
  uiChatTurn,
  uiStreamResponse,
} from "./index.js";

const usage = { inputTokens: 10, outputTokens: 4, totalTokens: 14 };

function script() {
  return new ScriptedChat([
    {
      reasoning: [{ type: "reasoning", text: "Need the order.", provider: "scripted", data: null }],
      content: "Checking.",
      toolCalls: [{ id: "c1", name: "refund", arguments: { orderId: "A-1", amount: 20 } }],
      usage,
    },
    { content: "Refunded 20 EUR.", usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25 } },
  ]);
}

const refund = tool(
  ({ orderId, amount }: { orderId: string; amount: number }, ctx) => {
    ctx.emit({ type: "progress", id: "refund", step: "paying" });
    return `refunded ${amount} EUR on ${orderId}`;
  },
  {
    name: "refund",
    description: "Refund an order.",
    input: z.object({ orderId: z.string(), amount: z.number() }),
  },
);

function agentOn(store: StateStore, chat: ScriptedChat, stream = true) {
  return buildReactAgent(chat, {
    tools: [refund],
    middleware: [ApprovalMiddleware({ tools: ["refund"], question: "Refund 20 EUR on A-1?" })],
    stateStore: store,
    stream,
  });
}

/** What useChat does with an answer: DefaultChatTransport (its SSE parser and chunk schema), then the message it assembles. */
async function clientRead(
  response: Response,
  messages: AiUIMessage[],
  last?: AiUIMessage,
): Promise<{ message: AiUIMessage; body: unknown; errors: string[] }> {
  let body: unknown;
  const transport = new DefaultChatTransport<AiUIMessage>({
    api: "http://local/api/chat",
    fetch: async (_url, init) => {
      body = JSON.parse(String(init?.body));
      return response;
    },
  });
  const chunks = await transport.sendMessages({
    chatId: "t-1",
    messages,
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  const errors: string[] = [];
  let message: AiUIMessage | undefined;
  for await (const m of readUIMessageStream<AiUIMessage>({
    stream: chunks as ReadableStream<UIMessageChunk>,
    ...(last ? { message: last } : {}),
    onError: (e) => errors.push((e as Error).message),
  })) {
    message = m;
  }
  return { message: message as AiUIMessage, body, errors };
}

/** The parts as the stream builds them: the reasoning part keeps the chunk id. */
function streamed(parts: readonly object[]): object[] {
  return parts.map((p) =>
    (p as { type: string }).type === "reasoning" ? { ...p, id: "0:0:reasoning:0" } : p,
  );
}

/** What useChat's addToolApprovalResponse does to the part it answers. */
function answer(
  part: AiUIMessage["parts"][number],
  given: { approved: boolean; reason: string | undefined },
): AiUIMessage["parts"][number] {
  const p = part as { approval: { id: string } };
  return {
    ...part,
    state: "approval-responded",
    approval: { ...p.approval, ...given },
  } as AiUIMessage["parts"][number];
}

const userMessage: AiUIMessage = {
  id: "u1",
  role: "user",
  parts: [{ type: "text", text: "Refund A-1" }],
};

/** As the history maps them: the stream's reasoning part also has the stream's part id. */
const pausedParts = [
  { type: "step-start" },
  { type: "reasoning", text: "Need the order.", state: "done" },
  { type: "text", text: "Checking.", state: "done" },
  {
    type: "tool-refund",
    toolCallId: "c1",
    state: "approval-requested",
    input: { orderId: "A-1", amount: 20 },
    approval: { id: "1:0#c1", requestReason: "Refund 20 EUR on A-1?" },
  },
];

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

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

describe("uiChatTurn refuses what it cannot run", () => {
  const cases: [string, unknown, string][] = [
    [
      "not an object",
      "hi",
      "useChat request: body: Invalid input: expected object, received string",
    ],
    [
      "no messages",
      { id: "t", messages: [] },
      "useChat request: messages: Too small: expected array to have >=1 items",
    ],
    [
      "a bad role",
      { messages: [{ id: "x", role: "bot", parts: [] }] },
      'useChat request: messages.0.role: Invalid option: expected one of "system"|"user"|"assistant"',
    ],
    [
      "regenerate",
      { messages: [userMessage], trigger: "regenerate-message" },
      'useChat request: trigger "regenerate-message" is not supported; fork the thread to answer again',
    ],
    [
      "an empty user message",
      { messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "" }] }] },
      "useChat request: messages.0 has no text or file part",
    ],
    [
      "an assistant message with no answer",
      {
        messages: [
          userMessage,
          { id: "a", role: "assistant", parts: [{ type: "text", text: "x" }] },
        ],
      },
      "useChat request: messages.1: the last message is an assistant message with no approval answer to send",
    ],
  ];
  for (const [name, body, message] of cases) {
    it(name, () => {
      let caught: unknown;
      try {
        uiChatTurn(body);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ValueError);
      expect((caught as Error).message).toBe(message);
    });
  }

  it("maps file parts to image and file parts", () => {
    const turn = uiChatTurn({
      messages: [
        {
          id: "u",
          role: "user",
          parts: [
            { type: "text", text: "See" },
            { type: "file", mediaType: "image/png", url: "data:image/png;base64,AAA" },
            {
              type: "file",
              mediaType: "application/pdf",
              url: "https://x/y.pdf",
              filename: "y.pdf",
            },
          ],
        },
      ],
    });
    expect(turn.input).toEqual({
      messages: [
        {
          type: "human",
          id: "u",
          content: [
            { type: "text", text: "See" },
            { type: "image", url: "data:image/png;base64,AAA", mediaType: "image/png" },
            { type: "file", url: "https://x/y.pdf", mediaType: "application/pdf", name: "y.pdf" },
          ],
        },
      ],
    });
  });
});

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

describe("a client that goes away", () => {
  it("cancelling the Response body cancels the run: the tool sees its signal and the thread keeps its last position", async () => {
    let aborted = false;
    const wait = tool(
      (_a, ctx) =>
        new Promise<string>((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            reject(ctx.signal.reason);
          });
        }),
      { name: "wait", description: "Waits until cancelled." },
    );
    const store = new MemoryStateStore();
    const chat = new ScriptedChat([
      { toolCalls: [{ id: "c1", name: "wait", arguments: {} }] },
      "Again.",
    ]);
    const agent = buildReactAgent(chat, { tools: [wait], stateStore: store, stream: true });
    const response = uiStreamResponse(
      agent.stream(
        { messages: [{ type: "human", id: "u1", content: "go" }] },
        {
          threadId: "w",
          modes: UI_STREAM_MODES,
        },
      ),
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!text.includes('"tool-input-available"')) {
      const r = await reader.read();
      text += new TextDecoder().decode(r.value);
    }
    await reader.cancel();
    expect(aborted).toBe(true);
    const after = await agent.getState("w");
    // The stopped turn is kept as the thread's last position: act is next, as after any stopped step.
    expect({
      status: after.status,
      next: after.next,
      messages: after.state.messages.length,
    }).toEqual({
      status: "failed",
      next: ["act"],
      messages: 2,
    });
  });
});
