import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assembleStream } from "../../chat/assemble-stream.js";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../../chat/messages.js";
import { ChatRequest, type ChatStreamChunk } from "../../chat/types.js";
import { ModelProviderError, RunCancelledError } from "../../errors/index.js";
import { type ConformanceScenario, describeChatConformance } from "../testing/conformance.js";
import {
  type RecordedRequest,
  type ReplayResponse,
  ReplayServer,
  sseEvents,
} from "../testing/replay-server.js";
import { itRunsSeedOrderAgent } from "../testing/seed-agent.js";
import { AnthropicChat, anthropicFinishReason } from "./index.js";

// ---- Wire format of the Messages API, as documented ----------------------------------------

const MODEL = "claude-sonnet-4-6";
const USAGE = {
  input_tokens: 2095,
  output_tokens: 503,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  service_tier: "standard",
};

interface WireCall {
  id: string;
  name: string;
  argumentsJson: string;
}

function message(content: unknown[], stopReason: string, extra: Record<string, unknown> = {}) {
  return {
    id: "msg_013Zva2CMHLNnXjNJJKqJ2EF",
    type: "message",
    role: "assistant",
    model: MODEL,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: USAGE,
    ...extra,
  };
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): ReplayResponse {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  };
}

const textMessage = (text: string) => message([{ type: "text", text }], "end_turn");
const toolMessage = (calls: readonly WireCall[], text?: string) =>
  message(
    [
      ...(text ? [{ type: "text", text }] : []),
      // A tool_use block carries parsed input; invalid text cannot arrive this way.
      ...calls.map((c) => ({
        type: "tool_use",
        id: c.id,
        name: c.name,
        input: JSON.parse(c.argumentsJson),
      })),
    ],
    "tool_use",
  );

const PING = 'event: ping\ndata: {"type": "ping"}\n\n';

function sse(events: Array<{ event: string; data: unknown }>, complete = true): ReplayResponse {
  const pieces = sseEvents(events);
  pieces.splice(Math.min(2, pieces.length), 0, PING);
  if (complete)
    pieces.push(...sseEvents([{ event: "message_stop", data: { type: "message_stop" } }]));
  return { headers: { "content-type": "text/event-stream; charset=utf-8" }, body: pieces };
}

const ev = (type: string, fields: Record<string, unknown> = {}) => ({
  event: type,
  data: { type, ...fields },
});

const messageStart = ev("message_start", {
  message: {
    id: "msg_014p7gG3wDgGV9EUtLvnow3U",
    type: "message",
    role: "assistant",
    model: MODEL,
    stop_sequence: null,
    usage: { input_tokens: 472, output_tokens: 2 },
    content: [],
    stop_reason: null,
  },
});

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function textBlock(index: number, text: string) {
  return [
    ev("content_block_start", { index, content_block: { type: "text", text: "" } }),
    ...pieces(text, 6).map((t) =>
      ev("content_block_delta", { index, delta: { type: "text_delta", text: t } }),
    ),
    ev("content_block_stop", { index }),
  ];
}

function toolBlock(index: number, call: WireCall) {
  return [
    ev("content_block_start", {
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
    }),
    ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } }),
    ...pieces(call.argumentsJson, 5).map((p) =>
      ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } }),
    ),
    ev("content_block_stop", { index }),
  ];
}

const messageDelta = (stopReason: string, extra: Record<string, unknown> = {}) =>
  ev("message_delta", {
    delta: { stop_reason: stopReason, stop_sequence: null, ...extra },
    usage: { output_tokens: 89 },
  });

const textEvents = (text: string) => [
  messageStart,
  ...textBlock(0, text),
  messageDelta("end_turn"),
];
const toolEvents = (calls: readonly WireCall[]) => [
  messageStart,
  ...calls.flatMap((c, index) => toolBlock(index, c)),
  messageDelta("tool_use"),
];

const errorBody = (type: string, msg: string) => ({
  type: "error",
  error: { type, message: msg },
  request_id: "req_011CSHoEeqs5C35K2UUqR7Fy",
});
const ERRORS: Record<number, unknown> = {
  401: errorBody("authentication_error", "invalid x-api-key"),
  429: errorBody(
    "rate_limit_error",
    "This request would exceed the rate limit for your organization.",
  ),
  500: errorBody("api_error", "Internal server error"),
  529: errorBody("overloaded_error", "Overloaded"),
};
const httpError = (status: number, headers: Record<string, string> = {}) =>
  json(ERRORS[status], status, headers);

// ---- Setup ---------------------------------------------------------------------------------

let server: ReplayServer;
beforeAll(async () => {
  server = await ReplayServer.start();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

function makeChat(options: Partial<ConstructorParameters<typeof AnthropicChat>[0]> = {}) {
  return new AnthropicChat({
    model: "claude-sonnet-4-6",
    apiKey: "sk-ant-test",
    baseURL: server.url,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 5,
    ...options,
  });
}

const ask = () => ChatRequest({ messages: [HumanMessage({ content: "Where is order A-1001?" })] });

async function collect(stream: AsyncIterable<ChatStreamChunk>): Promise<ChatStreamChunk[]> {
  const out: ChatStreamChunk[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<ModelProviderError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof ModelProviderError) return e;
    throw e;
  }
  throw new Error("expected a ModelProviderError");
}

const stripRaw = (chunks: ChatStreamChunk[]) => chunks.map(({ raw: _raw, ...rest }) => rest);

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

// ---- Failures ------------------------------------------------------------------------------

describe("AnthropicChat failures", () => {
  it("retries 429 after retry-after and 529 overloaded, then succeeds", async () => {
    server.enqueue(httpError(429, { "retry-after": "0" }), httpError(529), json(textMessage("ok")));
    expect((await makeChat().complete(ask())).content).toBe("ok");
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after maxRetries, and never retries a 401", async () => {
    server.fallback = httpError(529);
    const overloaded = await failure(makeChat({ maxRetries: 1 }).complete(ask()));
    expect([overloaded.provider, overloaded.status, overloaded.retryable]).toEqual([
      "anthropic",
      529,
      true,
    ]);
    expect(overloaded.message).toContain("Overloaded");
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.fallback = httpError(401);
    const auth = await failure(collect(makeChat().stream(ask())));
    expect([auth.status, auth.retryable]).toEqual([401, false]);
    expect(auth.message).toContain("invalid x-api-key");
    expect(server.requests).toHaveLength(1);
  });

  it("raises an error event in the middle of a stream", async () => {
    server.enqueue(
      sse(
        [
          messageStart,
          ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
          ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Order" } }),
          {
            event: "error",
            data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
          },
        ],
        false,
      ),
    );
    const seen: ChatStreamChunk[] = [];
    const error = await failure(
      (async () => {
        for await (const c of makeChat().stream(ask())) seen.push(c);
      })(),
    );
    expect(seen.map((c) => c.contentDelta ?? null)).toEqual([null, "Order"]);
    expect([error.status, error.retryable]).toEqual([undefined, true]);
    expect(error.message).toContain("Overloaded");
  });

  it("a fatal error event is not retryable", async () => {
    server.enqueue(
      sse(
        [
          messageStart,
          {
            event: "error",
            data: { type: "error", error: { type: "invalid_request_error", message: "bad" } },
          },
        ],
        false,
      ),
    );
    const error = await failure(collect(makeChat().stream(ask())));
    expect(error.retryable).toBe(false);
  });

  it("raises a retryable error when the stream breaks off or ends before message_stop", async () => {
    server.enqueue({ ...sse(textEvents("Order A-1001").slice(0, 3), false), breakOff: true });
    const broken = await failure(collect(makeChat().stream(ask())));
    expect(broken.retryable).toBe(true);
    expect(broken.message).toMatch(/^The Anthropic stream broke off: terminated/);
    server.enqueue(sse(textEvents("Order A-1001"), false));
    const ended = await failure(collect(makeChat().stream(ask())));
    expect(ended.message).toBe("The Anthropic stream broke off: it ended before message_stop");
  });

  it("times out and cancels mid-stream", async () => {
    server.enqueue({ ...sse(textEvents("Order A-1001").slice(0, 3), false), hang: true });
    const timedOut = await failure(
      collect(makeChat({ timeoutMs: 150, maxRetries: 0 }).stream(ask())),
    );
    expect(timedOut.message).toBe("The anthropic call timed out after 150 ms (timeoutMs)");
    server.enqueue({ ...sse(textEvents("Order A-1001").slice(0, 3), false), hang: true });
    const controller = new AbortController();
    let error: unknown = null;
    try {
      for await (const c of makeChat().stream(ask(), { signal: controller.signal }))
        if (c.contentDelta) controller.abort();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RunCancelledError);
  });

  it("imports the SDK only lazily", () => {
    const source = readFileSync(new URL("./anthropic-chat.ts", import.meta.url), "utf8");
    expect(source.match(/^import\s+(?!type\b)[^;]*from\s+"@anthropic-ai\/sdk[^"]*"/gm)).toBeNull();
    expect(source).toContain('import("@anthropic-ai/sdk")');
  });

  it("checks its options", () => {
    expect(() => new AnthropicChat({ model: "" })).toThrow(/needs a model name/);
    expect(() => new AnthropicChat({ model: "m", maxTokens: 0 })).toThrow(/maxTokens/);
  });
});

// ---- Conformance ---------------------------------------------------------------------------

const CONFORMANCE_SIGNATURE =
  "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+6AP3TIoXY7Hu1gKl0aN3MJABUz0HFa9ifXVbmjC0TFjb0=";

/** A thinking block with its signature, then the answer, as Anthropic sends them. */
function thinkingMessage(thinking: string, text: string) {
  return message(
    [
      { type: "thinking", thinking, signature: CONFORMANCE_SIGNATURE },
      { type: "text", text },
    ],
    "end_turn",
  );
}

function thinkingEvents(thinking: string, text: string) {
  return [
    messageStart,
    ev("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "" } }),
    ...pieces(thinking, 12).map((t) =>
      ev("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: t } }),
    ),
    ev("content_block_delta", {
      index: 0,
      delta: { type: "signature_delta", signature: CONFORMANCE_SIGNATURE },
    }),
    ev("content_block_stop", { index: 0 }),
    ...textBlock(1, text),
    messageDelta("end_turn"),
  ];
}

function scenarioResponder(scenario: ConformanceScenario) {
  return (req: RecordedRequest): ReplayResponse => {
    const streaming = (req.json as { stream?: boolean } | null)?.stream === true;
    switch (scenario.kind) {
      case "text":
        return streaming ? sse(textEvents(scenario.content)) : json(textMessage(scenario.content));
      case "toolCalls":
        if (streaming) return sse(toolEvents(scenario.calls));
        // Invalid argument text can only reach a client through a stream; a JSON answer holds
        // parsed `input`, so replay the invalid case as a string input, which is not an object.
        return json(
          message(
            scenario.calls.map((c) => {
              let input: unknown;
              try {
                input = JSON.parse(c.argumentsJson);
              } catch {
                input = c.argumentsJson;
              }
              return { type: "tool_use", id: c.id, name: c.name, input };
            }),
            "tool_use",
          ),
        );
      case "reasoning":
        return streaming
          ? sse(thinkingEvents(scenario.thinking, scenario.content))
          : json(thinkingMessage(scenario.thinking, scenario.content));
      case "httpError":
        return httpError(scenario.status);
      case "stall":
        return streaming
          ? {
              ...sse([messageStart, ...textBlock(0, scenario.content).slice(0, 2)], false),
              hang: true,
            }
          : { hang: true };
    }
  };
}

describeChatConformance(
  "AnthropicChat",
  (scenario) => {
    server.reset();
    server.fallback = scenarioResponder(scenario);
    return makeChat({ maxRetries: 1 });
  },
  { parts: { provider: "anthropic", lastRequestBody: () => server.requests.at(-1)?.json } },
);

// ---- The seed order agent ------------------------------------------------------------------

describe("AnthropicChat with the seed order agent", () => {
  itRunsSeedOrderAgent(
    (turns) => {
      server.reset();
      server.enqueue(...turns.map(scenarioResponder));
      return makeChat();
    },
    (streamed) => {
      expect(server.requests).toHaveLength(2);
      const second = server.requests[1]!.json as Record<string, unknown>;
      expect(second.stream).toBe(streamed);
      expect(second.system).toBe("You answer questions about orders.");
      expect(second.messages).toEqual([
        { role: "user", content: "Where is order A-1001?" },
        {
          role: "assistant",
          content: [
            {
              type: "tool_use",
              id: "call_1",
              name: "get_order_status",
              input: { orderId: "A-1001" },
            },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: '{"result":"shipped"}' },
          ],
        },
      ]);
    },
  );
});
