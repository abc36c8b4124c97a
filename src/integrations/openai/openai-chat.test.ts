// OpenAIChat against a replay of the Chat Completions API: request mapping, complete, stream.
// Failures: openai-chat-failures.test.ts; conformance and the seed agent:
// openai-chat-conformance.test.ts; shared setup: openai-chat.fixture.ts.
import { describe, expect, it } from "vitest";
import { assembleStream } from "../../chat/assemble-stream.js";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../../chat/messages.js";
import { ChatRequest } from "../../chat/types.js";
import type { RecordedRequest } from "../testing/replay-server.js";
import { schemaName } from "./index.js";

import {
  ask,
  chunk,
  collect,
  completion,
  json,
  MAPPED_USAGE,
  MODEL,
  makeChat,
  server,
  setUpReplayServer,
  sse,
  stripRaw,
  textCompletion,
  textEvents,
  toolCompletion,
  toolEvents,
  usageChunk,
} from "./openai-chat.fixture.js";

setUpReplayServer();

// ---- Request mapping -----------------------------------------------------------------------

describe("OpenAIChat request mapping", () => {
  const tools = [
    {
      name: "get_order_status",
      description: "Look up the shipping status of an order.",
      inputSchema: {
        type: "object",
        properties: { orderId: { type: "string" } },
        required: ["orderId"],
        additionalProperties: false,
      },
    },
  ];

  it("sends every message kind, tools, tool choice and auth to /v1/chat/completions", async () => {
    server.enqueue(json(textCompletion("ok")));
    await makeChat().complete(
      ChatRequest({
        messages: [
          SystemMessage({ content: "You answer questions about orders." }),
          HumanMessage({ content: "Where is order A-1001?" }),
          AIMessage({
            toolCalls: [
              {
                id: "call_1",
                name: "get_order_status",
                arguments: { orderId: "A-1001" },
                argumentsError: null,
              },
            ],
          }),
          ToolMessage({
            content: '{"result":"shipped"}',
            toolCallId: "call_1",
            name: "get_order_status",
          }),
          AIMessage({ content: "It has shipped." }),
          AIMessage({ refusal: "I can't help with that." }),
        ],
        tools,
        toolChoice: "auto",
      }),
    );
    const [req] = server.requests as [RecordedRequest];
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    expect(req.json).toEqual({
      model: "gpt-4o-mini",
      stream: false,
      messages: [
        { role: "system", content: "You answer questions about orders." },
        { role: "user", content: "Where is order A-1001?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_order_status", arguments: '{"orderId":"A-1001"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: '{"result":"shipped"}' },
        { role: "assistant", content: "It has shipped." },
        { role: "assistant", content: null, refusal: "I can't help with that." },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_order_status",
            description: "Look up the shipping status of an order.",
            parameters: tools[0]!.inputSchema,
          },
        },
      ],
      tool_choice: "auto",
    });
  });

  it("maps toolChoice required, none and a tool name; omits it without tools", async () => {
    const chat = makeChat();
    const body = (toolChoice: string | null, withTools = true) =>
      chat.toRequestBody(ChatRequest({ messages: [], tools: withTools ? tools : [], toolChoice }));
    expect(body("required").tool_choice).toBe("required");
    expect(body("none").tool_choice).toBe("none");
    expect(body("get_order_status").tool_choice).toEqual({
      type: "function",
      function: { name: "get_order_status" },
    });
    expect("tool_choice" in body(null)).toBe(false);
    expect("tool_choice" in body("required", false)).toBe(false);
    expect("tools" in body("required", false)).toBe(false);
  });

  it("sends outputSchema as a strict json_schema response_format named by its title", async () => {
    const schema = {
      title: "Order status",
      type: "object",
      properties: { status: { type: "string" } },
      required: ["status"],
      additionalProperties: false,
    };
    const body = makeChat().toRequestBody(ChatRequest({ messages: [], outputSchema: schema }));
    expect("response_format" in body && body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "Order_status", schema, strict: true },
    });
    expect(schemaName({ type: "object" })).toBe("output");
    expect(schemaName({ title: "x".repeat(80) })).toBe("x".repeat(64));
  });

  it("adds temperature, max_completion_tokens and extraBody; streams ask for usage", async () => {
    server.enqueue(sse(textEvents("ok")));
    const chat = makeChat({ temperature: 0.2, maxTokens: 100, extraBody: { seed: 7 } });
    await collect(chat.stream(ask()));
    expect(server.requests[0]!.json).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      max_completion_tokens: 100,
      seed: 7,
    });
    server.enqueue(sse(textEvents("ok")));
    await collect(makeChat({ streamUsage: false }).stream(ask()));
    expect("stream_options" in (server.requests[1]!.json as object)).toBe(false);
  });
});

// ---- Responses -----------------------------------------------------------------------------

describe("OpenAIChat.complete", () => {
  it("maps a text answer, usage, model and raw", async () => {
    server.enqueue(json(textCompletion("Order A-1001 has shipped.")));
    const response = await makeChat().complete(ask());
    expect(response).toEqual({
      content: "Order A-1001 has shipped.",
      refusal: null,
      toolCalls: [],
      reasoning: [],
      finishReason: "stop",
      usage: MAPPED_USAGE,
      model: MODEL,
      raw: textCompletion("Order A-1001 has shipped."),
    });
  });

  it("maps several parallel tool calls, keeping invalid argument text as argumentsError", async () => {
    server.enqueue(
      json(
        toolCompletion([
          { id: "call_a", name: "get_order_status", argumentsJson: '{"orderId":"A-1001"}' },
          { id: "call_b", name: "get_order_status", argumentsJson: '{"orderId":"B-2002"}' },
          { id: "call_c", name: "get_order_status", argumentsJson: "[1]" },
        ]),
      ),
    );
    const response = await makeChat().complete(ask());
    expect(response.content).toBeNull();
    expect(response.finishReason).toBe("tool_calls");
    expect(response.toolCalls).toEqual([
      {
        id: "call_a",
        name: "get_order_status",
        arguments: { orderId: "A-1001" },
        argumentsError: null,
      },
      {
        id: "call_b",
        name: "get_order_status",
        arguments: { orderId: "B-2002" },
        argumentsError: null,
      },
      {
        id: "call_c",
        name: "get_order_status",
        arguments: {},
        argumentsError: "Tool arguments must be a JSON object, got an array",
      },
    ]);
  });

  it("maps a refusal", async () => {
    server.enqueue(json(completion({ refusal: "I'm sorry, I can't help with that." }, "stop")));
    const response = await makeChat().complete(ask());
    expect(response.content).toBeNull();
    expect(response.refusal).toBe("I'm sorry, I can't help with that.");
  });
});

describe("OpenAIChat.stream", () => {
  it("yields content deltas, the finish reason and the usage chunk", async () => {
    server.enqueue(sse(textEvents("Order A-1001 has shipped.")));
    const chunks = await collect(makeChat().stream(ask()));
    expect(stripRaw(chunks)).toEqual([
      { contentDelta: "Order ", model: MODEL },
      { contentDelta: "A-1001", model: MODEL },
      { contentDelta: " has s", model: MODEL },
      { contentDelta: "hipped", model: MODEL },
      { contentDelta: ".", model: MODEL },
      { finishReason: "stop", model: MODEL },
      { usage: MAPPED_USAGE, model: MODEL },
    ]);
    expect(chunks[0]!.raw).toEqual(chunk({ content: "Order " }));
  });

  it("streams two parallel tool calls split over many chunks as deltas that assemble", async () => {
    const calls = [
      { id: "call_a", name: "get_order_status", argumentsJson: '{"orderId":"A-1001"}' },
      { id: "call_b", name: "get_order_status", argumentsJson: '{"orderId":"B-2002"}' },
    ];
    server.enqueue(sse(toolEvents(calls)));
    const chunks = await collect(makeChat().stream(ask()));
    const deltas = chunks.flatMap((c) => (c.toolCallDelta ? [c.toolCallDelta] : []));
    expect(deltas.slice(0, 3)).toEqual([
      { index: 0, id: "call_a", name: "get_order_status", arguments: "" },
      { index: 0, id: null, name: null, arguments: '{"or' },
      { index: 0, id: null, name: null, arguments: "derI" },
    ]);
    expect(deltas).toHaveLength(12);
    const response = await assembleStream(
      (async function* () {
        yield* chunks;
      })(),
    );
    expect(response.toolCalls).toEqual([
      {
        id: "call_a",
        name: "get_order_status",
        arguments: { orderId: "A-1001" },
        argumentsError: null,
      },
      {
        id: "call_b",
        name: "get_order_status",
        arguments: { orderId: "B-2002" },
        argumentsError: null,
      },
    ]);
    expect(response.finishReason).toBe("tool_calls");
    expect(response.usage).toEqual(MAPPED_USAGE);
    expect(response.content).toBeNull();
  });

  it("streams a refusal", async () => {
    server.enqueue(
      sse([
        chunk({ role: "assistant", content: null, refusal: "" }),
        chunk({ refusal: "I'm sorry, " }),
        chunk({ refusal: "I can't help with that." }),
        chunk({}, "stop"),
        usageChunk,
      ]),
    );
    const response = await assembleStream(makeChat().stream(ask()));
    expect(response.refusal).toBe("I'm sorry, I can't help with that.");
    expect(response.content).toBeNull();
  });

  it("turns invalid streamed argument text into argumentsError", async () => {
    server.enqueue(
      sse(toolEvents([{ id: "call_x", name: "get_order_status", argumentsJson: '{"orderId":' }])),
    );
    const response = await assembleStream(makeChat().stream(ask()));
    expect(response.toolCalls).toHaveLength(1);
    expect(response.toolCalls[0]!.arguments).toEqual({});
    expect(response.toolCalls[0]!.argumentsError).toMatch(/^Invalid JSON in tool arguments/);
  });
});

// ---- Failures and retries ------------------------------------------------------------------
