// AnthropicChat against a replay of the Messages API: request mapping, complete, stream.
// Failures: anthropic-chat-failures.test.ts; conformance and the seed agent:
// anthropic-chat-conformance.test.ts; shared setup: anthropic-chat.fixture.ts.
import { describe, expect, it } from "vitest";
import { assembleStream } from "../../chat/assemble-stream.js";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../../chat/messages.js";
import { ChatRequest } from "../../chat/types.js";
import type { RecordedRequest } from "../testing/replay-server.js";
import {
  ask,
  collect,
  json,
  MODEL,
  makeChat,
  message,
  messageDelta,
  messageStart,
  server,
  setUpReplayServer,
  sse,
  stripRaw,
  textBlock,
  textEvents,
  textMessage,
  toolBlock,
  toolMessage,
  USAGE,
} from "./anthropic-chat.fixture.js";
import { anthropicFinishReason } from "./index.js";

setUpReplayServer();

// ---- Request mapping -----------------------------------------------------------------------

const TOOLS = [
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

describe("AnthropicChat request mapping", () => {
  it("sends system, tool_use and merged tool_result turns, tools and auth to /v1/messages", async () => {
    server.enqueue(json(textMessage("ok")));
    await makeChat().complete(
      ChatRequest({
        messages: [
          SystemMessage({ content: "You answer questions about orders." }),
          SystemMessage({ content: "Be brief." }),
          HumanMessage({ content: "Where are A-1001 and B-2002?" }),
          AIMessage({
            content: "Let me look.",
            toolCalls: [
              {
                id: "toolu_1",
                name: "get_order_status",
                arguments: { orderId: "A-1001" },
                argumentsError: null,
              },
              {
                id: "toolu_2",
                name: "get_order_status",
                arguments: { orderId: "B-2002" },
                argumentsError: null,
              },
            ],
          }),
          ToolMessage({
            content: '{"result":"shipped"}',
            toolCallId: "toolu_1",
            name: "get_order_status",
          }),
          ToolMessage({
            content: '{"result":"packed"}',
            toolCallId: "toolu_2",
            name: "get_order_status",
          }),
          AIMessage({ content: "A-1001 has shipped; B-2002 is packed." }),
          HumanMessage({ content: "Thanks" }),
        ],
        tools: TOOLS,
        toolChoice: "required",
      }),
    );
    const [req] = server.requests as [RecordedRequest];
    expect(req.path).toBe("/v1/messages");
    // This SDK version sends the API key as a bearer token.
    expect(req.headers.authorization).toBe("Bearer sk-ant-test");
    expect(typeof req.headers["anthropic-version"]).toBe("string");
    expect(req.json).toEqual({
      model: "claude-sonnet-4-6",
      max_tokens: 4096,
      stream: false,
      system: "You answer questions about orders.\n\nBe brief.",
      messages: [
        { role: "user", content: "Where are A-1001 and B-2002?" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Let me look." },
            {
              type: "tool_use",
              id: "toolu_1",
              name: "get_order_status",
              input: { orderId: "A-1001" },
            },
            {
              type: "tool_use",
              id: "toolu_2",
              name: "get_order_status",
              input: { orderId: "B-2002" },
            },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: '{"result":"shipped"}' },
            { type: "tool_result", tool_use_id: "toolu_2", content: '{"result":"packed"}' },
          ],
        },
        { role: "assistant", content: "A-1001 has shipped; B-2002 is packed." },
        { role: "user", content: "Thanks" },
      ],
      tools: [
        {
          name: "get_order_status",
          description: "Look up the shipping status of an order.",
          input_schema: TOOLS[0]!.inputSchema,
        },
      ],
      tool_choice: { type: "any" },
    });
  });

  it("maps toolChoice, outputSchema, maxTokens and extraBody", () => {
    const chat = makeChat({ maxTokens: 1000, extraBody: { temperature: 0 } });
    const body = (toolChoice: string | null) =>
      chat.toRequestBody(ChatRequest({ messages: [], tools: TOOLS, toolChoice }));
    expect(body("auto").tool_choice).toEqual({ type: "auto" });
    expect(body("none").tool_choice).toEqual({ type: "none" });
    expect(body("get_order_status").tool_choice).toEqual({
      type: "tool",
      name: "get_order_status",
    });
    expect("tool_choice" in body(null)).toBe(false);
    const schema = {
      type: "object",
      properties: { status: { type: "string" } },
      required: ["status"],
      additionalProperties: false,
    };
    const structured = chat.toRequestBody(ChatRequest({ messages: [], outputSchema: schema }));
    expect(structured.output_config).toEqual({ format: { type: "json_schema", schema } });
    expect(structured.max_tokens).toBe(1000);
    expect((structured as unknown as { temperature: number }).temperature).toBe(0);
    expect("tools" in structured).toBe(false);
  });

  it("maps stop reasons", () => {
    expect(
      ["end_turn", "stop_sequence", "tool_use", "max_tokens", "pause_turn", "refusal", null].map(
        anthropicFinishReason,
      ),
    ).toEqual(["stop", "stop", "tool_calls", "length", "pause_turn", "refusal", null]);
  });
});

// ---- Responses -----------------------------------------------------------------------------

describe("AnthropicChat.complete", () => {
  it("maps a text answer, usage, model and raw", async () => {
    server.enqueue(json(textMessage("Order A-1001 has shipped.")));
    expect(await makeChat().complete(ask())).toEqual({
      content: "Order A-1001 has shipped.",
      refusal: null,
      toolCalls: [],
      reasoning: [],
      finishReason: "stop",
      usage: {
        inputTokens: 2095,
        outputTokens: 503,
        totalTokens: 2598,
        cachedInputTokens: 0,
        raw: USAGE,
      },
      model: MODEL,
      raw: textMessage("Order A-1001 has shipped."),
    });
  });

  it("maps text and parallel tool_use blocks", async () => {
    server.enqueue(
      json(
        toolMessage(
          [
            { id: "toolu_a", name: "get_order_status", argumentsJson: '{"orderId":"A-1001"}' },
            { id: "toolu_b", name: "get_order_status", argumentsJson: '{"orderId":"B-2002"}' },
          ],
          "Let me look.",
        ),
      ),
    );
    const response = await makeChat().complete(ask());
    expect(response.content).toBe("Let me look.");
    expect(response.finishReason).toBe("tool_calls");
    expect(response.toolCalls).toEqual([
      {
        id: "toolu_a",
        name: "get_order_status",
        arguments: { orderId: "A-1001" },
        argumentsError: null,
      },
      {
        id: "toolu_b",
        name: "get_order_status",
        arguments: { orderId: "B-2002" },
        argumentsError: null,
      },
    ]);
  });

  it("maps a refusal stop with its explanation, and max_tokens to length", async () => {
    server.enqueue(
      json(
        message([], "refusal", {
          stop_details: {
            type: "refusal",
            category: "cyber",
            explanation: "This request could enable malware development.",
          },
        }),
      ),
      json(message([{ type: "text", text: "Order A-1001 has" }], "max_tokens")),
    );
    const refused = await makeChat().complete(ask());
    expect([refused.content, refused.refusal, refused.finishReason]).toEqual([
      null,
      "This request could enable malware development.",
      "refusal",
    ]);
    const cut = await makeChat().complete(ask());
    expect([cut.content, cut.finishReason]).toEqual(["Order A-1001 has", "length"]);
  });
});

describe("AnthropicChat.stream", () => {
  it("yields usage, text deltas (skipping ping), the finish reason and output usage", async () => {
    server.enqueue(sse(textEvents("Order A-1001 has shipped.")));
    const chunks = await collect(makeChat().stream(ask()));
    expect(stripRaw(chunks)).toEqual([
      {
        usage: {
          inputTokens: 472,
          outputTokens: 2,
          totalTokens: 474,
          raw: { input_tokens: 472, output_tokens: 2 },
        },
        model: MODEL,
      },
      { contentDelta: "Order ", model: MODEL },
      { contentDelta: "A-1001", model: MODEL },
      { contentDelta: " has s", model: MODEL },
      { contentDelta: "hipped", model: MODEL },
      { contentDelta: ".", model: MODEL },
      { finishReason: "stop", model: MODEL },
      {
        usage: {
          inputTokens: 472,
          outputTokens: 89,
          totalTokens: 561,
          raw: { input_tokens: 472, output_tokens: 89 },
        },
        model: MODEL,
      },
    ]);
    const response = await assembleStream(
      (async function* () {
        yield* chunks;
      })(),
    );
    expect(response.usage).toEqual({
      inputTokens: 472,
      outputTokens: 89,
      totalTokens: 561,
      raw: { input_tokens: 472, output_tokens: 89 },
    });
  });

  it("maps input_json_delta pieces of parallel tool_use blocks after text to tool-call deltas", async () => {
    const calls = [
      { id: "toolu_a", name: "get_order_status", argumentsJson: '{"orderId":"A-1001"}' },
      { id: "toolu_b", name: "get_order_status", argumentsJson: '{"orderId":"B-2002"}' },
    ];
    server.enqueue(
      sse([
        messageStart,
        ...textBlock(0, "Let me look."),
        ...toolBlock(1, calls[0]!),
        ...toolBlock(2, calls[1]!),
        messageDelta("tool_use"),
      ]),
    );
    const chunks = await collect(makeChat().stream(ask()));
    const deltas = chunks.flatMap((c) => (c.toolCallDelta ? [c.toolCallDelta] : []));
    expect(deltas.slice(0, 3)).toEqual([
      { index: 0, id: "toolu_a", name: "get_order_status", arguments: "" },
      { index: 0, arguments: '{"ord' },
      { index: 0, arguments: 'erId"' },
    ]);
    expect(deltas.filter((d) => d.index === 1)).toHaveLength(5);
    const response = await assembleStream(
      (async function* () {
        yield* chunks;
      })(),
    );
    expect(response).toMatchObject({
      content: "Let me look.",
      finishReason: "tool_calls",
      toolCalls: [
        {
          id: "toolu_a",
          name: "get_order_status",
          arguments: { orderId: "A-1001" },
          argumentsError: null,
        },
        {
          id: "toolu_b",
          name: "get_order_status",
          arguments: { orderId: "B-2002" },
          argumentsError: null,
        },
      ],
    });
  });

  it("keeps a tool call whose streamed input is not JSON as argumentsError", async () => {
    server.enqueue(
      sse([
        messageStart,
        ...toolBlock(0, {
          id: "toolu_x",
          name: "get_order_status",
          argumentsJson: '{"orderId": "A-1',
        }),
        messageDelta("tool_use"),
      ]),
    );
    const response = await assembleStream(makeChat().stream(ask()));
    expect(response.toolCalls[0]).toMatchObject({ id: "toolu_x", arguments: {} });
    expect(response.toolCalls[0]!.argumentsError).toMatch(/^Invalid JSON in tool arguments/);
  });

  it("streams a refusal stop as a refusal delta", async () => {
    server.enqueue(
      sse([
        messageStart,
        messageDelta("refusal", {
          stop_details: { type: "refusal", category: null, explanation: null },
        }),
      ]),
    );
    const response = await assembleStream(makeChat().stream(ask()));
    expect([response.content, response.refusal, response.finishReason]).toEqual([
      null,
      "The model declined to answer.",
      "refusal",
    ]);
  });
});
