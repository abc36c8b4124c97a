import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assembleStream } from "../../chat/assemble-stream.js";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../../chat/messages.js";
import { ChatRequest, type ChatStreamChunk } from "../../chat/types.js";
import { ModelProviderError, RunCancelledError } from "../../errors/index.js";
import { loadPeer } from "../internal/call.js";
import { type ConformanceScenario, describeChatConformance } from "../testing/conformance.js";
import {
  type RecordedRequest,
  type ReplayResponse,
  ReplayServer,
  sseEvents,
} from "../testing/replay-server.js";
import { itRunsSeedOrderAgent } from "../testing/seed-agent.js";
import { OpenAIChat, schemaName } from "./index.js";

// ---- Wire format of the Chat Completions API, as documented -------------------------------

const MODEL = "gpt-4o-mini-2024-07-18";
const CREATED = 1741569952;
const USAGE = {
  prompt_tokens: 19,
  completion_tokens: 10,
  total_tokens: 29,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};

/** {@link USAGE} in the one usage shape. */
const MAPPED_USAGE = {
  inputTokens: 19,
  outputTokens: 10,
  totalTokens: 29,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  raw: USAGE,
};

interface WireCall {
  id: string;
  name: string;
  argumentsJson: string;
}

function completion(message: Record<string, unknown>, finishReason: string) {
  return {
    id: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    object: "chat.completion",
    created: CREATED,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: null, refusal: null, annotations: [], ...message },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: USAGE,
    service_tier: "default",
    system_fingerprint: "fp_06737a9306",
  };
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): ReplayResponse {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body, null, 2),
  };
}

const textCompletion = (content: string) => completion({ content }, "stop");
const toolCompletion = (calls: readonly WireCall[]) =>
  completion(
    {
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.argumentsJson },
      })),
    },
    "tool_calls",
  );

function chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    id: "chatcmpl-123",
    object: "chat.completion.chunk",
    created: CREATED,
    model: MODEL,
    service_tier: "default",
    system_fingerprint: "fp_44709d6fcb",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  };
}
const usageChunk = {
  id: "chatcmpl-123",
  object: "chat.completion.chunk",
  created: CREATED,
  model: MODEL,
  service_tier: "default",
  system_fingerprint: "fp_44709d6fcb",
  choices: [],
  usage: USAGE,
};

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sse(datas: unknown[], done = true): ReplayResponse {
  return {
    headers: { "content-type": "text/event-stream; charset=utf-8" },
    body: [...sseEvents(datas.map((data) => ({ data }))), ...(done ? ["data: [DONE]\n\n"] : [])],
  };
}

function textEvents(content: string): unknown[] {
  return [
    chunk({ role: "assistant", content: "", refusal: null }),
    ...pieces(content, 6).map((p) => chunk({ content: p })),
    chunk({}, "stop"),
    usageChunk,
  ];
}

function toolEvents(calls: readonly WireCall[]): unknown[] {
  const events: unknown[] = [chunk({ role: "assistant", content: null })];
  calls.forEach((c, index) => {
    events.push(
      chunk({
        tool_calls: [
          { index, id: c.id, type: "function", function: { name: c.name, arguments: "" } },
        ],
      }),
    );
    for (const p of pieces(c.argumentsJson, 4))
      events.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  events.push(chunk({}, "tool_calls"), usageChunk);
  return events;
}

const errorBody = (message: string, type: string, code: string | null) => ({
  error: { message, type, param: null, code },
});
const ERR_401 = errorBody(
  "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.",
  "invalid_request_error",
  "invalid_api_key",
);
const ERR_429 = errorBody(
  "Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1.",
  "requests",
  "rate_limit_exceeded",
);
const ERR_500 = errorBody(
  "The server had an error while processing your request. Sorry about that!",
  "server_error",
  null,
);
const httpError = (status: number, headers: Record<string, string> = {}) =>
  json(status === 401 ? ERR_401 : status === 429 ? ERR_429 : ERR_500, status, headers);

// ---- Setup ---------------------------------------------------------------------------------

let server: ReplayServer;
beforeAll(async () => {
  server = await ReplayServer.start();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

function makeChat(options: Partial<ConstructorParameters<typeof OpenAIChat>[0]> = {}) {
  return new OpenAIChat({
    model: "gpt-4o-mini",
    apiKey: "sk-test",
    baseURL: `${server.url}/v1`,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 5,
    ...options,
  });
}

const ask = (content = "Where is order A-1001?") =>
  ChatRequest({ messages: [HumanMessage({ content })] });

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

describe("OpenAIChat failures", () => {
  it("retries a 429 after the retry-after header, then succeeds", async () => {
    server.enqueue(httpError(429, { "retry-after": "1" }), json(textCompletion("ok")));
    const started = Date.now();
    const response = await makeChat({ initialRetryDelayMs: 1 }).complete(ask());
    expect(response.content).toBe("ok");
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
  });

  it("honours retry-after-ms over its own back-off", async () => {
    server.enqueue(httpError(429, { "retry-after-ms": "150" }), json(textCompletion("ok")));
    const started = Date.now();
    await makeChat({ initialRetryDelayMs: 20_000, maxRetryDelayMs: 20_000 }).complete(ask());
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(5000);
  });

  it("gives up on 429 after maxRetries with a retryable ModelProviderError", async () => {
    server.fallback = httpError(429);
    const error = await failure(makeChat({ maxRetries: 2 }).complete(ask()));
    expect(server.requests).toHaveLength(3);
    expect(error.provider).toBe("openai");
    expect(error.status).toBe(429);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("Rate limit reached for gpt-4o-mini");
    expect(error.message).toContain("gave up after 3 attempts");
  });

  it("does not retry a 401", async () => {
    server.fallback = httpError(401);
    const error = await failure(makeChat().complete(ask()));
    expect(server.requests).toHaveLength(1);
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("Incorrect API key provided");
  });

  it("retries a 500 and a stream that cannot start, with maxRetries 0 meaning one attempt", async () => {
    server.enqueue(httpError(500), sse(textEvents("ok")));
    expect((await assembleStream(makeChat().stream(ask()))).content).toBe("ok");
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.fallback = httpError(500);
    const error = await failure(makeChat({ maxRetries: 0 }).complete(ask()));
    expect(server.requests).toHaveLength(1);
    expect([error.status, error.retryable]).toEqual([500, true]);
  });

  it("raises an error event in the middle of a stream after the chunks before it", async () => {
    server.enqueue(
      sse([chunk({ role: "assistant", content: "" }), chunk({ content: "Order" }), ERR_500], false),
    );
    const seen: ChatStreamChunk[] = [];
    const error = await failure(
      (async () => {
        for await (const c of makeChat().stream(ask())) seen.push(c);
      })(),
    );
    expect(stripRaw(seen)).toEqual([{ contentDelta: "Order", model: MODEL }]);
    expect(error.status).toBeUndefined();
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("The server had an error while processing your request");
    expect(server.requests).toHaveLength(1);
  });

  it("raises a retryable error when the connection breaks off mid-stream", async () => {
    server.enqueue({
      ...sse(textEvents("Order A-1001 has shipped.").slice(0, 3), false),
      breakOff: true,
    });
    const error = await failure(collect(makeChat({ maxRetries: 0 }).stream(ask())));
    expect(error.retryable).toBe(true);
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/^The OpenAI stream broke off: terminated/);
  });

  it("raises a retryable error when the stream ends before a finish reason", async () => {
    server.enqueue(sse(textEvents("Order A-1001 has shipped.").slice(0, 3), false));
    const error = await failure(collect(makeChat().stream(ask())));
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(
      "The OpenAI stream broke off: it ended before the model finished (no finish_reason)",
    );
  });

  it("times out a call whose answer does not come, and a stream that stalls", async () => {
    server.fallback = { headers: { "content-type": "application/json" }, hang: true };
    const error = await failure(makeChat({ timeoutMs: 100, maxRetries: 1 }).complete(ask()));
    expect(error.retryable).toBe(true);
    expect(error.status).toBeUndefined();
    expect(error.message).toBe(
      "The openai call timed out after 100 ms (timeoutMs) (gave up after 2 attempts)",
    );
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.enqueue({ ...sse(textEvents("Order A-1001").slice(0, 2), false), hang: true });
    const seen: ChatStreamChunk[] = [];
    const streamError = await failure(
      (async () => {
        for await (const c of makeChat({ timeoutMs: 150, maxRetries: 0 }).stream(ask()))
          seen.push(c);
      })(),
    );
    expect(seen.map((c) => c.contentDelta)).toEqual(["Order "]);
    expect(streamError.message).toBe("The openai call timed out after 150 ms (timeoutMs)");
  });

  it("counts only the wait for the provider against timeoutMs, not a slow reader", async () => {
    server.enqueue(sse(textEvents("Order A-1001")));
    const seen: string[] = [];
    for await (const c of makeChat({ timeoutMs: 100, maxRetries: 0 }).stream(ask())) {
      if (c.contentDelta) seen.push(c.contentDelta);
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(seen).toEqual(["Order ", "A-1001"]);
  });

  it("raises a retryable connection error when nothing listens", async () => {
    const closed = await ReplayServer.start();
    const url = closed.url;
    await closed.close();
    const error = await failure(
      new OpenAIChat({ model: "m", apiKey: "k", baseURL: url, maxRetries: 0 }).complete(ask()),
    );
    expect(error.retryable).toBe(true);
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/^Could not reach OpenAI/);
  });

  it("cancels a stream in the middle through the signal", async () => {
    server.enqueue({ ...sse(textEvents("Order A-1001").slice(0, 2), false), hang: true });
    const controller = new AbortController();
    const started = Date.now();
    let error: unknown = null;
    try {
      for await (const c of makeChat().stream(ask(), { signal: controller.signal }))
        if (c.contentDelta) controller.abort(new Error("user left"));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RunCancelledError);
    expect((error as RunCancelledError).cause).toEqual(new Error("user left"));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("waits for no back-off once cancelled", async () => {
    server.fallback = httpError(503);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await expect(
      makeChat({ initialRetryDelayMs: 60_000, maxRetryDelayMs: 60_000 }).complete(ask(), {
        signal: controller.signal,
      }),
    ).rejects.toBeInstanceOf(RunCancelledError);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.requests).toHaveLength(1);
  });
});

// ---- Loading the SDK -----------------------------------------------------------------------

describe("OpenAIChat and the optional openai package", () => {
  it("imports openai only lazily (type imports and a dynamic import)", () => {
    const source = readFileSync(new URL("./openai-chat.ts", import.meta.url), "utf8");
    const staticImports = source.match(/^import\s+(?!type\b)[^;]*from\s+"openai[^"]*"/gm);
    expect(staticImports).toBeNull();
    expect(source).toContain('import("openai")');
  });

  it("a missing SDK says which package to install", async () => {
    const missing = "nodestep-missing-sdk-for-test";
    const error = await failure(loadPeer(missing, "OpenAIChat", "openai", () => import(missing)));
    expect(error.message).toBe(
      `OpenAIChat needs the "${missing}" package, which is not installed: run \`npm install ${missing}\``,
    );
    expect(error.retryable).toBe(false);
    expect(error.provider).toBe("openai");
  });

  it("checks its options", () => {
    expect(() => new OpenAIChat({ model: "" })).toThrow(/needs a model name/);
    expect(() => new OpenAIChat({ model: "m", maxRetries: -1 })).toThrow(/maxRetries/);
  });
});

// ---- Conformance ---------------------------------------------------------------------------

function scenarioResponder(scenario: ConformanceScenario) {
  return (req: RecordedRequest): ReplayResponse => {
    const streaming = (req.json as { stream?: boolean } | null)?.stream === true;
    switch (scenario.kind) {
      case "text":
        return streaming
          ? sse(textEvents(scenario.content))
          : json(textCompletion(scenario.content));
      case "toolCalls":
        return streaming ? sse(toolEvents(scenario.calls)) : json(toolCompletion(scenario.calls));
      case "reasoning":
        // reasoning_content, as OpenAI-compatible servers (DeepSeek, vLLM) send it.
        return streaming
          ? sse([
              chunk({ role: "assistant", content: null, reasoning_content: "" }),
              ...pieces(scenario.thinking, 12).map((p) => chunk({ reasoning_content: p })),
              ...textEvents(scenario.content).slice(1),
            ])
          : json(
              completion(
                { content: scenario.content, reasoning_content: scenario.thinking },
                "stop",
              ),
            );
      case "httpError":
        return httpError(scenario.status);
      case "stall":
        return streaming
          ? { ...sse([chunk({ role: "assistant", content: scenario.content })], false), hang: true }
          : { hang: true };
    }
  };
}

describeChatConformance(
  "OpenAIChat",
  (scenario) => {
    server.reset();
    server.fallback = scenarioResponder(scenario);
    return makeChat({ maxRetries: 1 });
  },
  {
    parts: {
      provider: "openai",
      lastRequestBody: () => server.requests.at(-1)?.json,
      unsupported: ["toolResultImage"],
      reasoning: "receiveOnly",
    },
  },
);

// ---- The seed order agent ------------------------------------------------------------------

describe("OpenAIChat with the seed order agent", () => {
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
      expect((second.tools as Array<{ function: { name: string } }>)[0]!.function.name).toBe(
        "get_order_status",
      );
      expect(second.messages).toEqual([
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
      ]);
    },
  );
});
