/**
 * Content parts and reasoning through fromAISdk on `@ai-sdk/google` (Gemini
 * `generateContent`), against a local replay server: the exact wire bodies the package
 * sends for images and PDFs in user messages, images in tool results, and reasoning sent back;
 * and the parts it would degrade refused with UnsupportedPartError before any request.
 */
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { beforeEach, describe, expect, it } from "vitest";
import { json, PDF, PNG, rejection, replayServerPerFile } from "../../../test/replay-fixture.js";
import { assembleStream } from "../../chat/assemble-stream.js";
import { AIMessage, HumanMessage, type Message, ToolMessage } from "../../chat/messages.js";
import type { ContentPart } from "../../chat/parts.js";
import { ChatRequest } from "../../chat/types.js";
import { fromAISdk } from "./index.js";

const replay = replayServerPerFile();

const image: ContentPart = { type: "image", data: PNG, mediaType: "image/png" };
const imageUrl: ContentPart = {
  type: "image",
  url: "https://x.test/chart.png",
  mediaType: "image/png",
};
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

// ---- @ai-sdk/google -----------------------------------------------------------------------

const gAnswer = (parts: unknown[]) =>
  json({
    candidates: [{ content: { parts, role: "model" }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 3, totalTokenCount: 12 },
    modelVersion: "gemini-2.5-flash",
  });

const gemini = (id = "gemini-2.5-flash") =>
  createGoogleGenerativeAI({ baseURL: `${replay.server.url}/v1beta`, apiKey: "test-key" })(id);

const G_TOOLS = [
  {
    functionDeclarations: [
      {
        name: "render_chart",
        description: "Render a chart.",
        parametersJsonSchema: { type: "object", properties: { month: { type: "string" } } },
      },
    ],
  },
];
const G_CALL_TURNS = [
  { role: "user", parts: [{ text: "Chart March sales." }] },
  {
    role: "model",
    parts: [
      { functionCall: { id: "call_chart_1", name: "render_chart", args: { month: "march" } } },
    ],
  },
];

describe("fromAISdk(@ai-sdk/google) parts on the wire", () => {
  beforeEach(() => {
    replay.server.reset();
    replay.server.fallback = gAnswer([{ text: "A label and an invoice." }]);
  });

  it("sends an image and a PDF of a user message as inlineData", async () => {
    const r = await fromAISdk(gemini()).complete(userParts());
    expect(r.content).toBe("A label and an invoice.");
    expect(replay.server.requests[0]!.json).toEqual({
      generationConfig: {},
      contents: [
        {
          role: "user",
          parts: [
            { text: "What are these?" },
            { inlineData: { mimeType: "image/png", data: PNG } },
            { inlineData: { mimeType: "application/pdf", data: PDF } },
          ],
        },
      ],
    });
  });

  it("sends a tool result's base64 image as inlineData (Gemini 2.5: after the functionResponse)", async () => {
    await fromAISdk(gemini()).complete(toolResult(image));
    expect(replay.server.requests[0]!.json).toEqual({
      generationConfig: {},
      contents: [
        ...G_CALL_TURNS,
        {
          role: "user",
          parts: [
            {
              functionResponse: {
                id: "call_chart_1",
                name: "render_chart",
                response: { name: "render_chart", content: "The chart:" },
              },
            },
            { inlineData: { mimeType: "image/png", data: PNG } },
            { text: "Tool executed successfully and returned this image as a response" },
          ],
        },
      ],
      tools: G_TOOLS,
    });
  });

  it("sends a tool result's base64 image in functionResponse.parts on Gemini 3", async () => {
    await fromAISdk(gemini("gemini-3-pro-preview")).complete(toolResult(image));
    const body = replay.server.requests[0]!.json as { contents: unknown[] };
    expect(body.contents[2]).toEqual({
      role: "user",
      parts: [
        {
          functionResponse: {
            id: "call_chart_1",
            name: "render_chart",
            response: { name: "render_chart", content: "The chart:" },
            parts: [{ inlineData: { mimeType: "image/png", data: PNG } }],
          },
        },
      ],
    });
  });

  it("refuses an image URL in a tool result (the package would write it out as JSON text), sending nothing", async () => {
    const chat = fromAISdk(gemini());
    const e = await rejection(chat.complete(toolResult(imageUrl)));
    expect([e.partType, e.path, e.provider]).toEqual([
      "image",
      "messages[2].content[1]",
      "google.generative-ai",
    ]);
    expect(e.message).toBe(
      "AI SDK model google.generative-ai/gemini-2.5-flash cannot send an image part (url) in a tool result (messages[2].content[1]): @ai-sdk/google would write a media URL in a tool result out as JSON text; send the media as base64 data",
    );
    expect(replay.server.requests).toEqual([]);
    expect(chat.unsupportedParts).toEqual([
      { in: "toolResult", source: "url" },
      { in: "assistant", source: "url" },
    ]);
  });

  it("sends a thought back with its text and thoughtSignature on the next turn", async () => {
    replay.server.fallback = gAnswer([
      { text: "Look it up.", thought: true, thoughtSignature: "c2lnLTE=" },
      { text: "Shipped." },
    ]);
    const chat = fromAISdk(gemini());
    const first = await chat.complete(
      ChatRequest({ messages: [HumanMessage({ content: "Where is A-1001?" })] }),
    );
    expect(first.reasoning).toEqual([
      {
        type: "reasoning",
        text: "Look it up.",
        provider: "ai-sdk/google.generative-ai",
        data: { google: { thoughtSignature: "c2lnLTE=" } },
      },
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
      generationConfig: {},
      contents: [
        { role: "user", parts: [{ text: "Where is A-1001?" }] },
        {
          role: "model",
          parts: [
            { text: "Look it up.", thought: true, thoughtSignature: "c2lnLTE=" },
            { text: "Shipped." },
          ],
        },
        { role: "user", parts: [{ text: "And B-2002?" }] },
      ],
    });
  });
});

describe("fromAISdk(@ai-sdk/google) function-call thought signatures (Gemini 3)", () => {
  const callAnswer = [
    {
      functionCall: { name: "render_chart", args: { month: "march" } },
      thoughtSignature: "Zm4tc2ln",
    },
  ];
  const kept = (id: string) => ({
    type: "reasoning",
    text: "",
    provider: "ai-sdk/google.generative-ai",
    data: { aiSdkToolCallId: id, providerMetadata: { google: { thoughtSignature: "Zm4tc2ln" } } },
  });

  it("keeps a functionCall's thoughtSignature, complete and stream alike, and sends it back on that functionCall", async () => {
    replay.server.reset();
    replay.server.fallback = (req) =>
      req.path.includes(":streamGenerateContent")
        ? {
            headers: { "content-type": "text/event-stream" },
            body: [
              `data: ${JSON.stringify({
                candidates: [
                  { content: { parts: callAnswer, role: "model" }, finishReason: "STOP", index: 0 },
                ],
                usageMetadata: {
                  promptTokenCount: 9,
                  candidatesTokenCount: 3,
                  totalTokenCount: 12,
                },
              })}\n\n`,
            ],
          }
        : gAnswer(callAnswer);
    const chat = fromAISdk(gemini("gemini-3-pro-preview"));
    const ask = ChatRequest({
      messages: [HumanMessage({ content: "Chart March sales." })],
      tools: [CHART_TOOL],
    });
    const done = await chat.complete(ask);
    const id = done.toolCalls[0]!.id;
    expect(done.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ["render_chart", { month: "march" }],
    ]);
    expect(done.reasoning).toEqual([kept(id)]);
    const streamed = await assembleStream(chat.stream(ask));
    expect(streamed.reasoning).toEqual([kept(streamed.toolCalls[0]!.id)]);

    replay.server.reset();
    replay.server.fallback = gAnswer([{ text: "Here it is." }]);
    await chat.complete(
      ChatRequest({
        messages: [
          HumanMessage({ content: "Chart March sales." }),
          AIMessage({ toolCalls: done.toolCalls, reasoning: done.reasoning }),
          ToolMessage({ toolCallId: id, name: "render_chart", content: "done" }),
        ],
        tools: [CHART_TOOL],
      }),
    );
    const body = replay.server.requests[0]!.json as { contents: unknown[] };
    expect(body.contents[1]).toEqual({
      role: "model",
      parts: [
        {
          functionCall: { id, name: "render_chart", args: { month: "march" } },
          thoughtSignature: "Zm4tc2ln",
        },
      ],
    });
  });
});

describe("fromAISdk(@ai-sdk/google) a text part's thought signature", () => {
  it("keeps the signature Gemini puts on the answer's text, complete and stream alike, and sends it back on the text", async () => {
    const answer = [{ text: "Shipped.", thoughtSignature: "dHh0LXNpZw==" }];
    replay.server.reset();
    replay.server.fallback = (req) =>
      req.path.includes(":streamGenerateContent")
        ? {
            headers: { "content-type": "text/event-stream" },
            body: [
              `data: ${JSON.stringify({
                candidates: [
                  { content: { parts: answer, role: "model" }, finishReason: "STOP", index: 0 },
                ],
                usageMetadata: {
                  promptTokenCount: 9,
                  candidatesTokenCount: 3,
                  totalTokenCount: 12,
                },
              })}\n\n`,
            ],
          }
        : gAnswer(answer);
    const chat = fromAISdk(gemini());
    const ask = ChatRequest({ messages: [HumanMessage({ content: "Where is A-1001?" })] });
    const kept = [
      {
        type: "reasoning",
        text: "",
        provider: "ai-sdk/google.generative-ai",
        data: {
          aiSdkText: true,
          providerMetadata: { google: { thoughtSignature: "dHh0LXNpZw==" } },
        },
      },
    ];
    const done = await chat.complete(ask);
    const streamed = await assembleStream(chat.stream(ask));
    for (const r of [done, streamed]) {
      expect(r.content).toBe("Shipped.");
      expect(r.reasoning).toEqual(kept);
    }
    replay.server.reset();
    replay.server.fallback = gAnswer([{ text: "On its way." }]);
    await chat.complete(
      ChatRequest({
        messages: [
          HumanMessage({ content: "Where is A-1001?" }),
          AIMessage({ content: "Shipped.", reasoning: streamed.reasoning }),
          HumanMessage({ content: "And B-2002?" }),
        ],
      }),
    );
    expect((replay.server.requests[0]!.json as { contents: unknown[] }).contents).toEqual([
      { role: "user", parts: [{ text: "Where is A-1001?" }] },
      { role: "model", parts: [{ text: "Shipped.", thoughtSignature: "dHh0LXNpZw==" }] },
      { role: "user", parts: [{ text: "And B-2002?" }] },
    ]);
  });
});
