/**
 * OpenAIChat on Chat Completions: content parts, reasoning, prompt caching and usage, through
 * the official SDK against a local server replaying the documented wire format.
 */
import { describe, expect, it } from "vitest";
import { json, PNG, replayServerPerFile } from "../../../test/replay-fixture.js";
import { assembleStream } from "../../chat/assemble-stream.js";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../../chat/messages.js";
import type { ContentPart } from "../../chat/parts.js";
import { ChatRequest } from "../../chat/types.js";
import { UnsupportedPartError, ValueError } from "../../errors/index.js";
import { type RecordedRequest, sseEvents } from "../testing/replay-server.js";
import { OpenAIChat } from "./index.js";

const MODEL = "gpt-4o-2024-08-06";
const PDF =
  "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PD4+CiUlRU9GCg==";
// Usage with cached and reasoning tokens, as the API documents it.
const USAGE = {
  prompt_tokens: 2006,
  completion_tokens: 300,
  total_tokens: 2306,
  prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 128,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};

function completion(message: Record<string, unknown>) {
  return {
    id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
    object: "chat.completion",
    created: 1741570283,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: null, refusal: null, annotations: [], ...message },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: USAGE,
    service_tier: "default",
    system_fingerprint: "fp_fc9f1d7035",
  };
}

const replay = replayServerPerFile();

const makeChat = (options: Partial<ConstructorParameters<typeof OpenAIChat>[0]> = {}) =>
  new OpenAIChat({
    model: "gpt-4o",
    apiKey: "sk-test",
    baseURL: `${replay.server.url}/v1`,
    ...options,
  });

const photoAndPdf: ContentPart[] = [
  { type: "text", text: "What is on the photo, and what does the invoice say?" },
  { type: "image", data: PNG, mediaType: "image/png" },
  { type: "image", url: "https://example.com/shelf.jpg" },
  { type: "file", data: PDF, mediaType: "application/pdf", name: "invoice.pdf" },
];

async function unsupported(p: Promise<unknown>): Promise<UnsupportedPartError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof UnsupportedPartError) return e;
    throw e;
  }
  throw new Error("expected an UnsupportedPartError");
}

describe("OpenAIChat (Chat Completions) content parts", () => {
  it("sends a user message with an image (data and URL) and a PDF as content parts; a string stays a string", async () => {
    replay.server.enqueue(json(completion({ content: "A shelf; the invoice is for 3 lamps." })));
    const response = await makeChat().complete(
      ChatRequest({
        messages: [
          SystemMessage({ content: [{ type: "text", text: "Be brief." }] }),
          HumanMessage({ content: photoAndPdf }),
          AIMessage({ content: "Noted." }),
          HumanMessage({ content: "And the total?" }),
        ],
      }),
    );
    const [req] = replay.server.requests as [RecordedRequest];
    expect((req.json as { messages: unknown }).messages).toEqual([
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is on the photo, and what does the invoice say?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "image_url", image_url: { url: "https://example.com/shelf.jpg" } },
          {
            type: "file",
            file: { file_data: `data:application/pdf;base64,${PDF}`, filename: "invoice.pdf" },
          },
        ],
      },
      { role: "assistant", content: "Noted." },
      { role: "user", content: "And the total?" },
    ]);
    expect(response.content).toBe("A shelf; the invoice is for 3 lamps.");
  });

  it("sends audio as input_audio", async () => {
    replay.server.enqueue(json(completion({ content: "You said hello." })));
    await makeChat().complete(
      ChatRequest({
        messages: [HumanMessage({ content: [{ type: "audio", data: "UklGRg==", format: "wav" }] })],
      }),
    );
    expect((replay.server.requests[0]!.json as { messages: unknown }).messages).toEqual([
      {
        role: "user",
        content: [{ type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } }],
      },
    ]);
  });

  it("raises UnsupportedPartError naming the part and the provider for what it cannot send, sending nothing", async () => {
    const toolImage = ToolMessage({
      toolCallId: "call_1",
      content: [
        { type: "text", text: "chart:" },
        { type: "image", data: PNG, mediaType: "image/png" },
      ],
    });
    const e = await unsupported(
      makeChat().complete(ChatRequest({ messages: [HumanMessage({ content: "x" }), toolImage] })),
    );
    expect(e.message).toBe(
      'OpenAI Chat Completions cannot send an image part (data) in a tool result (messages[1].content[1]): use api: "responses", whose tool results take images and files',
    );
    expect([e.provider, e.partType, e.path, e.retryable]).toEqual([
      "openai",
      "image",
      "messages[1].content[1]",
      false,
    ]);
    const url = await unsupported(
      makeChat().complete(
        ChatRequest({
          messages: [
            HumanMessage({
              content: [{ type: "file", url: "https://example.com/a.pdf", name: "a.pdf" }],
            }),
          ],
        }),
      ),
    );
    expect(url.message).toBe(
      'OpenAI Chat Completions cannot send a file part "a.pdf" (url) (messages[0].content[0]): it takes files as data only; send the data, or use api: "responses"',
    );
    const ai = await unsupported(
      makeChat().complete(
        ChatRequest({
          messages: [AIMessage({ content: [{ type: "image", url: "https://example.com/x.png" }] })],
        }),
      ),
    );
    expect(ai.message).toBe(
      "OpenAI Chat Completions cannot send an image part (url) in an assistant message (messages[0].content[0])",
    );
    const flac = await unsupported(
      makeChat().complete(
        ChatRequest({
          messages: [HumanMessage({ content: [{ type: "audio", data: "x", format: "flac" }] })],
        }),
      ),
    );
    expect(flac.message).toBe(
      "OpenAI Chat Completions cannot send an audio part (flac) (messages[0].content[0]): it takes wav or mp3 audio only",
    );
    expect(replay.server.requests).toHaveLength(0);
  });
});

describe("OpenAIChat (Chat Completions) reasoning, caching and usage", () => {
  it("sends reasoning_effort and prompt_cache_key; maps cached and reasoning tokens", async () => {
    replay.server.enqueue(json(completion({ content: "42" })));
    const response = await makeChat({ promptCacheKey: "orders-v1" }).complete(
      ChatRequest({ messages: [HumanMessage({ content: "6*7?" })], reasoning: { effort: "low" } }),
    );
    const body = replay.server.requests[0]!.json as Record<string, unknown>;
    expect([body.reasoning_effort, body.prompt_cache_key]).toEqual(["low", "orders-v1"]);
    expect(response.usage).toEqual({
      inputTokens: 2006,
      outputTokens: 300,
      totalTokens: 2306,
      cachedInputTokens: 1920,
      reasoningTokens: 128,
      raw: USAGE,
    });
  });

  it("refuses a token budget, which OpenAI has no setting for", () => {
    expect(() =>
      makeChat().toRequestBody(ChatRequest({ messages: [], reasoning: { budgetTokens: 1024 } })),
    ).toThrow(
      new ValueError(
        'OpenAIChat: reasoning { budgetTokens: 1024 } has no OpenAI setting; use reasoning { effort: "low" | "medium" | "high" }',
      ),
    );
  });

  it("reads reasoning_content (DeepSeek, vLLM) as a reasoning part, complete and streamed, and does not send it back", async () => {
    replay.server.enqueue(
      json(completion({ content: "9.11 < 9.8", reasoning_content: "Compare 11 and 80." })),
    );
    const done = await makeChat().complete(
      ChatRequest({ messages: [HumanMessage({ content: "q" })] }),
    );
    expect(done.reasoning).toEqual([
      { type: "reasoning", text: "Compare 11 and 80.", provider: "openai", data: null },
    ]);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1741570283,
      model: MODEL,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    replay.server.enqueue({
      headers: { "content-type": "text/event-stream" },
      body: [
        ...sseEvents([
          { data: chunk({ role: "assistant", content: null, reasoning_content: "Compare " }) },
          { data: chunk({ reasoning_content: "11 and 80." }) },
          { data: chunk({ content: "9.11 < 9.8" }) },
          { data: chunk({}, "stop") },
          { data: { ...chunk({}), choices: [], usage: USAGE } },
        ]),
        "data: [DONE]\n\n",
      ],
    });
    const chunks: unknown[] = [];
    const streamed = await assembleStream(
      (async function* () {
        for await (const c of makeChat().stream(
          ChatRequest({ messages: [HumanMessage({ content: "q" })] }),
        )) {
          chunks.push(c);
          yield c;
        }
      })(),
    );
    expect(streamed.reasoning).toEqual(done.reasoning);
    expect(streamed.content).toBe("9.11 < 9.8");
    expect(streamed.usage.cachedInputTokens).toBe(1920);
    expect((chunks[0] as { reasoningDelta: unknown }).reasoningDelta).toEqual({
      index: 0,
      text: "Compare ",
      provider: "openai",
    });
    replay.server.enqueue(json(completion({ content: "ok" })));
    await makeChat().complete(
      ChatRequest({
        messages: [
          HumanMessage({ content: "q" }),
          AIMessage({ content: "a", reasoning: done.reasoning }),
        ],
      }),
    );
    expect((replay.server.requests.at(-1)!.json as { messages: unknown }).messages).toEqual([
      { role: "user", content: "q" },
      { role: "assistant", content: "a" },
    ]);
  });
});
