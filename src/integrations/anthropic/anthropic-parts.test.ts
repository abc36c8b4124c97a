/**
 * AnthropicChat: content blocks (images, documents, tool results with images), extended
 * thinking sent back with its signature, redacted thinking, prompt caching and usage, through
 * the official SDK against a local server replaying the documented wire format.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { json, PDF, PNG, replayServerPerFile } from "../../../test/replay-fixture.js";
import { buildReactAgent, runAgent } from "../../agents/react-agent.js";
import { assembleStream } from "../../chat/assemble-stream.js";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../../chat/messages.js";
import { ChatRequest, type ChatStreamChunk } from "../../chat/types.js";
import { UnsupportedPartError, ValueError } from "../../errors/index.js";
import { tool } from "../../tools/tool.js";
import { sseEvents } from "../testing/replay-server.js";
import { AnthropicChat } from "./index.js";

const MODEL = "claude-sonnet-4-6";
const SIGNATURE =
  "WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL";
const REDACTED =
  "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kF8/dW5hR7xJ0aP1oLs9yTcMnKVf2wRpEGjH9XZaBt4UvDcPrQ";
const CACHED_USAGE = {
  input_tokens: 21,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 188086,
  output_tokens: 393,
};

function message(content: unknown[], stopReason: string, usage: unknown = CACHED_USAGE) {
  return {
    id: "msg_01Aq9w938a90dw8q",
    type: "message",
    role: "assistant",
    model: MODEL,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
}
const ev = (type: string, fields: Record<string, unknown> = {}) => ({
  event: type,
  data: { type, ...fields },
});

const replay = replayServerPerFile();

const makeChat = (options: Partial<ConstructorParameters<typeof AnthropicChat>[0]> = {}) =>
  new AnthropicChat({
    model: MODEL,
    apiKey: "sk-ant-test",
    baseURL: replay.server.url,
    ...options,
  });

const body = (i = 0) => replay.server.requests[i]!.json as Record<string, unknown>;

const tools = [
  {
    name: "render_chart",
    description: "Render a sales chart.",
    inputSchema: { type: "object", properties: { month: { type: "string" } } },
  },
];

describe("AnthropicChat content blocks", () => {
  it("sends images (base64 and URL), a PDF and a text document with their titles, and a tool result with an image", async () => {
    replay.server.enqueue(json(message([{ type: "text", text: "Done." }], "end_turn")));
    await makeChat().complete(
      ChatRequest({
        messages: [
          HumanMessage({
            content: [
              { type: "text", text: "Read these." },
              { type: "image", data: PNG, mediaType: "image/png" },
              { type: "image", url: "https://example.com/shelf.jpg" },
              { type: "file", data: PDF, mediaType: "application/pdf", name: "invoice.pdf" },
              {
                type: "file",
                data: Buffer.from("Total: 3 lamps").toString("base64"),
                mediaType: "text/plain",
              },
              { type: "file", url: "https://example.com/terms.pdf", name: "terms.pdf" },
            ],
          }),
          AIMessage({
            toolCalls: [
              { id: "toolu_1", name: "render_chart", arguments: {}, argumentsError: null },
            ],
          }),
          ToolMessage({
            toolCallId: "toolu_1",
            content: [
              { type: "text", text: "The chart:" },
              { type: "image", data: PNG, mediaType: "image/png" },
            ],
          }),
        ],
      }),
    );
    expect(body().messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Read these." },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
          { type: "image", source: { type: "url", url: "https://example.com/shelf.jpg" } },
          {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: PDF },
            title: "invoice.pdf",
          },
          {
            type: "document",
            source: { type: "text", media_type: "text/plain", data: "Total: 3 lamps" },
          },
          {
            type: "document",
            source: { type: "url", url: "https://example.com/terms.pdf" },
            title: "terms.pdf",
          },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "render_chart", input: {} }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: [
              { type: "text", text: "The chart:" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
            ],
          },
        ],
      },
    ]);
  });

  it("raises UnsupportedPartError for audio, an image in an answer and a document type it does not take; nothing is sent", async () => {
    const cases: Array<[ChatRequest, string]> = [
      [
        ChatRequest({
          messages: [HumanMessage({ content: [{ type: "audio", data: "x", format: "wav" }] })],
        }),
        "Anthropic cannot send an audio part (wav) in a user message (messages[0].content[0]): it takes no audio",
      ],
      [
        ChatRequest({
          messages: [
            HumanMessage({ content: "hi" }),
            AIMessage({ content: [{ type: "image", url: "https://x/y.png" }] }),
          ],
        }),
        "Anthropic cannot send an image part (url) in an assistant message (messages[1].content[0])",
      ],
      [
        ChatRequest({
          messages: [
            HumanMessage({
              content: [{ type: "file", data: "eA==", mediaType: "text/csv", name: "a.csv" }],
            }),
          ],
        }),
        'Anthropic cannot send a file part "a.csv" (text/csv) in a user message (messages[0].content[0]): it takes documents of application/pdf and text/plain only',
      ],
    ];
    for (const [request, text] of cases) {
      const e = await makeChat()
        .complete(request)
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(UnsupportedPartError);
      expect([(e as Error).message, (e as UnsupportedPartError).provider]).toEqual([
        text,
        "anthropic",
      ]);
    }
    expect(replay.server.requests).toHaveLength(0);
  });
});

describe("AnthropicChat extended thinking", () => {
  const THINKING = [
    { type: "thinking", thinking: "Let me analyze this step by step...", signature: SIGNATURE },
    { type: "redacted_thinking", data: REDACTED },
  ];

  it("sends reasoning { budgetTokens } as thinking; maps thinking and redacted thinking; sends both back unchanged before the tool call", async () => {
    replay.server.enqueue(
      json(
        message(
          [
            ...THINKING,
            { type: "tool_use", id: "toolu_01", name: "render_chart", input: { month: "march" } },
          ],
          "tool_use",
        ),
      ),
    );
    const first = await makeChat().complete(
      ChatRequest({
        messages: [HumanMessage({ content: "Chart March." })],
        tools,
        reasoning: { budgetTokens: 2048 },
      }),
    );
    expect(body().thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(first.reasoning).toEqual([
      {
        type: "reasoning",
        text: "Let me analyze this step by step...",
        provider: "anthropic",
        data: { signature: SIGNATURE },
      },
      { type: "reasoning", text: "", provider: "anthropic", data: { redacted: REDACTED } },
    ]);
    replay.server.enqueue(json(message([{ type: "text", text: "March peaks." }], "end_turn")));
    await makeChat().complete(
      ChatRequest({
        messages: [
          HumanMessage({ content: "Chart March." }),
          AIMessage({ toolCalls: first.toolCalls, reasoning: first.reasoning }),
          ToolMessage({ toolCallId: "toolu_01", content: "ok" }),
        ],
        tools,
      }),
    );
    expect((body(1).messages as unknown[])[1]).toEqual({
      role: "assistant",
      content: [
        ...THINKING,
        { type: "tool_use", id: "toolu_01", name: "render_chart", input: { month: "march" } },
      ],
    });
  });

  it("does not send another provider's reasoning, and refuses an effort, which Anthropic has no setting for", async () => {
    replay.server.enqueue(json(message([{ type: "text", text: "ok" }], "end_turn")));
    await makeChat().complete(
      ChatRequest({
        messages: [
          HumanMessage({ content: "q" }),
          AIMessage({
            content: "a",
            reasoning: [{ type: "reasoning", text: "t", provider: "openai", data: { id: "rs_1" } }],
          }),
          HumanMessage({ content: "q2" }),
        ],
      }),
    );
    expect(body().messages).toEqual([
      { role: "user", content: "q" },
      { role: "assistant", content: "a" },
      { role: "user", content: "q2" },
    ]);
    expect(() =>
      makeChat().toRequestBody(ChatRequest({ messages: [], reasoning: { effort: "high" } })),
    ).toThrow(
      new ValueError(
        'AnthropicChat: reasoning { effort: "high" } has no Anthropic setting; use reasoning { budgetTokens } (at least 1024, below maxTokens)',
      ),
    );
  });

  it("streams thinking deltas, the signature and redacted thinking as reasoning deltas that assemble into the same parts", async () => {
    const events = [
      ev("message_start", {
        message: {
          ...message([], null as never, {
            input_tokens: 21,
            cache_read_input_tokens: 188086,
            output_tokens: 1,
          }),
        },
      }),
      ev("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "" } }),
      ev("content_block_delta", {
        index: 0,
        delta: { type: "thinking_delta", thinking: "Let me analyze " },
      }),
      ev("content_block_delta", {
        index: 0,
        delta: { type: "thinking_delta", thinking: "this step by step..." },
      }),
      ev("content_block_delta", {
        index: 0,
        delta: { type: "signature_delta", signature: SIGNATURE },
      }),
      ev("content_block_stop", { index: 0 }),
      ev("content_block_start", {
        index: 1,
        content_block: { type: "redacted_thinking", data: REDACTED },
      }),
      ev("content_block_stop", { index: 1 }),
      ev("content_block_start", { index: 2, content_block: { type: "text", text: "" } }),
      ev("content_block_delta", { index: 2, delta: { type: "text_delta", text: "March peaks." } }),
      ev("content_block_stop", { index: 2 }),
      ev("message_delta", {
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 393 },
      }),
      ev("message_stop"),
    ];
    replay.server.enqueue({
      headers: { "content-type": "text/event-stream" },
      body: sseEvents(events),
    });
    const chunks: ChatStreamChunk[] = [];
    const r = await assembleStream(
      (async function* () {
        for await (const c of makeChat().stream(
          ChatRequest({ messages: [HumanMessage({ content: "q" })] }),
        )) {
          chunks.push(c);
          yield c;
        }
      })(),
    );
    expect(chunks.filter((c) => c.reasoningDelta).map((c) => c.reasoningDelta)).toEqual([
      { index: 0, text: "", provider: "anthropic" },
      { index: 0, text: "Let me analyze " },
      { index: 0, text: "this step by step..." },
      { index: 0, data: { signature: SIGNATURE } },
      { index: 1, text: "", provider: "anthropic", data: { redacted: REDACTED } },
    ]);
    expect(r.reasoning).toEqual([
      {
        type: "reasoning",
        text: "Let me analyze this step by step...",
        provider: "anthropic",
        data: { signature: SIGNATURE },
      },
      { type: "reasoning", text: "", provider: "anthropic", data: { redacted: REDACTED } },
    ]);
    expect([r.content, r.finishReason]).toEqual(["March peaks.", "stop"]);
    expect(r.usage).toEqual({
      inputTokens: 188107,
      outputTokens: 393,
      totalTokens: 188500,
      cachedInputTokens: 188086,
      raw: { input_tokens: 21, cache_read_input_tokens: 188086, output_tokens: 393 },
    });
  });
});

describe("AnthropicChat in an agent with reasoning { budgetTokens }", () => {
  it("sends thinking with the budget on every model call and the signed thinking back before the tool result", async () => {
    const renderChart = tool(({ month }) => `chart of ${month}`, {
      name: "render_chart",
      description: "Render a sales chart.",
      input: z.object({ month: z.string() }),
    });
    const thinking = {
      type: "thinking",
      thinking: "The user wants March; render it first.",
      signature: SIGNATURE,
    };
    const call = {
      type: "tool_use",
      id: "toolu_01",
      name: "render_chart",
      input: { month: "march" },
    };
    replay.server.enqueue(
      json(message([thinking, call], "tool_use")),
      json(message([{ type: "text", text: "March peaks." }], "end_turn")),
    );
    const agent = buildReactAgent(makeChat({ maxTokens: 8192 }), {
      tools: [renderChart],
      reasoning: { budgetTokens: 2048 },
    });
    expect(await runAgent(agent, "Chart March.")).toBe("March peaks.");
    expect(replay.server.requests.map((r) => (r.json as Record<string, unknown>).thinking)).toEqual(
      [
        { type: "enabled", budget_tokens: 2048 },
        { type: "enabled", budget_tokens: 2048 },
      ],
    );
    expect(body(1).max_tokens).toBe(8192);
    expect(body(1).messages).toEqual([
      { role: "user", content: "Chart March." },
      { role: "assistant", content: [thinking, call] },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_01",
            content: JSON.stringify({ result: "chart of march" }),
          },
        ],
      },
    ]);
  });
});

describe("AnthropicChat prompt caching", () => {
  it('cache: "auto" marks the system prompt, the last tool and the latest turn; usage counts cached tokens', async () => {
    replay.server.enqueue(json(message([{ type: "text", text: "ok" }], "end_turn")));
    const r = await makeChat({ cache: "auto" }).complete(
      ChatRequest({
        messages: [
          SystemMessage({ content: "You read sales data." }),
          HumanMessage({ content: "Which month?" }),
          AIMessage({ content: "March." }),
          HumanMessage({ content: "And the total?" }),
        ],
        tools,
      }),
    );
    const b = body();
    expect(b.system).toEqual([
      { type: "text", text: "You read sales data.", cache_control: { type: "ephemeral" } },
    ]);
    expect(b.tools).toEqual([
      {
        name: "render_chart",
        description: "Render a sales chart.",
        input_schema: tools[0]!.inputSchema,
        cache_control: { type: "ephemeral" },
      },
    ]);
    expect(b.messages).toEqual([
      { role: "user", content: "Which month?" },
      { role: "assistant", content: "March." },
      {
        role: "user",
        content: [{ type: "text", text: "And the total?", cache_control: { type: "ephemeral" } }],
      },
    ]);
    expect(r.usage).toEqual({
      inputTokens: 188107,
      outputTokens: 393,
      totalTokens: 188500,
      cachedInputTokens: 188086,
      raw: CACHED_USAGE,
    });
  });

  it('without cache: "auto", marks only the parts marked cache: true', async () => {
    replay.server.enqueue(json(message([{ type: "text", text: "ok" }], "end_turn")));
    await makeChat().complete(
      ChatRequest({
        messages: [
          SystemMessage({ content: [{ type: "text", text: "Long manual.", cache: true }] }),
          HumanMessage({
            content: [
              { type: "file", data: PDF, mediaType: "application/pdf", cache: true },
              { type: "text", text: "Summarize." },
            ],
          }),
        ],
      }),
    );
    expect(body().system).toEqual([
      { type: "text", text: "Long manual.", cache_control: { type: "ephemeral" } },
    ]);
    expect(body().messages).toEqual([
      {
        role: "user",
        content: [
          {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: PDF },
            cache_control: { type: "ephemeral" },
          },
          { type: "text", text: "Summarize." },
        ],
      },
    ]);
  });
});
