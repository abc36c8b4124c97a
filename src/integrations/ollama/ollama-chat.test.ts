import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { assembleStream } from "../../chat/assemble-stream.js";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../../chat/messages.js";
import { ChatRequest, type ChatStreamChunk, type ToolDefinition } from "../../chat/types.js";
import { RunCancelledError } from "../../errors/index.js";
import {
  collect,
  failure,
  pieces,
  server,
  setUpReplayServer,
  stripRaw,
} from "../testing/chat-wire.fixture.js";
import { type ConformanceScenario, describeChatConformance } from "../testing/conformance.js";
import {
  ndjsonLines,
  type RecordedRequest,
  type ReplayResponse,
  ReplayServer,
} from "../testing/replay-server.js";
import { itRunsSeedOrderAgent } from "../testing/seed-agent.js";
import { OllamaChat } from "./index.js";

// ---- Wire format of /api/chat, as documented ------------------------------------------------

const MODEL = "llama3.2";
const CREATED = "2023-12-12T14:13:43.416799Z";
const FINAL_STATS = {
  total_duration: 5191566416,
  load_duration: 2154458,
  prompt_eval_count: 26,
  prompt_eval_duration: 383809000,
  eval_count: 298,
  eval_duration: 4799921000,
};

/** {@link FINAL_STATS} in the one usage shape. */
const MAPPED_USAGE = { inputTokens: 26, outputTokens: 298, totalTokens: 324, raw: FINAL_STATS };

interface WireCall {
  name: string;
  argumentsJson: string;
}

const line = (
  message: Record<string, unknown>,
  done = false,
  extra: Record<string, unknown> = {},
) => ({
  model: MODEL,
  created_at: CREATED,
  message: { role: "assistant", content: "", ...message },
  done,
  ...extra,
});
const finalLine = (doneReason = "stop") =>
  line({}, true, { done_reason: doneReason, ...FINAL_STATS });
const wireCalls = (calls: readonly WireCall[]) =>
  calls.map((c) => ({ function: { name: c.name, arguments: JSON.parse(c.argumentsJson) } }));

function json(body: unknown, status = 200, headers: Record<string, string> = {}): ReplayResponse {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
    body: JSON.stringify(body),
  };
}
function ndjson(objects: unknown[]): ReplayResponse {
  return { headers: { "content-type": "application/x-ndjson" }, body: ndjsonLines(objects) };
}

const textAnswer = (content: string) =>
  line({ content }, true, { done_reason: "stop", ...FINAL_STATS });
const toolAnswer = (calls: readonly WireCall[]) =>
  line({ tool_calls: wireCalls(calls) }, true, { done_reason: "stop", ...FINAL_STATS });

const textLines = (content: string) => [
  ...pieces(content, 6).map((p) => line({ content: p })),
  finalLine(),
];
// Ollama sends each tool call whole, often one per line.
const toolLines = (calls: readonly WireCall[]) => [
  ...calls.map((c) => line({ tool_calls: wireCalls([c]) })),
  finalLine(),
];

const httpError = (status: number, message: string, headers: Record<string, string> = {}) =>
  json({ error: message }, status, headers);
const statusError = (status: number) =>
  httpError(
    status,
    status === 401
      ? "unauthorized"
      : status === 429
        ? "too many requests"
        : "llama runner process has terminated: exit status 2",
  );

// ---- Setup ---------------------------------------------------------------------------------

setUpReplayServer();

function makeChat(options: Partial<ConstructorParameters<typeof OllamaChat>[0]> = {}) {
  return new OllamaChat({
    model: MODEL,
    host: server.url,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 5,
    ...options,
  });
}

const ask = () => ChatRequest({ messages: [HumanMessage({ content: "Where is order A-1001?" })] });

const TOOLS: ToolDefinition[] = [
  {
    name: "get_order_status",
    description: "Look up the shipping status of an order.",
    inputSchema: {
      type: "object",
      properties: { orderId: { type: "string" } },
      required: ["orderId"],
    },
  },
  {
    name: "cancel_order",
    description: "Cancel an order.",
    inputSchema: { type: "object", properties: {} },
  },
];

// ---- Request mapping -----------------------------------------------------------------------

describe("OllamaChat request mapping", () => {
  it("posts messages, tools, format and options to /api/chat", async () => {
    server.enqueue(json(textAnswer("ok")));
    const schema = {
      type: "object",
      properties: { status: { type: "string" } },
      required: ["status"],
    };
    await makeChat({ options: { temperature: 0 }, keepAlive: "5m" }).complete(
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
        ],
        tools: TOOLS,
        outputSchema: schema,
      }),
    );
    const [req] = server.requests as [RecordedRequest];
    expect([req.method, req.path]).toEqual(["POST", "/api/chat"]);
    expect(req.json).toEqual({
      model: MODEL,
      stream: false,
      messages: [
        { role: "system", content: "You answer questions about orders." },
        { role: "user", content: "Where is order A-1001?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { function: { name: "get_order_status", arguments: { orderId: "A-1001" } } },
          ],
        },
        { role: "tool", content: '{"result":"shipped"}', tool_name: "get_order_status" },
      ],
      tools: TOOLS.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.inputSchema },
      })),
      format: schema,
      options: { temperature: 0 },
      keep_alive: "5m",
    });
  });

  it("approximates toolChoice: none sends no tools, a name sends only that tool", () => {
    const chat = makeChat();
    const names = (toolChoice: string | null) =>
      (chat.toRequestBody(ChatRequest({ messages: [], tools: TOOLS, toolChoice })).tools ?? []).map(
        (t) => t.function.name,
      );
    expect(names("none")).toEqual([]);
    expect(names("cancel_order")).toEqual(["cancel_order"]);
    expect(names("required")).toEqual(["get_order_status", "cancel_order"]);
    expect(names(null)).toEqual(["get_order_status", "cancel_order"]);
  });
});

// ---- Responses -----------------------------------------------------------------------------

describe("OllamaChat.complete", () => {
  it("maps a text answer, usage, model and raw", async () => {
    server.enqueue(json(textAnswer("Order A-1001 has shipped.")));
    expect(await makeChat().complete(ask())).toEqual({
      content: "Order A-1001 has shipped.",
      refusal: null,
      toolCalls: [],
      reasoning: [],
      finishReason: "stop",
      usage: MAPPED_USAGE,
      model: MODEL,
      raw: textAnswer("Order A-1001 has shipped."),
    });
  });

  it("gives parallel tool calls ids with one prefix per response", async () => {
    const calls = [
      { name: "get_order_status", argumentsJson: '{"orderId":"A-1001"}' },
      { name: "get_order_status", argumentsJson: '{"orderId":"B-2002"}' },
    ];
    server.enqueue(json(toolAnswer(calls)), json(toolAnswer(calls)));
    const first = await makeChat().complete(ask());
    const second = await makeChat().complete(ask());
    expect(first.finishReason).toBe("tool_calls");
    expect(first.content).toBeNull();
    expect(first.toolCalls.map((c) => [c.name, c.arguments, c.argumentsError])).toEqual([
      ["get_order_status", { orderId: "A-1001" }, null],
      ["get_order_status", { orderId: "B-2002" }, null],
    ]);
    const [a, b] = first.toolCalls.map((c) => c.id) as [string, string];
    expect(a).toMatch(/^call_[0-9a-f]{8}_0$/);
    expect(b).toBe(a.replace(/_0$/, "_1"));
    expect(second.toolCalls[0]!.id).not.toBe(a);
  });

  it("keeps an id the server sends, and a string argument text that is not JSON as argumentsError", async () => {
    server.enqueue(
      json(
        line(
          {
            tool_calls: [
              {
                id: "call_srv",
                function: { name: "get_order_status", arguments: { orderId: "A-1001" } },
              },
              { function: { name: "get_order_status", arguments: '{"orderId": "A-1' } },
            ],
          },
          true,
          { done_reason: "stop", ...FINAL_STATS },
        ),
      ),
    );
    const response = await makeChat().complete(ask());
    expect(response.toolCalls[0]!.id).toBe("call_srv");
    expect(response.toolCalls[1]!.id).toMatch(/^call_[0-9a-f]{8}_0$/);
    expect(response.toolCalls[1]!.arguments).toEqual({});
    expect(response.toolCalls[1]!.argumentsError).toMatch(/^Invalid JSON in tool arguments/);
  });

  it("reports done_reason length", async () => {
    server.enqueue(
      json(line({ content: "Order A-1001 has" }, true, { done_reason: "length", ...FINAL_STATS })),
    );
    expect((await makeChat().complete(ask())).finishReason).toBe("length");
  });
});

describe("OllamaChat.stream", () => {
  it("yields content per NDJSON line, then the finish reason and usage", async () => {
    server.enqueue(ndjson(textLines("Order A-1001 has shipped.")));
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
    expect(JSON.parse(server.requests[0]!.body).stream).toBe(true);
  });

  it("streams tool calls from separate lines as whole deltas that assemble", async () => {
    server.enqueue(
      ndjson(
        toolLines([
          { name: "get_order_status", argumentsJson: '{"orderId":"A-1001"}' },
          { name: "get_order_status", argumentsJson: '{"orderId":"B-2002"}' },
        ]),
      ),
    );
    const chunks = await collect(makeChat().stream(ask()));
    const deltas = chunks.flatMap((c) => (c.toolCallDelta ? [c.toolCallDelta] : []));
    expect(deltas.map((d) => [d.index, d.name, d.arguments])).toEqual([
      [0, "get_order_status", '{"orderId":"A-1001"}'],
      [1, "get_order_status", '{"orderId":"B-2002"}'],
    ]);
    const response = await assembleStream(
      (async function* () {
        yield* chunks;
      })(),
    );
    expect(response.finishReason).toBe("tool_calls");
    expect(response.toolCalls.map((c) => c.arguments)).toEqual([
      { orderId: "A-1001" },
      { orderId: "B-2002" },
    ]);
    expect(response.toolCalls[1]!.id).toBe(response.toolCalls[0]!.id.replace(/_0$/, "_1"));
  });
});

// ---- Failures ------------------------------------------------------------------------------

describe("OllamaChat failures", () => {
  it("a model that is not pulled is a 404, not retried", async () => {
    server.fallback = httpError(404, 'model "llama9" not found, try pulling it first');
    const error = await failure(makeChat().complete(ask()));
    expect([error.provider, error.status, error.retryable]).toEqual(["ollama", 404, false]);
    expect(error.message).toBe(
      'Ollama answered HTTP 404: model "llama9" not found, try pulling it first',
    );
    expect(server.requests).toHaveLength(1);
  });

  it("retries 429 after retry-after and 500, then streams", async () => {
    server.enqueue(
      httpError(429, "too many requests", { "retry-after": "0.2" }),
      statusError(500),
      ndjson(textLines("ok")),
    );
    const started = Date.now();
    expect((await assembleStream(makeChat({ initialRetryDelayMs: 1 }).stream(ask()))).content).toBe(
      "ok",
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(server.requests).toHaveLength(3);
  });

  it("an error line in the middle of the stream raises a retryable error", async () => {
    server.enqueue(
      ndjson([
        line({ content: "Order" }),
        { error: "an error was encountered while running the model" },
      ]),
    );
    const seen: ChatStreamChunk[] = [];
    const error = await failure(
      (async () => {
        for await (const c of makeChat().stream(ask())) seen.push(c);
      })(),
    );
    expect(seen.map((c) => c.contentDelta)).toEqual(["Order"]);
    expect(error.message).toBe(
      "Ollama reported an error: an error was encountered while running the model",
    );
    expect([error.status, error.retryable]).toEqual([undefined, true]);
  });

  it("a stream that ends or breaks off before the done line raises a retryable error", async () => {
    server.enqueue(ndjson([line({ content: "Order" })]));
    const ended = await failure(collect(makeChat().stream(ask())));
    expect(ended.message).toBe(
      "The Ollama stream broke off: Did not receive done or success response in stream.",
    );
    expect(ended.retryable).toBe(true);
    server.enqueue({ ...ndjson([line({ content: "Order" })]), breakOff: true });
    const broken = await failure(collect(makeChat().stream(ask())));
    expect(broken.message).toMatch(/^The Ollama stream broke off: terminated/);
  });

  it("an unreachable server is a retryable connection error", async () => {
    const closed = await ReplayServer.start();
    const url = closed.url;
    await closed.close();
    const error = await failure(
      new OllamaChat({ model: MODEL, host: url, maxRetries: 0 }).complete(ask()),
    );
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(
      new RegExp(
        `^Could not reach Ollama at ${url}: fetch failed .*Is \`ollama serve\` running\\?$`,
      ),
    );
  });

  it("times out a silent server and cancels mid-stream", async () => {
    server.fallback = { hang: true };
    const timedOut = await failure(makeChat({ timeoutMs: 100, maxRetries: 0 }).complete(ask()));
    expect(timedOut.message).toBe("The ollama call timed out after 100 ms (timeoutMs)");
    server.reset();
    server.enqueue({ ...ndjson([line({ content: "Order" })]), hang: true });
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
    const source = readFileSync(new URL("./ollama-chat.ts", import.meta.url), "utf8");
    expect(source.match(/^import\s+(?!type\b)[^;]*from\s+"ollama[^"]*"/gm)).toBeNull();
    expect(source).toContain('import("ollama")');
  });
});

// ---- Conformance ---------------------------------------------------------------------------

function scenarioResponder(scenario: ConformanceScenario) {
  return (req: RecordedRequest): ReplayResponse => {
    const streaming = (req.json as { stream?: boolean } | null)?.stream === true;
    switch (scenario.kind) {
      case "text":
        return streaming ? ndjson(textLines(scenario.content)) : json(textAnswer(scenario.content));
      case "toolCalls":
        return streaming ? ndjson(toolLines(scenario.calls)) : json(toolAnswer(scenario.calls));
      case "reasoning":
        return streaming
          ? ndjson([
              ...pieces(scenario.thinking, 12).map((p) => line({ thinking: p })),
              ...textLines(scenario.content),
            ])
          : json(
              line({ content: scenario.content, thinking: scenario.thinking }, true, {
                done_reason: "stop",
                ...FINAL_STATS,
              }),
            );
      case "httpError":
        return statusError(scenario.status);
      case "stall":
        return streaming
          ? { ...ndjson([line({ content: scenario.content })]), hang: true }
          : { hang: true };
    }
  };
}

describeChatConformance(
  "OllamaChat",
  (scenario) => {
    server.reset();
    server.fallback = scenarioResponder(scenario);
    return makeChat({ maxRetries: 1 });
  },
  {
    providerToolCallIds: false,
    malformedArguments: false,
    parts: {
      provider: "ollama",
      lastRequestBody: () => server.requests.at(-1)?.json,
      unsupported: ["file"],
    },
  },
);

// ---- The seed order agent ------------------------------------------------------------------

describe("OllamaChat with the seed order agent", () => {
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
      expect(second.messages).toEqual([
        { role: "system", content: "You answer questions about orders." },
        { role: "user", content: "Where is order A-1001?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { function: { name: "get_order_status", arguments: { orderId: "A-1001" } } },
          ],
        },
        { role: "tool", content: '{"result":"shipped"}', tool_name: "get_order_status" },
      ]);
    },
  );
});
