/**
 * OpenAIChat on the Responses API (`api: "responses"`): request mapping, answers, reasoning
 * items sent back, tool results with images, streaming events and usage, through the official
 * SDK against a local server replaying the documented wire format.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assembleStream } from "../../chat/assemble-stream.js";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../../chat/messages.js";
import { ChatRequest, type ChatStreamChunk } from "../../chat/types.js";
import { ModelProviderError, UnsupportedPartError } from "../../errors/index.js";
import { type ReplayResponse, ReplayServer, sseEvents } from "../testing/replay-server.js";
import { OpenAIChat } from "./index.js";

const MODEL = "o4-mini-2025-04-16";
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const PDF = "JVBERi0xLjQKJcfsj6IKdHJhaWxlcgo8PD4+CiUlRU9GCg==";
const USAGE = {
  input_tokens: 1864,
  input_tokens_details: { cached_tokens: 1536 },
  output_tokens: 1035,
  output_tokens_details: { reasoning_tokens: 832 },
  total_tokens: 2899,
};
const MAPPED = {
  inputTokens: 1864,
  outputTokens: 1035,
  totalTokens: 2899,
  cachedInputTokens: 1536,
  reasoningTokens: 832,
  raw: USAGE,
};
const REASONING = {
  id: "rs_6876cf02e0bc8192b74af0fb64b715ff06fa2fcced15a5ac",
  type: "reasoning",
  summary: [
    { type: "summary_text", text: "**Reading the chart**\n\nSales rose in March." },
    { type: "summary_text", text: "**Answering**\n\nMarch is the peak." },
  ],
  encrypted_content: "gAAAAABodsx0dGlzIGlzIHRoZSBlbmNyeXB0ZWQgcmVhc29uaW5nIGl0ZW0=",
};
const CALL = {
  id: "fc_67ca09c6bedc8190a7abfec07b1a1332096610f474011cc0",
  type: "function_call",
  status: "completed",
  arguments: '{"month":"march"}',
  call_id: "call_unLAR8MvFNptuiZK6K6HCy5k",
  name: "render_chart",
};
const MESSAGE = {
  id: "msg_67ccd3acc8d48190a77525dc6de64b4104becb25c45c1d41",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [
    { type: "output_text", annotations: [], logprobs: [], text: "March is the peak month." },
  ],
};

function response(output: unknown[], status = "completed", extra: Record<string, unknown> = {}) {
  return {
    id: "resp_67ccd3a9da748190baa7f1570fe91ac604becb25c45c1d41",
    object: "response",
    created_at: 1741476777,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: MODEL,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    temperature: 1.0,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1.0,
    truncation: "disabled",
    usage: USAGE,
    user: null,
    metadata: {},
    ...extra,
  };
}

const json = (body: unknown): ReplayResponse => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

let server: ReplayServer;
beforeAll(async () => {
  server = await ReplayServer.start();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

const makeChat = (options: Partial<ConstructorParameters<typeof OpenAIChat>[0]> = {}) =>
  new OpenAIChat({
    model: "o4-mini",
    api: "responses",
    apiKey: "sk-test",
    baseURL: `${server.url}/v1`,
    ...options,
  });

const tools = [
  {
    name: "render_chart",
    description: "Render the sales chart of a month.",
    inputSchema: { type: "object", properties: { month: { type: "string" } }, required: ["month"] },
  },
];

describe('OpenAIChat api: "responses"', () => {
  it("posts to /v1/responses with parts, tools, tool choice, structured output, reasoning, cache key and store", async () => {
    server.enqueue(json(response([MESSAGE])));
    await makeChat({ promptCacheKey: "sales", store: false }).complete(
      ChatRequest({
        messages: [
          SystemMessage({ content: "You read sales data." }),
          HumanMessage({
            content: [
              { type: "text", text: "Which month peaks?" },
              { type: "image", data: PNG, mediaType: "image/png" },
              { type: "file", data: PDF, mediaType: "application/pdf", name: "sales.pdf" },
              { type: "file", url: "https://example.com/q1.pdf" },
            ],
          }),
        ],
        tools,
        toolChoice: "render_chart",
        outputSchema: { title: "Peak", type: "object", properties: { month: { type: "string" } } },
        reasoning: { effort: "high" },
      }),
    );
    const [req] = server.requests;
    expect(req!.path).toBe("/v1/responses");
    expect(req!.json).toEqual({
      model: "o4-mini",
      stream: false,
      input: [
        { role: "system", content: "You read sales data." },
        {
          role: "user",
          content: [
            { type: "input_text", text: "Which month peaks?" },
            { type: "input_image", detail: "auto", image_url: `data:image/png;base64,${PNG}` },
            {
              type: "input_file",
              file_data: `data:application/pdf;base64,${PDF}`,
              filename: "sales.pdf",
            },
            { type: "input_file", file_url: "https://example.com/q1.pdf" },
          ],
        },
      ],
      tools: [
        {
          type: "function",
          name: "render_chart",
          description: "Render the sales chart of a month.",
          parameters: tools[0]!.inputSchema,
          strict: false,
        },
      ],
      tool_choice: { type: "function", name: "render_chart" },
      text: {
        format: {
          type: "json_schema",
          name: "Peak",
          schema: { title: "Peak", type: "object", properties: { month: { type: "string" } } },
          strict: true,
        },
      },
      reasoning: { effort: "high", summary: "auto" },
      store: false,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "sales",
    });
  });

  it("maps reasoning, a function call and usage; sends the reasoning item back unchanged with the call and a tool result holding an image", async () => {
    server.enqueue(json(response([REASONING, CALL])));
    const first = await makeChat().complete(
      ChatRequest({ messages: [HumanMessage({ content: "Which month peaks?" })], tools }),
    );
    expect({ ...first, raw: null }).toEqual({
      content: null,
      refusal: null,
      toolCalls: [
        {
          id: "call_unLAR8MvFNptuiZK6K6HCy5k",
          name: "render_chart",
          arguments: { month: "march" },
          argumentsError: null,
        },
      ],
      reasoning: [
        {
          type: "reasoning",
          text: "**Reading the chart**\n\nSales rose in March.\n\n**Answering**\n\nMarch is the peak.",
          provider: "openai",
          data: REASONING,
        },
      ],
      finishReason: "tool_calls",
      usage: MAPPED,
      model: MODEL,
      raw: null,
    });
    server.enqueue(json(response([MESSAGE])));
    const second = await makeChat().complete(
      ChatRequest({
        messages: [
          HumanMessage({ content: "Which month peaks?" }),
          AIMessage({ toolCalls: first.toolCalls, reasoning: first.reasoning }),
          ToolMessage({
            toolCallId: "call_unLAR8MvFNptuiZK6K6HCy5k",
            content: [
              { type: "text", text: "Chart of March:" },
              { type: "image", data: PNG, mediaType: "image/png" },
            ],
          }),
        ],
        tools,
      }),
    );
    expect((server.requests[1]!.json as { input: unknown }).input).toEqual([
      { role: "user", content: "Which month peaks?" },
      REASONING,
      {
        type: "function_call",
        call_id: "call_unLAR8MvFNptuiZK6K6HCy5k",
        name: "render_chart",
        arguments: '{"month":"march"}',
      },
      {
        type: "function_call_output",
        call_id: "call_unLAR8MvFNptuiZK6K6HCy5k",
        output: [
          { type: "input_text", text: "Chart of March:" },
          { type: "input_image", detail: "auto", image_url: `data:image/png;base64,${PNG}` },
        ],
      },
    ]);
    expect([second.content, second.finishReason]).toEqual(["March is the peak month.", "stop"]);
  });

  it("reads an incomplete response as finish reason length, and a failed one as an error", async () => {
    server.enqueue(
      json(
        response([MESSAGE], "incomplete", { incomplete_details: { reason: "max_output_tokens" } }),
      ),
    );
    expect((await makeChat().complete(ChatRequest({ messages: [] }))).finishReason).toBe("length");
    server.enqueue(
      json(
        response([], "failed", { error: { code: "server_error", message: "The model crashed." } }),
      ),
    );
    const e = await makeChat()
      .complete(ChatRequest({ messages: [] }))
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ModelProviderError);
    expect([(e as Error).message, (e as ModelProviderError).retryable]).toEqual([
      "OpenAI Responses failed: server_error: The model crashed.",
      true,
    ]);
  });

  it("raises UnsupportedPartError for audio, which the Responses API takes no input of", async () => {
    const e = await makeChat()
      .complete(
        ChatRequest({
          messages: [HumanMessage({ content: [{ type: "audio", data: "x", format: "wav" }] })],
        }),
      )
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnsupportedPartError);
    expect((e as Error).message).toBe(
      "OpenAI Responses cannot send an audio part (wav) in a user message (messages[0].content[0]): it takes no audio input; use the Chat Completions API (the default)",
    );
    expect(server.requests).toHaveLength(0);
  });

  it("streams the reasoning summary as reasoning deltas, the item's data at its end, text and a call, then finish and usage", async () => {
    const inProgress = { ...response([]), status: "in_progress", usage: null };
    const events: Array<{ event: string; data: Record<string, unknown> }> = [];
    const add = (type: string, data: Record<string, unknown>) =>
      events.push({ event: type, data: { type, sequence_number: events.length, ...data } });
    add("response.created", { response: inProgress });
    add("response.in_progress", { response: inProgress });
    add("response.output_item.added", {
      output_index: 0,
      item: { id: REASONING.id, type: "reasoning", summary: [] },
    });
    add("response.reasoning_summary_part.added", {
      item_id: REASONING.id,
      output_index: 0,
      summary_index: 0,
      part: { type: "summary_text", text: "" },
    });
    for (const delta of ["**Reading the chart**", "\n\nSales rose in March."])
      add("response.reasoning_summary_text.delta", {
        item_id: REASONING.id,
        output_index: 0,
        summary_index: 0,
        delta,
      });
    add("response.reasoning_summary_part.added", {
      item_id: REASONING.id,
      output_index: 0,
      summary_index: 1,
      part: { type: "summary_text", text: "" },
    });
    add("response.reasoning_summary_text.delta", {
      item_id: REASONING.id,
      output_index: 0,
      summary_index: 1,
      delta: "**Answering**\n\nMarch is the peak.",
    });
    add("response.output_item.done", { output_index: 0, item: REASONING });
    add("response.output_item.added", {
      output_index: 1,
      item: { ...MESSAGE, status: "in_progress", content: [] },
    });
    for (const delta of ["March is ", "the peak month."])
      add("response.output_text.delta", {
        item_id: MESSAGE.id,
        output_index: 1,
        content_index: 0,
        delta,
        logprobs: [],
      });
    add("response.output_item.done", { output_index: 1, item: MESSAGE });
    add("response.output_item.added", {
      output_index: 2,
      item: { ...CALL, status: "in_progress", arguments: "" },
    });
    for (const delta of ['{"month":', '"march"}'])
      add("response.function_call_arguments.delta", { item_id: CALL.id, output_index: 2, delta });
    add("response.output_item.done", { output_index: 2, item: CALL });
    add("response.completed", { response: response([REASONING, MESSAGE, CALL]) });
    server.enqueue({ headers: { "content-type": "text/event-stream" }, body: sseEvents(events) });

    const chunks: ChatStreamChunk[] = [];
    const assembled = await assembleStream(
      (async function* () {
        for await (const c of makeChat().stream(ChatRequest({ messages: [], tools }))) {
          chunks.push(c);
          yield c;
        }
      })(),
    );
    expect(chunks.filter((c) => c.reasoningDelta).map((c) => c.reasoningDelta)).toEqual([
      { index: 0, text: "", provider: "openai" },
      { index: 0, text: "**Reading the chart**" },
      { index: 0, text: "\n\nSales rose in March." },
      { index: 0, text: "\n\n" },
      { index: 0, text: "**Answering**\n\nMarch is the peak." },
      { index: 0, data: REASONING },
    ]);
    expect(chunks.filter((c) => c.contentDelta).map((c) => c.contentDelta)).toEqual([
      "March is ",
      "the peak month.",
    ]);
    expect({ ...assembled, raw: null }).toEqual({
      content: "March is the peak month.",
      refusal: null,
      toolCalls: [
        {
          id: "call_unLAR8MvFNptuiZK6K6HCy5k",
          name: "render_chart",
          arguments: { month: "march" },
          argumentsError: null,
        },
      ],
      reasoning: [
        {
          type: "reasoning",
          text: "**Reading the chart**\n\nSales rose in March.\n\n**Answering**\n\nMarch is the peak.",
          provider: "openai",
          data: REASONING,
        },
      ],
      finishReason: "tool_calls",
      usage: MAPPED,
      model: MODEL,
      raw: null,
    });
    expect((server.requests[0]!.json as { stream: boolean }).stream).toBe(true);
  });

  it("raises a retryable error when the stream ends before response.completed", async () => {
    server.enqueue({
      headers: { "content-type": "text/event-stream" },
      body: sseEvents([
        {
          event: "response.created",
          data: {
            type: "response.created",
            sequence_number: 0,
            response: response([], "in_progress"),
          },
        },
      ]),
    });
    const e = await assembleStream(makeChat().stream(ChatRequest({ messages: [] }))).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ModelProviderError);
    expect((e as ModelProviderError).retryable).toBe(true);
  });
});
