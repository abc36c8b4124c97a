/**
 * Content parts and reasoning through fromAISdk on `@ai-sdk/openai-compatible`, against a
 * local replay server: the exact wire bodies the package
 * sends for images and PDFs in user messages, images in tool results, and reasoning sent back;
 * and the parts it would degrade refused with UnsupportedPartError before any request.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { beforeEach, describe, expect, it } from "vitest";
import { json, PDF, PNG, rejection, replayServerPerFile } from "../../../test/replay-fixture.js";
import { AIMessage, HumanMessage, type Message, ToolMessage } from "../../chat/messages.js";
import type { ContentPart } from "../../chat/parts.js";
import { ChatRequest } from "../../chat/types.js";
import { ModelProviderError, UnsupportedPartError } from "../../errors/index.js";
import { AI_SDK_DEFAULT_UNSUPPORTED, fromAISdk } from "./index.js";

const replay = replayServerPerFile();

const image: ContentPart = { type: "image", data: PNG, mediaType: "image/png" };
const pdf: ContentPart = {
  type: "file",
  data: PDF,
  mediaType: "application/pdf",
  name: "invoice.pdf",
};
const CHART_TOOL = {
  name: "render_chart",
  description: "Render a chart.",
  inputSchema: { type: "object", properties: { month: { type: "string" } } },
};

const userParts = () =>
  ChatRequest({
    messages: [HumanMessage({ content: [{ type: "text", text: "What are these?" }, image, pdf] })],
  });
const toolResult = (part: ContentPart, id = "call_chart_1") =>
  ChatRequest({
    messages: [
      HumanMessage({ content: "Chart March sales." }),
      AIMessage({
        toolCalls: [
          { id, name: "render_chart", arguments: { month: "march" }, argumentsError: null },
        ],
      }),
      ToolMessage({
        toolCallId: id,
        name: "render_chart",
        content: [{ type: "text", text: "The chart:" }, part],
      }),
    ] satisfies Message[],
    tools: [CHART_TOOL],
  });

// ---- @ai-sdk/openai-compatible ------------------------------------------------------------

const oaiAnswer = (message: Record<string, unknown>) =>
  json({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1741569952,
    model: "llama-3.1-8b",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
    usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 },
  });

const compatible = (supportsMultiPartToolContent?: boolean) =>
  createOpenAICompatible({
    name: "local",
    baseURL: `${replay.server.url}/v1`,
    apiKey: "sk-test",
    ...(supportsMultiPartToolContent !== undefined ? { supportsMultiPartToolContent } : {}),
  })("llama-3.1-8b");

const OAI_TOOLS = [
  {
    type: "function",
    function: {
      name: "render_chart",
      description: "Render a chart.",
      parameters: { type: "object", properties: { month: { type: "string" } } },
    },
  },
];
const OAI_TOOL_TURNS = [
  { role: "user", content: "Chart March sales." },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: "call_chart_1",
        type: "function",
        function: { name: "render_chart", arguments: '{"month":"march"}' },
      },
    ],
  },
];

describe("fromAISdk(@ai-sdk/openai-compatible) parts on the wire", () => {
  beforeEach(() => {
    replay.server.reset();
    replay.server.fallback = oaiAnswer({ content: "A label and an invoice." });
  });

  it("sends an image and a PDF of a user message as image_url and file data URLs", async () => {
    const r = await fromAISdk(compatible()).complete(userParts());
    expect(r.content).toBe("A label and an invoice.");
    expect(replay.server.requests[0]!.json).toEqual({
      model: "llama-3.1-8b",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What are these?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            {
              type: "file",
              file: { filename: "invoice.pdf", file_data: `data:application/pdf;base64,${PDF}` },
            },
          ],
        },
      ],
    });
  });

  it("refuses an image in a tool result (the package would write it out as JSON text), complete and stream, sending nothing", async () => {
    const chat = fromAISdk(compatible());
    for (const call of [
      () => chat.complete(toolResult(image)),
      async () => {
        for await (const _ of chat.stream(toolResult(image))) {
          // drain
        }
      },
    ]) {
      const e = await rejection(call());
      expect([e.partType, e.path, e.provider, e.retryable]).toEqual([
        "image",
        "messages[2].content[1]",
        "local.chat",
        false,
      ]);
      expect(e.message).toBe(
        "AI SDK model local.chat/llama-3.1-8b cannot send an image part (data) in a tool result (messages[2].content[1]): @ai-sdk/openai-compatible (the default for providers fromAISdk has no row for) would write it out as JSON text; pass unsupportedParts to fromAISdk if this provider sends it",
      );
    }
    expect(replay.server.requests).toEqual([]);
    expect(chat.unsupportedParts).toEqual(AI_SDK_DEFAULT_UNSUPPORTED);
    expect(chat.unsupportedParts.slice(0, 2)).toEqual([{ in: "toolResult" }, { in: "assistant" }]);
  });

  it("refuses an image in an assistant message (the package would leave it out)", async () => {
    const e = await rejection(
      fromAISdk(compatible()).complete(
        ChatRequest({
          messages: [
            HumanMessage({ content: "Draw a cat." }),
            AIMessage({ content: [{ type: "text", text: "Here:" }, image] }),
            HumanMessage({ content: "Another." }),
          ],
        }),
      ),
    );
    expect(e.message).toBe(
      "AI SDK model local.chat/llama-3.1-8b cannot send an image part (data) in an assistant message (messages[1].content[1]): @ai-sdk/openai-compatible (the default for providers fromAISdk has no row for) would leave it out; pass unsupportedParts to fromAISdk if this provider sends it",
    );
    expect(replay.server.requests).toEqual([]);
  });

  it("a part the package refuses itself in a user message is an UnsupportedPartError naming it, complete and stream, sending nothing", async () => {
    const WHY =
      "@ai-sdk/openai-compatible (the default for providers fromAISdk has no row for) refuses it in a user message: it sends images, video and text, PDFs and wav or mp3 audio as base64 data; pass unsupportedParts to fromAISdk if this provider sends it";
    const cases: [ContentPart, string, string][] = [
      [
        { type: "file", data: "UEsDBA==", mediaType: "application/zip", name: "a.zip" },
        "file",
        'a file part "a.zip" (application/zip)',
      ],
      [
        { type: "file", url: "https://example.com/a.pdf", mediaType: "application/pdf" },
        "file",
        "a file part (url)",
      ],
      [{ type: "audio", data: "ZkxhQw==", format: "flac" }, "audio", "an audio part (flac)"],
    ];
    const chat = fromAISdk(compatible());
    for (const [part, partType, described] of cases) {
      const request = ChatRequest({
        messages: [HumanMessage({ content: [{ type: "text", text: "Look:" }, part] })],
      });
      for (const call of [
        () => chat.complete(request),
        async () => {
          for await (const _ of chat.stream(request)) {
            // drain
          }
        },
      ]) {
        const e = await rejection(call());
        expect([e.partType, e.path, e.provider, e.retryable]).toEqual([
          partType,
          "messages[0].content[1]",
          "local.chat",
          false,
        ]);
        expect(e.message).toBe(
          `AI SDK model local.chat/llama-3.1-8b cannot send ${described} in a user message (messages[0].content[1]): ${WHY}`,
        );
      }
    }
    expect(replay.server.requests).toEqual([]);
  });

  it("sends what the package takes in a user message: text and video files, PDF data, wav and mp3 audio", async () => {
    const TXT = Buffer.from("hello").toString("base64");
    const r = await fromAISdk(compatible()).complete(
      ChatRequest({
        messages: [
          HumanMessage({
            content: [
              { type: "file", data: TXT, mediaType: "text/plain", name: "a.txt" },
              { type: "file", url: "https://example.com/v.mp4", mediaType: "video/mp4" },
              { type: "audio", data: "UklGRg==", format: "wav" },
              { type: "audio", data: "SUQz", format: "mp3" },
            ],
          }),
        ],
      }),
    );
    expect(r.content).toBe("A label and an invoice.");
    expect(replay.server.requests[0]!.json).toEqual({
      model: "llama-3.1-8b",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "hello" },
            { type: "video_url", video_url: { url: "https://example.com/v.mp4" } },
            { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
            { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } },
          ],
        },
      ],
    });
  });

  it("with unsupportedParts [], a part the package refuses itself is its ModelProviderError (cause UnsupportedFunctionalityError)", async () => {
    const zip: ContentPart = { type: "file", data: "UEsDBA==", mediaType: "application/zip" };
    const e = (await fromAISdk(compatible(), { unsupportedParts: [] })
      .complete(ChatRequest({ messages: [HumanMessage({ content: [zip] })] }))
      .catch((x: unknown) => x)) as ModelProviderError;
    expect(e).toBeInstanceOf(ModelProviderError);
    expect(e).not.toBeInstanceOf(UnsupportedPartError);
    expect([e.provider, e.retryable, (e.cause as Error).name]).toEqual([
      "local.chat",
      false,
      "AI_UnsupportedFunctionalityError",
    ]);
    expect(e.message).toBe(
      "AI SDK model local.chat/llama-3.1-8b call failed (AI_UnsupportedFunctionalityError): 'file part media type application/zip' functionality not supported.",
    );
    expect(replay.server.requests).toEqual([]);
  });

  it("with supportsMultiPartToolContent and unsupportedParts [{ in: 'assistant' }], a tool result's image goes as an image_url part of the tool message", async () => {
    const chat = fromAISdk(compatible(true), { unsupportedParts: [{ in: "assistant" }] });
    const r = await chat.complete(toolResult(image));
    expect(r.content).toBe("A label and an invoice.");
    expect(replay.server.requests[0]!.json).toEqual({
      model: "llama-3.1-8b",
      messages: [
        ...OAI_TOOL_TURNS,
        {
          role: "tool",
          tool_call_id: "call_chart_1",
          content: [
            { type: "text", text: "The chart:" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
      tools: OAI_TOOLS,
    });
  });

  it("sends the reasoning of the previous answer back as reasoning_content", async () => {
    replay.server.fallback = oaiAnswer({ content: "Shipped.", reasoning_content: "Look it up." });
    const chat = fromAISdk(compatible());
    const first = await chat.complete(
      ChatRequest({ messages: [HumanMessage({ content: "Where is A-1001?" })] }),
    );
    expect(first.reasoning).toEqual([
      { type: "reasoning", text: "Look it up.", provider: "ai-sdk/local.chat", data: null },
    ]);
    await chat.complete(
      ChatRequest({
        messages: [
          HumanMessage({ content: "Where is A-1001?" }),
          AIMessage({ content: "Shipped.", reasoning: first.reasoning }),
          HumanMessage({ content: "And B-2002?" }),
        ],
      }),
    );
    expect(replay.server.requests[1]!.json).toEqual({
      model: "llama-3.1-8b",
      messages: [
        { role: "user", content: "Where is A-1001?" },
        { role: "assistant", content: "Shipped.", reasoning_content: "Look it up." },
        { role: "user", content: "And B-2002?" },
      ],
    });
  });
});
