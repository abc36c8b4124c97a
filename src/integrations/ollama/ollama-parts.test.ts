/**
 * OllamaChat: images in messages and tool results, thinking (complete, streamed and sent
 * back), `think`, and typed errors for what /api/chat cannot take, through the `ollama`
 * package against a local server replaying the documented wire format.
 */
import { describe, expect, it } from "vitest";
import { json, PNG, replayServerPerFile } from "../../../test/replay-fixture.js";
import { assembleStream } from "../../chat/assemble-stream.js";
import { AIMessage, HumanMessage, ToolMessage } from "../../chat/messages.js";
import { ChatRequest, type ChatStreamChunk } from "../../chat/types.js";
import { UnsupportedPartError, ValueError } from "../../errors/index.js";
import { ndjsonLines } from "../testing/replay-server.js";
import { OllamaChat } from "./index.js";

const MODEL = "qwen3";
const STATS = {
  total_duration: 5191566416,
  load_duration: 2154458,
  prompt_eval_count: 26,
  prompt_eval_duration: 383809000,
  eval_count: 298,
  eval_duration: 4799921000,
};
const line = (
  message: Record<string, unknown>,
  done = false,
  extra: Record<string, unknown> = {},
) => ({
  model: MODEL,
  created_at: "2025-05-29T09:35:56.305372Z",
  message: { role: "assistant", content: "", ...message },
  done,
  ...extra,
});
/** Ollama answers JSON with a charset. */
const ollamaJson = (body: unknown) => json(body, "application/json; charset=utf-8");

const replay = replayServerPerFile();

const makeChat = () => new OllamaChat({ model: MODEL, host: replay.server.url });
const body = (i = 0) => replay.server.requests[i]!.json as Record<string, unknown>;

describe("OllamaChat parts", () => {
  it("sends images (base64 and data: URLs) in images, in a user message and a tool result", async () => {
    replay.server.enqueue(
      ollamaJson(line({ content: "A chart." }, true, { done_reason: "stop", ...STATS })),
    );
    await makeChat().complete(
      ChatRequest({
        messages: [
          HumanMessage({
            content: [
              { type: "text", text: "What is this?" },
              { type: "image", data: PNG, mediaType: "image/png" },
              { type: "image", url: `data:image/png;base64,${PNG}` },
            ],
          }),
          AIMessage({
            toolCalls: [{ id: "c1", name: "render_chart", arguments: {}, argumentsError: null }],
          }),
          ToolMessage({
            toolCallId: "c1",
            name: "render_chart",
            content: [
              { type: "text", text: "chart" },
              { type: "image", data: PNG, mediaType: "image/png" },
            ],
          }),
        ],
      }),
    );
    expect(body().messages).toEqual([
      { role: "user", content: "What is this?", images: [PNG, PNG] },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ function: { name: "render_chart", arguments: {} } }],
      },
      { role: "tool", content: "chart", images: [PNG], tool_name: "render_chart" },
    ]);
  });

  it("raises UnsupportedPartError for an image URL, a file and audio; nothing is sent", async () => {
    const cases: Array<[ChatRequest, string]> = [
      [
        ChatRequest({
          messages: [HumanMessage({ content: [{ type: "image", url: "https://x/y.png" }] })],
        }),
        "Ollama cannot send an image part (url) in a user message (messages[0].content[0]): it takes images as base64 data only (or a data: URL)",
      ],
      [
        ChatRequest({
          messages: [
            HumanMessage({
              content: [
                { type: "file", data: "eA==", mediaType: "application/pdf", name: "a.pdf" },
              ],
            }),
          ],
        }),
        'Ollama cannot send a file part "a.pdf" (application/pdf) in a user message (messages[0].content[0])',
      ],
      [
        ChatRequest({
          messages: [HumanMessage({ content: [{ type: "audio", data: "x", format: "wav" }] })],
        }),
        "Ollama cannot send an audio part (wav) in a user message (messages[0].content[0])",
      ],
    ];
    for (const [request, text] of cases) {
      const e = await makeChat()
        .complete(request)
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(UnsupportedPartError);
      expect([(e as Error).message, (e as UnsupportedPartError).provider]).toEqual([
        text,
        "ollama",
      ]);
    }
    expect(replay.server.requests).toHaveLength(0);
  });
});

describe("OllamaChat thinking", () => {
  it("sends think from reasoning { effort }, reads thinking, and sends it back on the next turn", async () => {
    replay.server.enqueue(
      ollamaJson(
        line({ content: "9.8 is larger.", thinking: "Compare 9.11 and 9.8: 0.8 > 0.11." }, true, {
          done_reason: "stop",
          ...STATS,
        }),
      ),
    );
    const r = await makeChat().complete(
      ChatRequest({
        messages: [HumanMessage({ content: "9.11 or 9.8?" })],
        reasoning: { effort: "high" },
      }),
    );
    expect(body().think).toBe("high");
    expect(r.reasoning).toEqual([
      {
        type: "reasoning",
        text: "Compare 9.11 and 9.8: 0.8 > 0.11.",
        provider: "ollama",
        data: null,
      },
    ]);
    expect(r.usage).toEqual({ inputTokens: 26, outputTokens: 298, totalTokens: 324, raw: STATS });
    replay.server.enqueue(
      ollamaJson(line({ content: "ok" }, true, { done_reason: "stop", ...STATS })),
    );
    await makeChat().complete(
      ChatRequest({
        messages: [
          HumanMessage({ content: "9.11 or 9.8?" }),
          AIMessage({ content: r.content, reasoning: r.reasoning }),
          HumanMessage({ content: "Sure?" }),
        ],
      }),
    );
    expect((body(1).messages as unknown[])[1]).toEqual({
      role: "assistant",
      content: "9.8 is larger.",
      thinking: "Compare 9.11 and 9.8: 0.8 > 0.11.",
    });
    expect(() =>
      makeChat().toRequestBody(ChatRequest({ messages: [], reasoning: { budgetTokens: 512 } })),
    ).toThrow(
      new ValueError(
        "OllamaChat: reasoning { budgetTokens: 512 } has no Ollama setting; use reasoning { effort } (sent as think)",
      ),
    );
  });

  it("streams thinking lines as reasoning deltas before the content", async () => {
    replay.server.enqueue({
      headers: { "content-type": "application/x-ndjson" },
      body: ndjsonLines([
        line({ thinking: "Compare " }),
        line({ thinking: "0.8 and 0.11." }),
        line({ content: "9.8 " }),
        line({ content: "is larger." }),
        line({}, true, { done_reason: "stop", ...STATS }),
      ]),
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
      { index: 0, text: "Compare ", provider: "ollama" },
      { index: 0, text: "0.8 and 0.11.", provider: "ollama" },
    ]);
    expect([r.content, r.reasoning]).toEqual([
      "9.8 is larger.",
      [{ type: "reasoning", text: "Compare 0.8 and 0.11.", provider: "ollama", data: null }],
    ]);
  });
});
