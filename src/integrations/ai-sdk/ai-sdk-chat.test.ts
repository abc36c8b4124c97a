import { APICallError } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV3, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { assembleStream } from "../../chat/assemble-stream.js";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../../chat/messages.js";
import { ChatRequest, type ChatStreamChunk } from "../../chat/types.js";
import { ModelProviderError, RunCancelledError, UnsupportedPartError } from "../../errors/index.js";
import { type ConformanceScenario, describeChatConformance } from "../testing/conformance.js";
import { fromAISdk } from "./index.js";

const USAGE = {
  inputTokens: { total: 19, noCache: 15, cacheRead: 4, cacheWrite: 0 },
  outputTokens: { total: 10, text: 7, reasoning: 3 },
};
const MAPPED_USAGE = {
  inputTokens: 19,
  outputTokens: 10,
  totalTokens: 29,
  cachedInputTokens: 4,
  reasoningTokens: 3,
  raw: USAGE,
};
const stop = { unified: "stop", raw: "STOP" } as const;
const toolCallsFinish = { unified: "tool-calls", raw: "tool_calls" } as const;

type Part = Record<string, unknown> & { type: string };

function generateResult(scenario: ConformanceScenario) {
  if (scenario.kind === "toolCalls")
    return {
      content: scenario.calls.map((c) => ({
        type: "tool-call",
        toolCallId: c.id,
        toolName: c.name,
        input: c.argumentsJson,
      })),
      finishReason: toolCallsFinish,
      usage: USAGE,
      warnings: [],
    };
  if (scenario.kind === "reasoning")
    return {
      content: [
        {
          type: "reasoning",
          text: scenario.thinking,
          providerMetadata: { mock: { signature: "c2lnLW1vY2s=" } },
        },
        { type: "text", text: scenario.content },
      ],
      finishReason: stop,
      usage: USAGE,
      warnings: [],
    };
  return {
    content: [{ type: "text", text: scenario.kind === "text" ? scenario.content : "" }],
    finishReason: stop,
    usage: USAGE,
    warnings: [],
  };
}

function streamParts(scenario: ConformanceScenario): Part[] {
  if (scenario.kind === "toolCalls")
    return [
      { type: "stream-start", warnings: [] },
      ...scenario.calls.flatMap((c) => [
        { type: "tool-input-start", id: c.id, toolName: c.name },
        { type: "tool-input-delta", id: c.id, delta: c.argumentsJson.slice(0, 5) },
        { type: "tool-input-delta", id: c.id, delta: c.argumentsJson.slice(5) },
        { type: "tool-input-end", id: c.id },
        { type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.argumentsJson },
      ]),
      { type: "finish", finishReason: toolCallsFinish, usage: USAGE },
    ];
  const text = scenario.kind === "text" || scenario.kind === "reasoning" ? scenario.content : "";
  const thinking: Part[] =
    scenario.kind === "reasoning"
      ? [
          { type: "reasoning-start", id: "r0" },
          { type: "reasoning-delta", id: "r0", delta: scenario.thinking.slice(0, 9) },
          { type: "reasoning-delta", id: "r0", delta: scenario.thinking.slice(9) },
          {
            type: "reasoning-end",
            id: "r0",
            providerMetadata: { mock: { signature: "c2lnLW1vY2s=" } },
          },
        ]
      : [];
  return [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: "r1", modelId: "mock-model-001" },
    ...thinking,
    { type: "text-start", id: "t0" },
    { type: "text-delta", id: "t0", delta: text.slice(0, 6) },
    { type: "text-delta", id: "t0", delta: text.slice(6) },
    { type: "text-end", id: "t0" },
    { type: "finish", finishReason: stop, usage: USAGE },
  ];
}

function apiError(status: number, headers: Record<string, string> = {}) {
  return new APICallError({
    message: `Bad status ${status}`,
    url: "http://127.0.0.1/v1/chat",
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: headers,
    isRetryable: status === 429 || status >= 500,
  });
}

const never = () => new Promise<never>(() => {});

/** The prompt of the latest call of the latest scenario model (the parts suite's "body"). */
let lastModel: MockLanguageModelV4 | null = null;
const lastPrompt = () => {
  const calls = [...(lastModel?.doGenerateCalls ?? []), ...(lastModel?.doStreamCalls ?? [])];
  return calls.length === 0 ? undefined : JSON.parse(JSON.stringify(calls.at(-1)!.prompt));
};

function scenarioModel(scenario: ConformanceScenario, Mock = MockLanguageModelV4) {
  const model = new Mock({
    provider: "mock.chat",
    modelId: "mock-model",
    doGenerate: async () => {
      if (scenario.kind === "httpError") throw apiError(scenario.status);
      if (scenario.kind === "stall") return never();
      return generateResult(scenario) as never;
    },
    doStream: async () => {
      if (scenario.kind === "httpError") throw apiError(scenario.status);
      if (scenario.kind === "stall")
        return {
          stream: new ReadableStream({
            start(c) {
              c.enqueue({ type: "text-delta", id: "t0", delta: scenario.content });
            },
          }),
        } as never;
      return { stream: convertArrayToReadableStream(streamParts(scenario)) } as never;
    },
  });
  lastModel = model;
  return model;
}

describeChatConformance(
  "fromAISdk (MockLanguageModelV4)",
  (s) => fromAISdk(scenarioModel(s), { maxRetries: 0 }),
  {
    parts: {
      provider: "mock.chat",
      reasoningProvider: "ai-sdk/mock.chat",
      lastRequestBody: lastPrompt,
      unsupported: ["toolResultImage"], // the default for a provider not in the table
    },
  },
);
describeChatConformance("fromAISdk (MockLanguageModelV3)", (s) =>
  fromAISdk(scenarioModel(s, MockLanguageModelV3 as never), { maxRetries: 0 }),
);

const request = (init: Partial<ChatRequest> = {}) =>
  ChatRequest({ messages: [HumanMessage({ content: "Hi" })], ...init });

describe("fromAISdk mapping", () => {
  it("sends messages, parts, tools, tool choice, structured output and reasoning as V4 call options", async () => {
    const model = scenarioModel({ kind: "text", content: "ok" });
    // A mock provider that takes a PDF by URL (the default rules, for providers like
    // @ai-sdk/openai-compatible, refuse one in a user message).
    const chat = fromAISdk(model, {
      settings: { temperature: 0, providerOptions: { mock: { x: 1 } } },
      unsupportedParts: [{ in: "toolResult" }, { in: "assistant" }],
    });
    await chat.complete(
      ChatRequest({
        messages: [
          SystemMessage({ content: "Be brief." }),
          HumanMessage({
            content: [
              { type: "text", text: "What is this?" },
              { type: "image", data: "aGk=", mediaType: "image/png" },
              {
                type: "file",
                url: "https://x.test/a.pdf",
                mediaType: "application/pdf",
                name: "a.pdf",
              },
            ],
          }),
          AIMessage({
            reasoning: [
              {
                type: "reasoning",
                text: "look",
                provider: "ai-sdk/mock.chat",
                data: { mock: { sig: "s1" } },
              },
              { type: "reasoning", text: "other", provider: "anthropic", data: null },
            ],
            toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "a" }, argumentsError: null }],
          }),
          ToolMessage({ toolCallId: "c1", name: "lookup", content: "found" }),
        ],
        tools: [{ name: "lookup", description: "Look up.", inputSchema: { type: "object" } }],
        toolChoice: "lookup",
        outputSchema: { title: "Answer", type: "object" },
        reasoning: { effort: "low" },
      }),
    );
    const sent = model.doGenerateCalls[0]!;
    expect({ ...sent, abortSignal: undefined }).toEqual({
      temperature: 0,
      providerOptions: { mock: { x: 1 } },
      abortSignal: undefined,
      prompt: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "file", mediaType: "image/png", data: { type: "data", data: "aGk=" } },
            {
              type: "file",
              mediaType: "application/pdf",
              data: { type: "url", url: new URL("https://x.test/a.pdf") },
              filename: "a.pdf",
            },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "look", providerOptions: { mock: { sig: "s1" } } },
            { type: "tool-call", toolCallId: "c1", toolName: "lookup", input: { q: "a" } },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c1",
              toolName: "lookup",
              output: { type: "text", value: "found" },
            },
          ],
        },
      ],
      tools: [
        {
          type: "function",
          name: "lookup",
          description: "Look up.",
          inputSchema: { type: "object" },
        },
      ],
      toolChoice: { type: "tool", toolName: "lookup" },
      responseFormat: { type: "json", schema: { title: "Answer", type: "object" }, name: "Answer" },
      reasoning: "low",
    });
    expect(sent.abortSignal).toBeInstanceOf(AbortSignal);
  });

  it("maps reasoning, files, usage and the model id of a generate result", async () => {
    const model = new MockLanguageModelV4({
      provider: "mock.chat",
      modelId: "mock-model",
      doGenerate: {
        content: [
          { type: "reasoning", text: "Think.", providerMetadata: { mock: { signature: "sig" } } },
          { type: "text", text: "Here: " },
          {
            type: "file",
            mediaType: "image/png",
            data: { type: "data", data: new Uint8Array([104, 105]) },
          },
        ],
        finishReason: { unified: "length", raw: "MAX_TOKENS" },
        usage: USAGE,
        response: { modelId: "mock-model-002" },
        warnings: [],
      } as never,
    });
    const r = await fromAISdk(model).complete(request());
    expect({ ...r, raw: null }).toEqual({
      content: [
        { type: "text", text: "Here: " },
        { type: "image", data: "aGk=", mediaType: "image/png" },
      ],
      refusal: null,
      toolCalls: [],
      reasoning: [
        {
          type: "reasoning",
          text: "Think.",
          provider: "ai-sdk/mock.chat",
          data: { mock: { signature: "sig" } },
        },
      ],
      finishReason: "length",
      usage: MAPPED_USAGE,
      model: "mock-model-002",
      raw: null,
    });
  });

  it("streams reasoning deltas apart from the answer and assembles them", async () => {
    const model = new MockLanguageModelV4({
      provider: "mock.chat",
      modelId: "mock-model",
      doStream: {
        stream: convertArrayToReadableStream([
          { type: "reasoning-start", id: "r0" },
          { type: "reasoning-delta", id: "r0", delta: "Th" },
          { type: "reasoning-delta", id: "r0", delta: "ink." },
          { type: "reasoning-end", id: "r0", providerMetadata: { mock: { signature: "sig" } } },
          { type: "text-delta", id: "t0", delta: "Done." },
          { type: "finish", finishReason: stop, usage: USAGE },
        ]),
      } as never,
    });
    const chunks: ChatStreamChunk[] = [];
    for await (const c of fromAISdk(model).stream(request())) chunks.push(c);
    expect(chunks.map(({ raw: _r, ...c }) => c)).toEqual([
      { reasoningDelta: { index: 0, provider: "ai-sdk/mock.chat" } },
      { reasoningDelta: { index: 0, provider: "ai-sdk/mock.chat", text: "Th" } },
      { reasoningDelta: { index: 0, provider: "ai-sdk/mock.chat", text: "ink." } },
      {
        reasoningDelta: {
          index: 0,
          provider: "ai-sdk/mock.chat",
          data: { mock: { signature: "sig" } },
        },
      },
      { contentDelta: "Done." },
      { finishReason: "stop", usage: MAPPED_USAGE },
    ]);
    const assembled = await assembleStream(
      (async function* () {
        yield* chunks;
      })(),
    );
    expect(assembled.reasoning).toEqual([
      {
        type: "reasoning",
        text: "Think.",
        provider: "ai-sdk/mock.chat",
        data: { mock: { signature: "sig" } },
      },
    ]);
    expect(assembled.content).toBe("Done.");
  });

  it("maps an APICallError's status, retryable flag and Retry-After; retries it maxRetries times", async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      provider: "mock.chat",
      modelId: "mock-model",
      doGenerate: async () => {
        calls++;
        throw apiError(429, { "Retry-After": "0" });
      },
    });
    const error = await fromAISdk(model, { maxRetries: 2 })
      .complete(request())
      .catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as ModelProviderError).message).toBe(
      "AI SDK model mock.chat/mock-model call failed (HTTP 429): Bad status 429 (gave up after 3 attempts)",
    );
    expect((error as ModelProviderError).status).toBe(429);
    expect((error as ModelProviderError).retryable).toBe(true);
    const once = await fromAISdk(model, { maxRetries: 0 })
      .complete(request())
      .catch((e: unknown) => e);
    expect((once as ModelProviderError).retryAfterMs).toBe(0);
  });

  it("a stream that ends without a finish part is a retryable ModelProviderError", async () => {
    const model = new MockLanguageModelV4({
      doStream: {
        stream: convertArrayToReadableStream([{ type: "text-delta", id: "t", delta: "x" }]),
      } as never,
    });
    const chunks: ChatStreamChunk[] = [];
    const error = await (async () => {
      for await (const c of fromAISdk(model).stream(request())) chunks.push(c);
    })().catch((e: unknown) => e);
    expect(chunks.map((c) => c.contentDelta)).toEqual(["x"]);
    expect((error as ModelProviderError).message).toBe(
      "The AI SDK model mock-provider/mock-model-id stream broke off: it ended before a finish part",
    );
    expect((error as ModelProviderError).retryable).toBe(true);
  });

  it("an error stream part fails the stream; a time-out is a retryable ModelProviderError", async () => {
    const model = new MockLanguageModelV4({
      doStream: {
        stream: convertArrayToReadableStream([{ type: "error", error: apiError(503) }]),
      } as never,
      doGenerate: never,
    });
    const error = await (async () => {
      for await (const _ of fromAISdk(model).stream(request()));
    })().catch((e: unknown) => e);
    expect((error as ModelProviderError).status).toBe(503);
    const timeout = await fromAISdk(model, { timeoutMs: 20, maxRetries: 0 })
      .complete(request())
      .catch((e: unknown) => e);
    expect((timeout as ModelProviderError).message).toBe(
      "The mock-provider call timed out after 20 ms (timeoutMs)",
    );
    expect((timeout as ModelProviderError).retryable).toBe(true);
  });

  it("sends a tool result with media as a content output: V4 file parts, V3 image-data / image-url / file-data / file-url", async () => {
    const toolRequest = ChatRequest({
      messages: [
        HumanMessage({ content: "Chart it." }),
        AIMessage({
          toolCalls: [{ id: "c1", name: "chart", arguments: {}, argumentsError: null }],
        }),
        ToolMessage({
          toolCallId: "c1",
          name: "chart",
          content: [
            { type: "text", text: "Chart:" },
            { type: "image", data: "aGk=", mediaType: "image/png" },
            { type: "image", url: "https://x.test/c.png" },
            { type: "file", data: "JVBE", mediaType: "application/pdf", name: "r.pdf" },
            { type: "file", url: "https://x.test/r.pdf", mediaType: "application/pdf" },
            { type: "audio", data: "UklG", format: "mp3" },
          ],
        }),
      ],
    });
    const v4 = scenarioModel({ kind: "text", content: "ok" });
    await fromAISdk(v4, { unsupportedParts: [] }).complete(toolRequest);
    expect(v4.doGenerateCalls[0]!.prompt[2]).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "chart",
          output: {
            type: "content",
            value: [
              { type: "text", text: "Chart:" },
              { type: "file", mediaType: "image/png", data: { type: "data", data: "aGk=" } },
              {
                type: "file",
                mediaType: "image/*",
                data: { type: "url", url: new URL("https://x.test/c.png") },
              },
              {
                type: "file",
                mediaType: "application/pdf",
                data: { type: "data", data: "JVBE" },
                filename: "r.pdf",
              },
              {
                type: "file",
                mediaType: "application/pdf",
                data: { type: "url", url: new URL("https://x.test/r.pdf") },
              },
              { type: "file", mediaType: "audio/mpeg", data: { type: "data", data: "UklG" } },
            ],
          },
        },
      ],
    });
    const v3 = scenarioModel({ kind: "text", content: "ok" }, MockLanguageModelV3 as never);
    await fromAISdk(v3, { unsupportedParts: [] }).complete(toolRequest);
    expect((v3.doGenerateCalls[0] as { prompt: unknown[] }).prompt[2]).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "chart",
          output: {
            type: "content",
            value: [
              { type: "text", text: "Chart:" },
              { type: "image-data", data: "aGk=", mediaType: "image/png" },
              { type: "image-url", url: "https://x.test/c.png" },
              { type: "file-data", data: "JVBE", mediaType: "application/pdf", filename: "r.pdf" },
              { type: "file-url", url: "https://x.test/r.pdf" },
              { type: "file-data", data: "UklG", mediaType: "audio/mpeg" },
            ],
          },
        },
      ],
    });
  });

  it("refuses the parts of unsupportedParts (default: media in tool results and assistant messages) before calling the model", async () => {
    const model = scenarioModel({ kind: "text", content: "ok" });
    const withPart = (part: import("../../chat/parts.js").ContentPart) =>
      ChatRequest({
        messages: [
          HumanMessage({ content: [part] }),
          AIMessage({ content: [{ type: "text", text: "Seen." }, part] }),
        ],
      });
    const audio = { type: "audio", data: "UklG", format: "wav" } as const;
    const e1 = await fromAISdk(model)
      .complete(withPart(audio))
      .catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(UnsupportedPartError);
    expect([(e1 as UnsupportedPartError).partType, (e1 as UnsupportedPartError).path]).toEqual([
      "audio",
      "messages[1].content[1]",
    ]);
    const only = fromAISdk(model, { unsupportedParts: [{ in: "user", type: "audio" }] });
    const e2 = await only.complete(withPart(audio)).catch((e: unknown) => e);
    expect((e2 as Error).message).toBe(
      "AI SDK model mock.chat/mock-model cannot send an audio part (wav) in a user message (messages[0].content[0]): the unsupportedParts option of fromAISdk lists it",
    );
    expect(model.doGenerateCalls).toHaveLength(0);
    const url = { type: "image", url: "https://x.test/a.png", mediaType: "image/png" } as const;
    await fromAISdk(model, { unsupportedParts: [{ source: "data" }] }).complete(withPart(url));
    expect(model.doGenerateCalls[0]!.prompt.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("rejects parts and options it cannot send, and models of other specifications", async () => {
    const model = scenarioModel({ kind: "text", content: "ok" });
    const chat = fromAISdk(model);
    const e1 = await chat
      .complete(
        ChatRequest({
          messages: [SystemMessage({ content: [{ type: "image", url: "https://x.test/a.png" }] })],
        }),
      )
      .catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(UnsupportedPartError);
    expect((e1 as Error).message).toBe(
      "AI SDK model mock.chat/mock-model cannot send an image part (url) in a system message (messages[0].content[0])",
    );
    const e2 = await chat
      .complete(request({ reasoning: { budgetTokens: 1000 } }))
      .catch((e: unknown) => e);
    expect((e2 as Error).message).toBe(
      "AI SDK model mock.chat/mock-model takes reasoning as { effort }, not { budgetTokens }: pass a token budget in providerOptions",
    );
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(() => fromAISdk({ specificationVersion: "v2" } as never)).toThrow(
      'fromAISdk needs an AI SDK language model of specification v3 or v4, got specificationVersion "v2": use a provider package built for ai@6 or later',
    );
  });

  it("abortSignal of the call options: read when the model reads it, kept by a spread, replaceable", async () => {
    const seen: { copied: AbortSignal; replaced: unknown; keys: string[] }[] = [];
    const controller = new AbortController();
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        const copy = { ...options }; // as provider middleware does
        controller.abort(new Error("stop"));
        const own = options as { abortSignal?: unknown };
        own.abortSignal = "mine";
        seen.push({
          copied: copy.abortSignal as AbortSignal,
          replaced: own.abortSignal,
          keys: Object.keys(options),
        });
        return never();
      },
    });
    const e = await fromAISdk(model)
      .complete(request(), { signal: controller.signal })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RunCancelledError);
    expect(seen[0]!.copied.aborted).toBe(true); // the copy holds the live signal, fired by the cancel
    expect(seen[0]!.replaced).toBe("mine");
    expect(seen[0]!.keys).toEqual(["prompt", "abortSignal"]);
  });

  it("a signal that fires cancels a model that ignores abortSignal", async () => {
    const model = new MockLanguageModelV4({ doGenerate: never });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const e = await fromAISdk(model)
      .complete(request(), { signal: controller.signal })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RunCancelledError);
    expect((e as Error).message).toBe("The model call was cancelled");
  });
});
