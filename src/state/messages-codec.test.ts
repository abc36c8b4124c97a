import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../chat/messages.js";
import type { JsonValue } from "../json/index.js";
import { compactMessage, expandMessage, messagesCodec } from "./messages-codec.js";

const j = (v: unknown) => v as JsonValue;

describe("messagesCodec", () => {
  it("stores a message without its default-valued keys", () => {
    expect(
      compactMessage(
        j(
          AIMessage({
            id: "m1",
            toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "x" }, argumentsError: null }],
            finishReason: "tool_calls",
          }),
        ),
      ),
    ).toEqual({
      type: "ai",
      id: "m1",
      toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "x" } }],
      finishReason: "tool_calls",
    });
    expect(
      compactMessage(j(ToolMessage({ id: "m2", content: "ok", name: "lookup", toolCallId: "c1" }))),
    ).toEqual({ type: "tool", id: "m2", content: "ok", name: "lookup", toolCallId: "c1" });
    expect(compactMessage(j(HumanMessage({ id: "m3" })))).toEqual({ type: "human", id: "m3" });
  });

  it("reads back every message type key for key, in the schema's order", () => {
    const messages = [
      SystemMessage({ id: "s", content: "be brief" }),
      HumanMessage({ id: "h", content: "hi" }),
      AIMessage({ id: "a1", content: "hello" }),
      AIMessage({
        id: "a2",
        refusal: "no",
        toolCalls: [
          { id: "c1", name: "t", arguments: {}, argumentsError: "bad JSON" },
          { id: "c2", name: "t", arguments: { n: 1 }, argumentsError: null },
        ],
        finishReason: "stop",
        usage: { inputTokens: 3, outputTokens: 4 },
      }),
      ToolMessage({ id: "t1", content: "x", name: "t", toolCallId: "c2", arguments: { n: 2 } }),
      ToolMessage({ id: "t2" }),
    ];
    for (const m of messages) {
      const back = expandMessage(compactMessage(j(m)));
      expect(JSON.stringify(back)).toBe(JSON.stringify(m));
      // Reading a message that is already whole changes nothing.
      expect(JSON.stringify(expandMessage(j(m)))).toBe(JSON.stringify(m));
    }
  });

  it("keeps RemoveMessage markers and unknown values as they are, and fills fresh defaults", () => {
    const update = j([{ type: "remove", id: "m1" }, AIMessage({ id: "a" })]);
    const stored = messagesCodec.encode(update);
    expect(stored).toEqual([
      { type: "remove", id: "m1" },
      { type: "ai", id: "a" },
    ]);
    const a = messagesCodec.decode(stored) as { toolCalls: unknown[] }[];
    const b = messagesCodec.decode(stored) as { toolCalls: unknown[] }[];
    expect(a[1]!.toolCalls).not.toBe(b[1]!.toolCalls);
    expect(messagesCodec.decode(j(HumanMessage({ id: "x", content: "one" })))).toEqual(
      HumanMessage({ id: "x", content: "one" }),
    );
    expect(messagesCodec.decode(42)).toBe(42);
  });
});
