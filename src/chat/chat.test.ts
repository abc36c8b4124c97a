import { describe, expect, it } from "vitest";
import { expectError } from "../../test/helpers.js";
import { ModelProviderError } from "../errors/index.js";
import { assembleStream } from "./assemble-stream.js";
import {
  AIMessage,
  HumanMessage,
  MessageSchema,
  roleOf,
  SystemMessage,
  ToolMessage,
} from "./messages.js";
import { ScriptedChat } from "./scripted-chat.js";
import { parseToolArguments, ToolCall } from "./tool-call.js";
import { ChatRequest, ChatResponse, type ChatStreamChunk } from "./types.js";

async function* chunks(...items: ChatStreamChunk[]): AsyncGenerator<ChatStreamChunk> {
  yield* items;
}

describe("messages", () => {
  it("are plain objects with a type field and defaults", () => {
    expect(HumanMessage({ content: "hi" })).toEqual({ type: "human", id: null, content: "hi" });
    expect(AIMessage()).toEqual({
      type: "ai",
      id: null,
      content: null,
      refusal: null,
      toolCalls: [],
      reasoning: [],
      finishReason: null,
      usage: {},
    });
    expect(ToolMessage({ content: "x", toolCallId: "c1", name: "t" })).toEqual({
      type: "tool",
      id: null,
      content: "x",
      name: "t",
      toolCallId: "c1",
      arguments: null,
    });
    expect([SystemMessage(), HumanMessage(), AIMessage(), ToolMessage()].map(roleOf)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);
  });

  it("validate by type and survive JSON", () => {
    const m = AIMessage({ content: "a", toolCalls: [ToolCall.of({ id: "c", name: "t" })] });
    expect(MessageSchema.parse(JSON.parse(JSON.stringify(m)))).toEqual(m);
    expect(MessageSchema.safeParse({ type: "bot" }).success).toBe(false);
  });
});

describe("parseToolArguments", () => {
  it("parses objects; empty text means no arguments; anything else is invalid", () => {
    expect(parseToolArguments('{"a":1}')).toEqual([{ a: 1 }, null]);
    expect(parseToolArguments("")).toEqual([{}, null]);
    expect(parseToolArguments(null)).toEqual([{}, null]);
    expect(parseToolArguments("null")).toEqual([
      {},
      "Tool arguments must be a JSON object, got null",
    ]);
    expect(parseToolArguments("[1]")).toEqual([
      {},
      "Tool arguments must be a JSON object, got an array",
    ]);
    expect(parseToolArguments("3")).toEqual([
      {},
      "Tool arguments must be a JSON object, got a number",
    ]);
    const [args, err] = parseToolArguments('{"a":');
    expect(args).toEqual({});
    expect(err).toMatch(/^Invalid JSON in tool arguments: /);
  });
});

describe("ToolCall", () => {
  it("builds from argument text and serializes compactly", () => {
    expect(ToolCall.fromArgumentsJson("c1", "t", '{"x": 1}')).toEqual({
      id: "c1",
      name: "t",
      arguments: { x: 1 },
      argumentsError: null,
    });
    expect(ToolCall.fromArgumentsJson("c1", "t", "{bad").argumentsError).toMatch(/^Invalid JSON/);
    expect(ToolCall.argumentsJson({ arguments: { x: 1, y: "z" } })).toBe('{"x":1,"y":"z"}');
  });
});

describe("ChatRequest and ChatResponse", () => {
  it("fill the reference's defaults", () => {
    expect(ChatRequest({ messages: [] })).toEqual({
      messages: [],
      tools: [],
      toolChoice: null,
      outputSchema: null,
    });
    expect(ChatResponse({ toolCalls: [{ id: "c", name: "t" }] })).toEqual({
      content: null,
      refusal: null,
      toolCalls: [{ id: "c", name: "t", arguments: {}, argumentsError: null }],
      reasoning: [],
      finishReason: null,
      usage: {},
      model: null,
      raw: null,
    });
  });
});

describe("assembleStream", () => {
  it("joins content, tool-call deltas by index, finish reason, usage and model", async () => {
    const r = await assembleStream(
      chunks(
        { contentDelta: "Hel", model: "m-1" },
        { contentDelta: "lo" },
        { toolCallDelta: { index: 1, id: "c2", name: "b", arguments: '{"y"' } },
        { toolCallDelta: { index: 0, id: "c1", name: "a", arguments: "" } },
        { toolCallDelta: { index: 1, arguments: ":2}" } },
        { toolCallDelta: { index: 0, arguments: '{"x":1}' } },
        { finishReason: "tool_calls" },
        { usage: { inputTokens: 3 } },
        { usage: { outputTokens: 4 } },
      ),
    );
    expect(r).toEqual({
      content: "Hello",
      refusal: null,
      toolCalls: [
        { id: "c1", name: "a", arguments: { x: 1 }, argumentsError: null },
        { id: "c2", name: "b", arguments: { y: 2 }, argumentsError: null },
      ],
      reasoning: [],
      finishReason: "tool_calls",
      usage: { inputTokens: 3, outputTokens: 4 },
      model: "m-1",
      raw: null,
    });
  });

  it("joins refusals and keeps malformed arguments as argumentsError", async () => {
    const r = await assembleStream(
      chunks(
        { refusalDelta: "I can't " },
        { refusalDelta: "help." },
        { toolCallDelta: { index: 0, id: "c", name: "t", arguments: "{oops" } },
      ),
    );
    expect(r.refusal).toBe("I can't help.");
    expect(r.content).toBeNull();
    expect(r.toolCalls[0]!.arguments).toEqual({});
    expect(r.toolCalls[0]!.argumentsError).toMatch(/^Invalid JSON in tool arguments/);
  });

  it("raises ModelProviderError when a streamed call has no id or no name", async () => {
    await expectError(
      () => assembleStream(chunks({ toolCallDelta: { index: 0, name: "t", arguments: "{}" } })),
      ModelProviderError,
      "Streamed tool call at index 0 has no id: the stream never sent an id for it",
    );
    await expectError(
      () => assembleStream(chunks({ toolCallDelta: { index: 2, id: "c" } })),
      ModelProviderError,
      "Streamed tool call at index 2 has no name: the stream never sent a name for it",
    );
  });
});

describe("ScriptedChat", () => {
  const req = ChatRequest({ messages: [HumanMessage({ content: "hi" })] });

  it("returns its responses in order, strings as text answers, and records every request", async () => {
    const chat = new ScriptedChat([
      { toolCalls: [{ id: "c1", name: "t", arguments: { a: 1 } }] },
      "done",
    ]);
    const r1 = await chat.complete(req);
    expect(r1.toolCalls).toEqual([
      { id: "c1", name: "t", arguments: { a: 1 }, argumentsError: null },
    ]);
    expect(r1.finishReason).toBe("tool_calls");
    const r2 = await chat.complete(req);
    expect(r2.content).toBe("done");
    expect(r2.finishReason).toBe("stop");
    expect(r2.model).toBe("scripted");
    expect(chat.requests).toEqual([req, req]);
    expect(chat.model).toBe("scripted");
  });

  it("raises a clear error when it runs out of responses", async () => {
    const chat = new ScriptedChat(["only"]);
    await chat.complete(req);
    const e = await expectError(
      () => chat.complete(req),
      ModelProviderError,
      "ScriptedChat has no response for request 2: it was given 1 response. Add a response for every model call the run makes.",
    );
    expect(e.provider).toBe("scripted");
    expect(e.retryable).toBe(false);
  });

  it("streams the same response as chunks that assemble back to it", async () => {
    const chat = new ScriptedChat([
      "Order A-1001 has shipped.",
      { toolCalls: [{ id: "c1", name: "t", arguments: { a: 1 } }] },
    ]);
    const text: ChatStreamChunk[] = [];
    for await (const c of chat.stream(req)) text.push(c);
    expect(text.map((c) => c.contentDelta ?? null)).toEqual([
      "Order ",
      "A-1001 ",
      "has ",
      "shipped.",
      null,
    ]);
    const r = await assembleStream(chat.stream(req));
    expect(r.toolCalls).toEqual([
      { id: "c1", name: "t", arguments: { a: 1 }, argumentsError: null },
    ]);
    expect(chat.requests).toHaveLength(2);
  });

  it("throws scripted errors and supports functions of the request", async () => {
    const chat = new ScriptedChat([
      new ModelProviderError("rate limited", {
        provider: "scripted",
        status: 429,
        retryable: true,
      }),
      (r) => `saw ${r.messages.length}`,
    ]);
    await expectError(() => chat.complete(req), ModelProviderError, "rate limited");
    expect((await chat.complete(req)).content).toBe("saw 1");
  });
});

describe("ScriptedChat input checks", () => {
  it("refuses malformed responses when it is made", async () => {
    await expectError(
      () => new ScriptedChat(["ok", 5 as never]),
      TypeError,
      "ScriptedChat: response 1 must be a ChatResponse object (toolCalls an array), a string, an Error or a function, got number",
    );
    await expectError(
      () => new ScriptedChat([{ toolCalls: "x" as never }]),
      TypeError,
      "ScriptedChat: response 0 must be a ChatResponse object (toolCalls an array), a string, an Error or a function, got object",
    );
  });
});
