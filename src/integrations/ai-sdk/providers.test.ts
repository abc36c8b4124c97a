/**
 * fromAISdk on two real AI SDK provider packages, `@ai-sdk/openai-compatible` (Chat
 * Completions wire format) and `@ai-sdk/google` (Gemini `generateContent` /
 * `streamGenerateContent?alt=sse`), each pointed at a local server replaying its documented
 * wire format, streaming included.
 */
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assembleStream } from "../../chat/assemble-stream.js";
import { HumanMessage } from "../../chat/messages.js";
import { ChatRequest } from "../../chat/types.js";
import { ModelProviderError } from "../../errors/index.js";
import { type ConformanceScenario, describeChatConformance } from "../testing/conformance.js";
import {
  type RecordedRequest,
  type ReplayResponse,
  ReplayServer,
  sseEvents,
} from "../testing/replay-server.js";
import { fromAISdk } from "./index.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await ReplayServer.start();
});
afterAll(async () => {
  await server.close();
});

const json = (
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): ReplayResponse => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});
const sse = (datas: unknown[], done: string | null = null): ReplayResponse => ({
  headers: { "content-type": "text/event-stream" },
  body: [
    ...sseEvents(datas.map((data) => ({ data }))),
    ...(done !== null ? [`data: ${done}\n\n`] : []),
  ],
});
const pieces = (s: string, n: number) => {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
};
const ask = () => ChatRequest({ messages: [HumanMessage({ content: "Where is order A-1001?" })] });

// ---- @ai-sdk/openai-compatible: the Chat Completions wire format ----------------------------

const OAI_USAGE = {
  prompt_tokens: 19,
  completion_tokens: 10,
  total_tokens: 29,
  prompt_tokens_details: { cached_tokens: 4 },
  completion_tokens_details: { reasoning_tokens: 3 },
};
const oaiChunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage: unknown = null,
) => ({
  id: "chatcmpl-123",
  object: "chat.completion.chunk",
  created: 1741569952,
  model: "llama-3.1-8b",
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...(usage !== null ? { usage } : {}),
});

function oaiResponder(scenario: ConformanceScenario) {
  return (req: RecordedRequest): ReplayResponse => {
    const streaming = (req.json as { stream?: boolean }).stream === true;
    if (scenario.kind === "httpError")
      return json(
        { error: { message: `status ${scenario.status}`, type: "x", code: null } },
        scenario.status,
      );
    if (scenario.kind === "stall")
      return streaming
        ? { ...sse([oaiChunk({ role: "assistant", content: scenario.content })]), hang: true }
        : { hang: true };
    const calls = scenario.kind === "toolCalls" ? scenario.calls : [];
    const content =
      scenario.kind === "text" || scenario.kind === "reasoning" ? scenario.content : null;
    // reasoning_content, as OpenAI-compatible servers (DeepSeek, vLLM) send it.
    const thinking = scenario.kind === "reasoning" ? scenario.thinking : null;
    const finish = calls.length > 0 ? "tool_calls" : "stop";
    if (!streaming)
      return json({
        id: "chatcmpl-123",
        object: "chat.completion",
        created: 1741569952,
        model: "llama-3.1-8b",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content,
              ...(thinking !== null ? { reasoning_content: thinking } : {}),
              ...(calls.length > 0
                ? {
                    tool_calls: calls.map((c) => ({
                      id: c.id,
                      type: "function",
                      function: { name: c.name, arguments: c.argumentsJson },
                    })),
                  }
                : {}),
            },
            finish_reason: finish,
          },
        ],
        usage: OAI_USAGE,
      });
    const events: unknown[] = [oaiChunk({ role: "assistant", content: "" })];
    for (const p of pieces(thinking ?? "", 12)) events.push(oaiChunk({ reasoning_content: p }));
    for (const p of pieces(content ?? "", 6)) events.push(oaiChunk({ content: p }));
    calls.forEach((c, index) => {
      events.push(
        oaiChunk({
          tool_calls: [
            { index, id: c.id, type: "function", function: { name: c.name, arguments: "" } },
          ],
        }),
      );
      for (const p of pieces(c.argumentsJson, 4))
        events.push(oaiChunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    });
    events.push(oaiChunk({}, finish), { ...oaiChunk({}), choices: [], usage: OAI_USAGE });
    return sse(events, "[DONE]");
  };
}

const compatible = () =>
  createOpenAICompatible({
    name: "local",
    baseURL: `${server.url}/v1`,
    apiKey: "sk-test",
    includeUsage: true,
  })("llama-3.1-8b");

describeChatConformance(
  "fromAISdk(@ai-sdk/openai-compatible)",
  (scenario) => {
    server.reset();
    server.fallback = oaiResponder(scenario);
    return fromAISdk(compatible(), { maxRetries: 0 });
  },
  {
    parts: {
      provider: "local.chat",
      reasoningProvider: "ai-sdk/local.chat",
      lastRequestBody: () => server.requests.at(-1)?.json,
      // @ai-sdk/openai-compatible would write the image out as JSON text in the tool message.
      unsupported: ["toolResultImage"],
    },
  },
);

describe("fromAISdk(@ai-sdk/openai-compatible) wire", () => {
  it("sends the Chat Completions body and maps usage, complete and stream alike", async () => {
    server.reset();
    server.fallback = oaiResponder({ kind: "text", content: "Order A-1001 has shipped." });
    const chat = fromAISdk(compatible(), { settings: { temperature: 0 } });
    const done = await chat.complete(ask());
    const streamed = await assembleStream(chat.stream(ask()));
    const usage = {
      inputTokens: 19,
      outputTokens: 10,
      totalTokens: 29,
      cachedInputTokens: 4,
      reasoningTokens: 3,
    };
    expect({ ...done.usage, raw: undefined }).toEqual({ ...usage, raw: undefined });
    expect({ ...streamed.usage, raw: undefined }).toEqual({ ...usage, raw: undefined });
    expect(streamed.content).toBe("Order A-1001 has shipped.");
    expect(server.requests.map((r) => [r.method, r.path])).toEqual([
      ["POST", "/v1/chat/completions"],
      ["POST", "/v1/chat/completions"],
    ]);
    expect(server.requests[0]!.json).toEqual({
      model: "llama-3.1-8b",
      temperature: 0,
      messages: [{ role: "user", content: "Where is order A-1001?" }],
    });
    expect(server.requests[1]!.json).toEqual({
      model: "llama-3.1-8b",
      temperature: 0,
      messages: [{ role: "user", content: "Where is order A-1001?" }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("a 429 with Retry-After is retried after the wait the server asked for", async () => {
    server.reset();
    server.enqueue(json({ error: { message: "slow down" } }, 429, { "retry-after-ms": "5" }));
    server.fallback = oaiResponder({ kind: "text", content: "ok" });
    const r = await fromAISdk(compatible(), { maxRetries: 1 }).complete(ask());
    expect(r.content).toBe("ok");
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.fallback = json({ error: { message: "slow down" } }, 429, { "retry-after": "2" });
    const e = (await fromAISdk(compatible(), { maxRetries: 0 })
      .complete(ask())
      .catch((x) => x)) as ModelProviderError;
    expect(e).toBeInstanceOf(ModelProviderError);
    expect([e.status, e.retryable, e.retryAfterMs, e.provider]).toEqual([
      429,
      true,
      2000,
      "local.chat",
    ]);
    expect(e.message).toBe(
      "AI SDK model local.chat/llama-3.1-8b call failed (HTTP 429): slow down",
    );
  });
});

// ---- @ai-sdk/google: Gemini generateContent / streamGenerateContent ------------------------

const G_USAGE = {
  promptTokenCount: 19,
  candidatesTokenCount: 7,
  thoughtsTokenCount: 3,
  cachedContentTokenCount: 4,
  totalTokenCount: 29,
};
const gResponse = (parts: unknown[], finish: string | null, usage: unknown = G_USAGE) => ({
  candidates: [
    { content: { parts, role: "model" }, ...(finish ? { finishReason: finish } : {}), index: 0 },
  ],
  ...(usage !== null ? { usageMetadata: usage } : {}),
  modelVersion: "gemini-2.5-flash",
  responseId: "resp-1",
});

function googleResponder(scenario: ConformanceScenario) {
  return (req: RecordedRequest): ReplayResponse => {
    const streaming = req.path.includes(":streamGenerateContent");
    if (scenario.kind === "httpError")
      return json(
        { error: { code: scenario.status, message: `status ${scenario.status}`, status: "X" } },
        scenario.status,
      );
    if (scenario.kind === "stall")
      return streaming
        ? { ...sse([gResponse([{ text: scenario.content }], null, null)]), hang: true }
        : { hang: true };
    if (scenario.kind === "toolCalls") {
      const parts = scenario.calls.map((c) => ({
        functionCall: { name: c.name, args: JSON.parse(c.argumentsJson) },
      }));
      return streaming ? sse([gResponse(parts, "STOP")]) : json(gResponse(parts, "STOP"));
    }
    const thought = {
      text: scenario.kind === "reasoning" ? scenario.thinking : "Checking the order.",
      thought: true,
      thoughtSignature: "c2ln",
    };
    if (!streaming) return json(gResponse([thought, { text: scenario.content }], "STOP"));
    const texts = pieces(scenario.content, 6);
    return sse([
      gResponse([thought], null, null),
      ...texts.map((t, i) =>
        gResponse(
          [{ text: t }],
          i === texts.length - 1 ? "STOP" : null,
          i === texts.length - 1 ? G_USAGE : null,
        ),
      ),
    ]);
  };
}

const gemini = () =>
  createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: "test-key" })(
    "gemini-2.5-flash",
  );

describeChatConformance(
  "fromAISdk(@ai-sdk/google)",
  (scenario) => {
    server.reset();
    server.fallback = googleResponder(scenario);
    return fromAISdk(gemini(), { maxRetries: 0 });
  },
  {
    providerToolCallIds: false,
    malformedArguments: false,
    parts: {
      provider: "google.generative-ai",
      reasoningProvider: "ai-sdk/google.generative-ai",
      lastRequestBody: () => server.requests.at(-1)?.json,
    },
  },
);

describe("fromAISdk(@ai-sdk/google) wire", () => {
  it("maps thoughts to reasoning with their signature, and Gemini usage, complete and stream alike", async () => {
    server.reset();
    server.fallback = googleResponder({ kind: "text", content: "Order A-1001 has shipped." });
    const chat = fromAISdk(gemini());
    const done = await chat.complete(ask());
    const streamed = await assembleStream(chat.stream(ask()));
    const reasoning = [
      {
        type: "reasoning",
        text: "Checking the order.",
        provider: "ai-sdk/google.generative-ai",
        data: { google: { thoughtSignature: "c2ln" } },
      },
    ];
    expect(done.reasoning).toEqual(reasoning);
    expect(streamed.reasoning).toEqual(reasoning);
    for (const r of [done, streamed]) {
      expect(r.content).toBe("Order A-1001 has shipped.");
      expect(r.finishReason).toBe("stop");
      expect({ ...r.usage, raw: undefined }).toEqual({
        inputTokens: 19,
        outputTokens: 10,
        totalTokens: 29,
        cachedInputTokens: 4,
        reasoningTokens: 3,
        raw: undefined,
      });
    }
    expect(server.requests.map((r) => r.path)).toEqual([
      "/v1beta/models/gemini-2.5-flash:generateContent",
      "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    ]);
    expect(server.requests[0]!.json).toEqual({
      generationConfig: {},
      contents: [{ role: "user", parts: [{ text: "Where is order A-1001?" }] }],
    });
  });

  it("sends structured output as responseJsonSchema and a tool choice as functionCallingConfig", async () => {
    server.reset();
    server.fallback = googleResponder({ kind: "text", content: '{"status":"shipped"}' });
    const schema = {
      type: "object",
      properties: { status: { type: "string" } },
      required: ["status"],
    };
    const chat = fromAISdk(gemini());
    const r = await chat.complete(
      ChatRequest({ messages: [HumanMessage({ content: "Status?" })], outputSchema: schema }),
    );
    expect(r.content).toBe('{"status":"shipped"}');
    await chat.complete(
      ChatRequest({
        messages: [HumanMessage({ content: "Status?" })],
        tools: [{ name: "lookup", description: "Look up.", inputSchema: { type: "object" } }],
        toolChoice: "lookup",
      }),
    );
    const [first, second] = server.requests.map((q) => q.json as Record<string, unknown>);
    expect(first!.generationConfig).toEqual({
      responseMimeType: "application/json",
      responseJsonSchema: schema,
    });
    expect(second!.tools).toEqual([
      {
        functionDeclarations: [
          { name: "lookup", description: "Look up.", parametersJsonSchema: { type: "object" } },
        ],
      },
    ]);
    expect(second!.toolConfig).toEqual({
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["lookup"] },
    });
  });
});
