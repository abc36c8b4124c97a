import { describe, expect, it } from "vitest";
import type { Json } from "../api.ts";
import { chatItems, messagesField } from "./messages.ts";

const ai = (toolCalls: Json[], content: Json = null, reasoning: Json[] = []): Json => ({
  type: "ai",
  id: "a",
  content,
  refusal: null,
  toolCalls,
  reasoning,
});
const call = (id: string, name: string, args: Json): Json => ({
  id,
  name,
  arguments: args,
  argumentsError: null,
});
const result = (toolCallId: string, content: string, args: Json = null): Json => ({
  type: "tool",
  id: null,
  content,
  name: "t",
  toolCallId,
  arguments: args,
});

describe("chatItems", () => {
  it("pairs each parallel tool call with the tool message that answers it, whatever their order", () => {
    const messages: Json[] = [
      { type: "human", id: "h", content: "hi" },
      ai([call("c1", "a", { x: 1 }), call("c2", "b", { y: 2 })], null, [
        { type: "reasoning", text: "first", provider: "p", data: null },
        { type: "reasoning", text: "second", provider: "p", data: null },
      ]),
      result("c2", "two"),
      result("c1", "one", { x: 3 }),
      ai([], "done"),
    ];
    expect(chatItems(messages)).toEqual([
      { kind: "human", index: 0, content: "hi" },
      {
        kind: "ai",
        index: 1,
        content: null,
        reasoning: "first\nsecond",
        refusal: null,
        toolCalls: [
          {
            id: "c1",
            name: "a",
            arguments: { x: 1 },
            argumentsError: null,
            result: { content: "one", arguments: { x: 3 } },
          },
          {
            id: "c2",
            name: "b",
            arguments: { y: 2 },
            argumentsError: null,
            result: { content: "two", arguments: null },
          },
        ],
      },
      { kind: "ai", index: 4, content: "done", reasoning: "", refusal: null, toolCalls: [] },
    ]);
  });

  it("leaves a call without its tool message as waiting (result null)", () => {
    const items = chatItems([ai([call("c1", "a", {})])]);
    expect(items[0]).toMatchObject({ toolCalls: [{ id: "c1", result: null }] });
  });
});

describe("messagesField", () => {
  it("finds `messages`, or else the first field holding messages", () => {
    expect(messagesField({ messages: [], n: 1 })).toBe("messages");
    expect(messagesField({ n: 1, chat: [{ type: "human", content: "x" }] })).toBe("chat");
    expect(messagesField({ n: 1, list: [1, 2] })).toBe(null);
    expect(messagesField(null)).toBe(null);
  });
});
