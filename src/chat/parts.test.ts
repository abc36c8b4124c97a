import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/react-agent.js";
import { ValidationError } from "../errors/index.js";
import { estimateTokens, PART_TOKENS } from "../middleware/history-trim.js";
import { addMessages, RemoveMessage } from "../state/add-messages.js";
import { messagesCodec } from "../state/messages-codec.js";
import { toolContent } from "../tools/call-tool.js";
import { tool } from "../tools/tool.js";
import { assembleStream } from "./assemble-stream.js";
import { AIMessage, HumanMessage, MessageSchema, ToolMessage } from "./messages.js";
import { type ContentPart, textOf } from "./parts.js";
import { ScriptedChat } from "./scripted-chat.js";
import { ChatRequest, type ChatStreamChunk } from "./types.js";

const PNG = "iVBORw0KGgo=";
const photo: ContentPart[] = [
  { type: "text", text: "What is " },
  { type: "image", data: PNG, mediaType: "image/png" },
  { type: "text", text: "this?" },
];
const thought = {
  type: "reasoning" as const,
  text: "Look closely.",
  provider: "anthropic",
  data: { signature: "sig" },
};

describe("content parts", () => {
  it("validate: exactly one of url and data, data with its mediaType, known types only", () => {
    expect(MessageSchema.parse(HumanMessage({ content: photo }))).toEqual({
      type: "human",
      id: null,
      content: photo,
    });
    const bad = (content: unknown) =>
      MessageSchema.safeParse({ type: "human", content }).error?.issues.map((i) => i.message);
    expect(bad([{ type: "image", url: "u", data: "d", mediaType: "image/png" }])).toEqual([
      "An image part needs exactly one of url and data",
    ]);
    expect(bad([{ type: "file", data: "d" }])).toEqual([
      "A file part with data needs its mediaType",
    ]);
    expect(
      MessageSchema.safeParse({ type: "human", content: [{ type: "video", url: "u" }] }).success,
    ).toBe(false);
  });

  it("textOf joins the text parts; a string stays a string", () => {
    expect([
      textOf(photo),
      textOf("hi"),
      textOf(null),
      textOf([{ type: "image", url: "u" }]),
    ]).toEqual(["What is this?", "hi", null, null]);
    expect(HumanMessage({ content: "hi" }).content).toBe("hi");
  });

  it("addMessages and RemoveMessage work with parts; the codec stores them and reads them back key for key", () => {
    const a = HumanMessage({ id: "a", content: photo });
    const b = AIMessage({ id: "b", content: "A cat.", reasoning: [thought] });
    const merged = addMessages(addMessages([], [a, b]), [RemoveMessage("a")]);
    expect(merged).toEqual([b]);
    const stored = messagesCodec.encode(JSON.parse(JSON.stringify([a, b])));
    expect(stored).toEqual([
      { type: "human", id: "a", content: photo },
      { type: "ai", id: "b", content: "A cat.", reasoning: [thought] },
    ]);
    expect(JSON.stringify(messagesCodec.decode(stored))).toBe(JSON.stringify([a, b]));
  });

  it("estimateTokens counts text parts as text and each other part as PART_TOKENS", () => {
    expect(estimateTokens(HumanMessage({ content: photo }))).toBe(Math.ceil(13 / 4) + PART_TOKENS);
    expect(estimateTokens(AIMessage({ content: "abcd", reasoning: [thought] }))).toBe(
      Math.ceil(17 / 4),
    );
  });
});

describe("ScriptedChat with parts and reasoning", () => {
  it("complete returns them; stream yields reasoning deltas, text pieces and whole parts that assemble back", async () => {
    const answer = {
      content: [
        { type: "text" as const, text: "Here is " },
        { type: "image" as const, url: "https://x/chart.png" },
        { type: "text" as const, text: "the chart." },
      ],
      reasoning: [thought],
    };
    const chat = new ScriptedChat([answer, answer]);
    const done = await chat.complete(ChatRequest({ messages: [] }));
    expect([done.content, done.reasoning]).toEqual([answer.content, answer.reasoning]);
    const chunks: ChatStreamChunk[] = [];
    for await (const c of chat.stream(ChatRequest({ messages: [] }))) chunks.push(c);
    expect(chunks.map(({ model: _, ...c }) => c)).toEqual([
      {
        reasoningDelta: {
          index: 0,
          text: "Look closely.",
          provider: "anthropic",
          data: { signature: "sig" },
        },
      },
      { contentDelta: "Here " },
      { contentDelta: "is " },
      { contentPart: { type: "image", url: "https://x/chart.png" } },
      { contentDelta: "the " },
      { contentDelta: "chart." },
      { finishReason: "stop", usage: {} },
    ]);
    const assembled = await assembleStream(
      (async function* () {
        yield* chunks;
      })(),
    );
    expect([assembled.content, assembled.reasoning]).toEqual([answer.content, answer.reasoning]);
  });
});

describe("an agent with parts", () => {
  const chart = tool(
    async () =>
      toolContent([
        { type: "text", text: "Chart:" },
        { type: "image", data: PNG, mediaType: "image/png" },
      ]),
    {
      name: "render_chart",
      description: "Render the chart.",
      input: z.object({}),
    },
  );

  it("a tool's toolContent result is the ToolMessage's parts; reasoning is kept on the AIMessage; structured output reads the text parts", async () => {
    const chat = new ScriptedChat([
      { toolCalls: [{ id: "c1", name: "render_chart", arguments: {} }], reasoning: [thought] },
      {
        content: [
          { type: "text", text: '{"peak":' },
          { type: "text", text: '"March"}' },
        ],
      },
    ]);
    const agent = buildReactAgent(chat, {
      tools: [chart],
      outputSchema: z.object({ peak: z.string() }),
    });
    const { state } = await agent.invoke({ messages: [HumanMessage({ content: photo })] });
    const [human, ai, toolMsg, last] = state.messages;
    expect(human!.content).toEqual(photo);
    expect(ai).toMatchObject({ type: "ai", reasoning: [thought] });
    expect(toolMsg).toEqual(
      ToolMessage({
        id: toolMsg!.id,
        toolCallId: "c1",
        name: "render_chart",
        content: [
          { type: "text", text: "Chart:" },
          { type: "image", data: PNG, mediaType: "image/png" },
        ],
      }),
    );
    expect(last!.content).toEqual([
      { type: "text", text: '{"peak":' },
      { type: "text", text: '"March"}' },
    ]);
    expect([state.finalText, state.finalOutput]).toEqual(['{"peak":"March"}', { peak: "March" }]);
    expect(chat.requests[1]!.messages[2]!.content).toEqual(toolMsg!.content);
  });

  it("toolContent checks its parts", () => {
    expect(() => toolContent([{ type: "image" } as never])).toThrow(ValidationError);
    expect(() => toolContent([])).toThrow(
      "toolContent: Too small: expected array to have >=1 items",
    );
  });
});
